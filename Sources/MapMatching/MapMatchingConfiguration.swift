import RoadGraph

/// Every threshold of the map matcher, with its unit and default. The names follow Newson & Krumm (2009),
/// "Hidden Markov Map Matching Through Noise and Sparseness": σ_z for the emission, β for the transition.
public struct MapMatchingConfiguration: Sendable, Hashable {
    // MARK: Candidates and emission

    /// σ_z, the standard deviation of GPS position error along one axis, metres, used when a fix reports no
    /// horizontal accuracy. Default 7 (urban phone and car GPS).
    public var defaultSigmaMeters: Double = 7
    /// A fix's reported `horizontalAccuracy` (a 68 % radius) is divided by this to give its per-axis σ_z
    /// (for a 2-D Gaussian the 68 % radius is about 1.5 σ). Default 1.5.
    public var accuracyToSigmaRatio: Double = 1.5
    /// σ_z never goes below this, metres (reported accuracies are often optimistic). Default 4.
    public var minimumSigmaMeters: Double = 4
    /// σ_z never goes above this, metres. Default 25.
    public var maximumSigmaMeters: Double = 25
    /// A fix's σ_z from its reported accuracy is kept within this factor of the noise the matcher measures in its
    /// own decided answers: from σ_e / factor to σ_e · factor, σ_e the estimate (`residualMedianToSigma`), or
    /// `defaultSigmaMeters` until `residualSigmaEvidenceFixes` answers were decided. Reported accuracies are often
    /// optimistic, or written by a program that knows nothing of the noise, and a σ_z far from the noise loses the
    /// right road: on SUMO drives with σ = 8 m per axis, an accuracy of 5 m (σ_z 4) cost Helsinki 2.9 points on the
    /// true way at 1 s fixes, 20 m (σ_z 13.3) cost 3 points at 5 s. A report within the band is taken as it is, so
    /// that per-fix differences still count. A fix without an accuracy keeps `defaultSigmaMeters`: the estimate
    /// follows the roads as well as the noise (a vehicle in the outer lane of a wide road, metres from the OSM centre
    /// line, measures more), and σ_z taken from the estimate alone did worse than the default on those drives
    /// (Helsinki 94.3 / 90.4 → 93.6 / 88.9 % on the true way at 1 s / 5 s). Unitless, at least 1. Default 1.25
    /// (SUMO drives, accuracy 5 m: Helsinki 91.4 / 88.2 → 93.7 / 88.6 %, Baltimore 97.8 / 97.4 → 98.8 / 98.3 %;
    /// 20 m: Helsinki 5 s 87.4 → 88.4 %; 10 and 12 m within noise; 1.1 gained more at 5 m but lost up to 1.8 points
    /// at 10 m; BENCHMARKS.md "Session 12: reported accuracy that does not match the noise"). `.infinity`
    /// disables: the reported accuracy alone decides, as before.
    public var residualSigmaAgreementFactor: Double = 1.25
    /// A fix that reports a worse accuracy than the receiver usually does widens the band's upper edge by that
    /// ratio (`residualSigmaAgreementFactor` × σ_e × accuracy ÷ typical accuracy, the typical one a geometric mean of
    /// the recent reports, `typicalAccuracyTimeConstantSeconds`). Why: in an urban canyon reflections shift the fix
    /// 15-30 m to one side of the street for 10-30 s and the receiver's reported accuracy rises, if only by part of
    /// the shift; σ_z held at 1.25 σ_e (the noise of the drive so far) made those fixes outliers beyond 3.5 σ_z, the
    /// matcher coasted through up to `maximumCoastedFixes` of them and dead-reckoned onto a road branching off, 100-220 m
    /// from the fixes (SUMO Kouvola probe15 with recorded-drive noise, positions only: 4 reroutes on a drive that
    /// kept to its route). A receiver that reports the same figure on every fix (a logger, a simulator) is not
    /// affected. Default true.
    public var accuracyRiseWidensBand = true
    /// The typical reported accuracy (`accuracyRiseWidensBand`) forgets a report this many seconds old to e^−1,
    /// but never faster than over `typicalAccuracyMemoryFixes` fixes; it is used once `typicalAccuracyEvidenceFixes`
    /// fixes reported one. Default
    /// 120 s: a 30 s canyon episode raises it by about a fifth of its own rise.
    public var typicalAccuracyTimeConstantSeconds: Double = 120
    /// See `typicalAccuracyTimeConstantSeconds`. Default 30.
    public var typicalAccuracyMemoryFixes: Double = 30
    /// Reports seen before the typical accuracy is used (until then no fix widens the band). Default 10.
    public var typicalAccuracyEvidenceFixes: Int = 10
    /// The noise estimate σ_e (`residualSigmaAgreementFactor`) is this times the weighted median distance between
    /// decided fixes and their road positions, unitless. For a Gaussian error of σ per axis the distance across the
    /// road has a median of 0.6745 σ, hence Newson & Krumm's (2009) 1.4826; the default is 0.85 of that, since
    /// the distance also holds the vehicle's lane offset from the centre line and the matcher does best with a σ_z
    /// a little under the noise (SUMO drives, σ = 8 m noise: σ_z 7 and 6.7 beat 8 and 5.3). Coasted fixes (outliers)
    /// and standing vehicles' averaged fixes are not counted; the median ignores the outliers the matcher followed.
    /// Default 1.26.
    public var residualMedianToSigma: Double = 1.26
    /// Answers decided this long ago count e^−1 as much in the estimate, seconds: a vehicle entering an urban
    /// canyon is followed within about a minute. Default 60.
    public var residualSigmaTimeConstantSeconds: Double = 60
    /// … but the weights never decay faster than over this many decided fixes, so that sparse fixes keep enough
    /// of them for a steady median (at 5 s fixes the memory is then about 2.5 minutes). Default 30.
    public var residualSigmaMemoryFixes: Double = 30
    /// The estimate is used once this many fixes' worth of weight was recorded (the newest fix counts 1); before,
    /// the band is around `defaultSigmaMeters`. Default 10.
    public var residualSigmaEvidenceFixes: Double = 10
    /// Candidate roads lie within this many σ_z of the fix. Default 4.5.
    public var searchRadiusSigmas: Double = 4.5
    /// The candidate radius is at least this, metres. Default 30.
    public var minimumSearchRadiusMeters: Double = 30
    /// … and at most this, metres. Default 120.
    public var maximumSearchRadiusMeters: Double = 120
    /// Log-likelihood cost of a candidate on a service road, track, busway or pedestrian street: vehicles use
    /// them less than the streets beside them. Default 1.
    public var minorRoadPenalty: Double = 1
    /// Half a lane width, metres: a fix's distance to a wide road counts only beyond this many times the road
    /// class's extra lanes (`extraLanes(of:)`: motorway and trunk 3, primary 2, secondary 1, others 0), since a
    /// vehicle in an outer lane is metres off the OSM centre line. Default 1.6 (lanes of 3.2 m). On simulated
    /// drives (scripts/bench-matching) it raised Baltimore's way-id accuracy from 97.3 / 94.8 % to 98.3 / 95.4 %
    /// (1 s / 5 s) with centre-line truth and kept Helsinki and Liechtenstein within 0.3 points, with lanes
    /// (traffic-like drives) too. 0 disables.
    public var halfLaneWidthMeters: Double = 1.6
    /// At most this many roads, the nearest (a two-way road counts once; both directions become candidates).
    /// Default 8 (was 6): a city centre that OSM splits into ways of a few metres at every crossing, with cross
    /// streets every few metres, puts 15–20 roads in the candidate radius (31.5 m at σ_z = 7 m), and a fix 10–20 m
    /// off the road driven (σ_z 8 m per axis) often had six cross streets and stretches nearer than that road, so
    /// that it had no candidate on it. SUMO drives, final answers at 1 s / 5 s fixes (BENCHMARKS.md "Map
    /// matching", session 8): Helsinki 94.15 / 88.74 → 94.30 / 89.82 % on the true way, error p95 5.31 / 9.42 →
    /// 4.98 / 8.78 m; Liechtenstein and Kouvola unchanged; Baltimore 99.25 / 98.92 → 99.13 / 98.68 % (mostly one
    /// trace that starts standing at a junction, now matched onto the cross way). 10 gained a little more on
    /// Helsinki (94.46 / 89.89 %) for about a quarter more instructions per fix there, 8 costs about a seventh.
    public var maximumCandidateRoads: Int = 8
    /// Log-likelihood cost of a candidate on a road closed to the matched motor mode by its tags although a car
    /// could drive it (motor_vehicle=no, access=no or private, a pedestrian street: see
    /// `RoadGeometryIndex.closedRoadModes`), for driving, taxi and two-wheeler: delivery vehicles drive pedestrian
    /// zones, residents drive private streets, and a traffic simulator may ignore the tags. The cost keeps the
    /// matcher on an open road that fits (for a fix right on a closed road, an open road d metres away still costs
    /// less while ½(d/σ_z)² < 3, i.e. within about 2.4 σ_z), yet a vehicle really on a closed road, with no open
    /// road near, is matched there instead of coasting or going unmatched. Default 3 (SUMO drives, final answers:
    /// Liechtenstein 97.4 / 97.1 → 99.6 / 99.3 % on the true way at 1 s / 5 s, its unmatched fixes 112 / 23 → 0;
    /// Helsinki and Baltimore unchanged; BENCHMARKS.md "Map matching", session 6). `.infinity` disables: closed
    /// roads are no candidates, as before.
    public var closedRoadPenalty: Double = 3
    /// In the road search between fixes a closed road's length counts this many times (see `closedRoadPenalty`):
    /// a path through a pedestrian zone is a worse explanation than the open streets around it unless those are
    /// more than this many times longer. Default 2. The same holds for the road beyond a barrier that blocks the
    /// mode (`barrier=bollard`, `block`, …, which the router never passes): the road up to its next node counts
    /// this many times, so a vehicle seen driving through is matched through, not onto the streets around. With
    /// closed roads disabled (`closedRoadPenalty` infinite) such barriers end the search, as the router does.
    public var closedRoadLengthFactor: Double = 2
    /// At most this many closed roads are candidates, besides the `maximumCandidateRoads` open ones (closed roads
    /// never take an open road's place among the candidates). Default 2. 0 disables, like an infinite
    /// `closedRoadPenalty`.
    public var maximumClosedCandidateRoads: Int = 2

    // MARK: Heading

    /// Weight κ of the course term: a candidate whose direction differs from the fix's course by θ loses
    /// κ·(1 − cos θ) in log-likelihood (so 2κ when opposite). Default 1.5. 0 disables the course.
    public var courseWeight: Double = 1.5
    /// The course is trusted only when the fix's speed is at least this (or unknown), m/s. Default 2.
    public var minimumSpeedForCourseMetersPerSecond: Double = 2
    /// A fix that reports a course and a speed of at least this, as did the fix before it with a course within 45°, has
    /// no candidate running against its course (more than 135° off it, e.g. the other direction of a two-way road)
    /// while some candidate runs its way, m/s. At a receiver's course error of a few degrees such a state costs about
    /// 2κ in log-likelihood (see `courseWeight`) and does not win, yet every state costs transitions and road searches:
    /// with `maximumCandidateRoads` 8 this took the instructions per fix on Helsinki from 162 k back to 149 k (6
    /// candidate roads without it: 142 k); SUMO: one more final fix right on Liechtenstein at 1 s, the rest within 0.1
    /// point (BENCHMARKS.md "Map matching", session 8). A single course glitch keeps every candidate; a vehicle reversing
    /// faster than this is coasted through like an outlier. Default 5. `.infinity` disables.
    public var oppositeDirectionSpeedMetersPerSecond: Double = 5
    /// A standing vehicle (see `stationarySpeedMetersPerSecond`) is taken to point along the last trusted course
    /// for up to this long after it, seconds (a stop at a red light lasts up to two minutes). Default 180.
    /// 0 disables.
    public var standingCourseHoldSeconds: Double = 180
    /// Weight κ of the course term for fixes without speed and course, whose direction is taken from the line
    /// through the recent positions (see `speedInferenceFixes`) when they show the vehicle moving at least
    /// `minimumSpeedForCourseMetersPerSecond` (after the margin of `speedInferenceMarginSigmas`), and held by a
    /// standing vehicle like a receiver's course. Default 1.5 (on simulated Helsinki drives without speed and
    /// course: 0.75 and 2.5 did worse). 0 disables.
    public var inferredCourseWeight: Double = 1.5
    /// A fix that reports a speed of at least `minimumSpeedForCourseMetersPerSecond` but no course (many trackers,
    /// OwnTracks without `cog`) takes its direction from the same line through the recent positions as a fix
    /// without speed and course, at `inferredCourseWeight`, when that line also shows the vehicle moving; a
    /// standing vehicle holds it (`standingCourseHoldSeconds`). Without it such fixes had no direction at all and
    /// did worse than positions alone. Default true.
    public var inferredCourseForReportedSpeeds: Bool = true
    /// … unless the direction from the previous fix to this one differs from the line's by more than this: the
    /// vehicle turned within the line's window (12 s, three fixes at 5 s), so the line points the way it drove
    /// several seconds ago (SUMO Liechtenstein seed 2, probe1: a drive ending just after a hairpin, line 324°,
    /// road 114°; the last fix was matched to the hairpin's other leg and the final arrival was lost), degrees.
    /// Default 45 (only checked where `inferredCourseTurnMinimumSigmas` allows: in effect at sparse fixes).
    /// 0 disables. Fixes without a speed keep the line's direction: the same check on them moved the SUMO
    /// figures by at most one event either way (BENCHMARKS.md "Session 15").
    public var inferredCourseTurnDegrees: Double = 45
    /// … checked only when the reported speed drove at least this many σ_z over the interval, so that the
    /// direction between the two fixes is not mostly their noise (at 1 s fixes it rarely is). Default 4.
    public var inferredCourseTurnMinimumSigmas: Double = 4

    // MARK: Transition

    /// β, the scale of the exponential on |route distance − great-circle distance|, metres, for fixes 1 s apart:
    /// at least this, and at least `betaPerSigma` σ_z. Default 4.
    public var betaMeters: Double = 4
    /// β is at least this many σ_z of the newer observation: the great-circle distance between two fixes carries
    /// the position error of both (its component along the line has a mean absolute value of about 1.13 σ_z),
    /// so a β of a few metres at σ_z = 7 m punished the true road for GPS noise. Default 2 (on simulated drives
    /// with σ = 8 m, 2 σ_z = 14 m did better than 4 m by 1.5 points of way-id accuracy at 1 s fixes).
    public var betaPerSigma: Double = 2
    /// β grows by this per second between fixes beyond the first, metres per second (sparse fixes drift more from
    /// straight lines). Default 1.
    public var betaGrowthMetersPerSecond: Double = 1
    /// Scale of the exponential on |route distance − distance implied by the fixes' speeds|, metres, applied when
    /// both fixes carry a speed. Default 10 (the route distance carries the position noise of both ends).
    public var speedBetaMeters: Double = 10
    /// … growing by this per second between the fixes, metres per second. Default 1.5.
    public var speedBetaGrowthMetersPerSecond: Double = 1.5
    /// For fixes without a speed: scale of the exponential on |route distance − derived speed · Δt|, metres, where
    /// the derived speed is the along-road smoother's speed at the previous fix (the slope of its fit through the
    /// recent positions on the best path). It stands in for the receiver's speed: a route between two fixes much
    /// longer or shorter than the vehicle's recent pace (a detour over a cross street, a hop to a parallel road)
    /// is unlikely. Default 5. `.infinity` disables.
    public var derivedSpeedBetaMeters: Double = 5
    /// … growing by this per second between the fixes (the vehicle accelerates and brakes; the derived speed is
    /// less sure than a receiver’s), metres per second. Default 2.
    public var derivedSpeedBetaGrowthMetersPerSecond: Double = 2
    /// … and a route distance *shorter* than the derived speed · Δt costs nothing for its first ½ · this · Δt²
    /// metres, m/s². The derived speed is the slope of a fit through positions that are seconds old, so it lags a
    /// vehicle braking between sparse fixes. Without the allowance a vehicle that braked from 25 m/s to a stop
    /// within one 5 s interval found every road position near its standing fixes a hundred metres "too short";
    /// the matcher coasted through them as outliers at the old speed (up to `maximumCoastedFixes`). Its provisional
    /// answers then ran 100–300 m ahead of the vehicle: SUMO Baltimore drives without speed at 5 s had false
    /// reroutes and missed arrivals from it. Default 3 (a firm stop; 2, 4 and 6 measured alike,
    /// BENCHMARKS.md "Session 16"); at 1 s fixes the allowance is 1.5 m. 0 turns it off.
    public var derivedSpeedBrakingMetersPerSecondSquared: Double = 3
    /// … and a route distance *longer* than the derived speed · Δt costs nothing for its first ½ · this · Δt² metres,
    /// m/s² (over intervals of `derivedSpeedAccelerationMinimumSeconds` or more, and not for a fix of a standing run):
    /// the derived speed lags a vehicle pulling away as it lags one braking. Without the allowance a vehicle that
    /// pulled away from a stop between 5 s fixes was "too far" from its derived speed of 0 at every road position near
    /// its fixes; the matcher coasted through them, its coasting path kept the derived speed near 0, and the trap held:
    /// its provisional answers stayed at the stop for up to a minute while the vehicle drove off (SUMO Baltimore seed 13
    /// probe21 at 5 s without speed: 55 s and 1.3 km, both arrivals lost, five reroutes;
    /// `PullingAwayAtSparseFixesTests`: answers more than 50 m off 60 of 120 → 1). Default 3 (a firm start; SUMO's
    /// passenger cars 2.6), as the braking allowance. 0 turns it off. BENCHMARKS.md "Session 23".
    public var derivedSpeedAccelerationMetersPerSecondSquared: Double = 3
    /// … over intervals of at least this many seconds (from the previous state's fix: after coasted fixes, its anchor's).
    /// At 1 s fixes the derived speed follows the vehicle, and the 1.5 m the allowance would add there cost final
    /// answers (own Helsinki drives without speed: 1 465 → 1 494 of 14 011 fixes on a wrong way). Default 2.
    public var derivedSpeedAccelerationMinimumSeconds: Double = 2
    /// No vehicle moves faster than this along the road between two fixes, m/s. Default 60 (216 km/h).
    public var maximumSpeedMetersPerSecond: Double = 60
    /// The road search between two fixes stops at this multiple of their great-circle distance plus the two search
    /// radii and `routeSearchSlackMeters` (a right-angle turn makes the road 1.41 times the straight line; a path
    /// 50 m longer than the line already costs 50/β in log-likelihood). Default 1.5.
    public var routeSearchDistanceFactor: Double = 1.5
    /// Added to the road search bound, metres. Default 40.
    public var routeSearchSlackMeters: Double = 40
    /// On one edge (or back over the junction just passed), moving backwards by up to this is GPS jitter, not a
    /// loop round the block, metres. Consecutive snapped positions differ by the along-road error of two fixes
    /// (σ√2 each). Default 20.
    public var backwardJitterToleranceMeters: Double = 20
    /// Backward jitter adds up along a path: a state may lie at most this far behind the farthest position its path
    /// reached on its edge (or across the junction behind), metres; forward moves pay the drift off. Without it a
    /// path could creep backwards by `backwardJitterToleranceMeters` at every fix. Found on SUMO Kouvola seed 14
    /// probe9 at 1 s without speed: the vehicle turned round at the end of a dual carriageway and drove back on the
    /// other one, 9 m away; the line through its fixes showed almost no speed across the turn, and the matcher
    /// walked back 37 m against the one-way outbound carriageway over four fixes, its answers never reached the
    /// waypoint and the arrival was lost. Default 30 (SUMO replays without speed, 36 runs: arrivals once 2 818 →
    /// 2 822 of 2 864, false reroutes unchanged; 25 m: 2 821, one more false reroute; with speed identical;
    /// BENCHMARKS.md "Session 24"). `.infinity` disables.
    public var maximumBackwardDriftMeters: Double = 30
    /// A fix with a speed of at least this but no course: its speed term compares the signed distance along the road
    /// (negative backwards) with the distance the speed implies, so a state moving backwards at every fix (the twin
    /// edge of a two-way road) no longer scores as well as one moving forwards, m/s. Slower fixes, and fixes with a
    /// course (the heading term decides the direction), keep counting backward jitter by its length: receivers drop
    /// the course below about 1 m/s, where noise-sized backward moves are normal and signed scoring cost stopped
    /// fixes on SUMO drives (Baltimore 5 s 98.7 → 98.1 % within 10 m). Default 2. `.infinity` disables.
    public var signedMoveMinimumSpeedMetersPerSecond: Double = 2
    /// While both fixes report a speed below `stationarySpeedMetersPerSecond`, moving forward onto another edge costs
    /// this much log-likelihood. Default 0: averaging the standing fixes (below) and the standing-past-junction prior
    /// did better on simulated drives than locking the first decision in (which a penalty does).
    public var stationaryEdgeChangePenalty: Double = 0
    /// Speed below which a fix counts as stationary, m/s. Default 0.5. Consecutive stationary fixes are
    /// repeated measurements of one point: the matcher observes their running mean, with σ_z / √n.
    public var stationarySpeedMetersPerSecond: Double = 0.5
    /// For fixes without a speed, a speed is inferred from a straight-line fit through at most this many recent
    /// positions, only to detect a standing vehicle. Default 12. Below 3 disables the inference.
    public var speedInferenceFixes: Int = 12
    /// … taken within this many seconds before the newest fix (a stop should be seen while it lasts). Default 12.
    public var speedInferenceSeconds: Double = 12
    /// The inferred speed is lowered by this many of its standard errors before it is compared with
    /// `stationarySpeedMetersPerSecond`: noisy positions alone must show movement. Default 1.5.
    public var speedInferenceMarginSigmas: Double = 1.5
    /// Before the inferred speed is taken, the fix lying farthest off the line (never the newest) is left out of it
    /// while it lies more than this many σ_z off (2-D distance), σ. With 2 % outliers of 50–150 m, one of the 12
    /// fixes of the line is an outlier a fifth of the time, and its tilt of the line (up to 4 m/s) ended a standing
    /// run for as long as it stayed in the window: of the SUMO probes' standing 1 s fixes with speed and course
    /// removed, the inference found 69 % (Helsinki) and 73 % (Baltimore) standing, with this 80 % and 83 %
    /// (moving fixes taken for standing 5.3 → 6.0 %, 6.5 → 6.9 %). Default 4 (final answers on the true way,
    /// Helsinki 1 s 89.58 → 89.90 %, Baltimore 97.84 → 98.15 %; BENCHMARKS.md "Session 10"). At 5 s fixes the
    /// 12 s window holds three fixes, and none is left out. 0 disables.
    public var speedInferenceOutlierSigmas: Double = 4
    /// … at most this many fixes, keeping at least three. Default 2 (1: Baltimore 1 s unchanged from 0, the
    /// window's second outlier still ends the run).
    public var speedInferenceOutlierDrops: Int = 2
    /// Floor of σ_z for the mean of stationary fixes, metres (map geometry is not better than this). Default 1.5.
    public var minimumStationarySigmaMeters: Double = 1.5
    /// A standing vehicle (see `stationarySpeedMetersPerSecond`) within this distance past a junction of three
    /// or more motor roads or a traffic-signal node (`RoadGeometryIndex.isWaitingPoint`) pays
    /// `standingPastJunctionPenalty`: cars wait at stop lines before
    /// junctions, so fixes averaged at a stop line should not pull the position onto the cross street. Metres.
    /// Default 6.
    public var junctionClearanceMeters: Double = 6
    /// Log-likelihood cost of standing just past a junction or signal node. Default 0 (disabled): on simulated
    /// Helsinki drives (scripts/bench-matching) any penalty lost way-id accuracy (1.5 cost 1.8 points at 1 s),
    /// because OSM splits approach roads into 2–13 m edges between crossing, signal and junction nodes, so
    /// that a car waiting at the stop line often is within a few metres past one of them.
    public var standingPastJunctionPenalty: Double = 0
    /// A standing vehicle within this distance before a junction or signal node (its stop line) earns
    /// `standingBeforeJunctionBonus`, metres. Default 8.
    public var stopLineZoneMeters: Double = 8
    /// Log-likelihood bonus of standing within `stopLineZoneMeters` before a junction or signal node: the first
    /// car of a queue waits at the stop line, so averaged fixes a metre or two past the node belong before it.
    /// Default 1.5. 0 disables.
    public var standingBeforeJunctionBonus: Double = 1.5
    /// A standing vehicle whose smoothed position lies less than this far past the start of its edge is reported
    /// at the end of the edge it came by, i.e. at the node, on the approach road, metres. A traffic simulator
    /// (SUMO) stops its vehicles at the end of their lane, before the junction area, at every node a queue or a
    /// junction holds them at, and OSM splits approach roads into 2–15 m ways at crossings and signals: a stop
    /// averaged a metre or two past a node was on the way before it. Only the reported position moves (by less
    /// than this), not the decoded path. Default 2.5 (SUMO drives, final answers at 1 s / 5 s fixes: Helsinki
    /// 93.0 / 87.7 → 94.0 / 88.7 % on the true way, Baltimore 98.7 / 98.6 → 99.2 / 98.8 %, Liechtenstein
    /// unchanged; 4 m gained less on Helsinki and cost more on our own simulator's traffic-like drives, whose
    /// queues stand anywhere; BENCHMARKS.md "Map matching", session 5). 0 disables.
    public var standingApproachMeters: Double = 2.5
    /// `standingApproachMeters` moves a standing vehicle back only over a node vehicles wait at: a traffic signal
    /// (`trafficSignalsAtTarget` on the edge it came by) or a junction, where two or more other roads meet (of any mode:
    /// a footway's crossing counts, SUMO stops its vehicles there too). At a node that only splits a road
    /// into two OSM ways (a bridge, a change of tags) nothing holds a vehicle, and one standing a metre past it stands
    /// there. Default true (MatchingBenchmark Helsinki seed 1, 20 drives, fixes on a wrong way, 1 s / 5 s: 600 → 510 /
    /// 185 → 166, traffic-like 945 → 827 / 302 → 272, positions only 1 048 → 1 025 / 362 → 340; SUMO final answers
    /// Helsinki 391 → 373 / 137 → 138 wrong; Liechtenstein, Baltimore and Kouvola unchanged; BENCHMARKS.md
    /// "Session 24"). False: every node, as before.
    public var standingApproachAtWaitingNodesOnly: Bool = true
    /// Log-likelihood cost of turning round in the middle of a two-way road. Default 6.
    public var uTurnPenalty: Double = 6

    // MARK: Outliers and gaps

    /// A fix whose nearest consistent road is farther than this many σ_z is treated as an outlier: the vehicle
    /// "coasts" through it from the previous road position. Default 3.5.
    public var outlierSigmas: Double = 3.5
    /// At most this many consecutive fixes may be coasted through before the matcher restarts. Default 5.
    public var maximumCoastedFixes: Int = 5
    /// … and for at most this long, seconds. Default 30.
    public var maximumCoastSeconds: Double = 30
    /// Coasting continues from at most this many of the previous step's road positions. Default 3.
    public var coastAnchors: Int = 3
    /// Log-likelihood cost of a restart link: every road candidate may also be reached from the best previous
    /// state without a road path, at this cost. It lets the matcher leave a wrong road (or follow a real jump)
    /// within a fix or two instead of coasting. Default 25. `.infinity` disables restart links.
    public var restartPenalty: Double = 25
    /// Two fixes further apart in time than this are not joined by a transition (a long garage stay): the matcher
    /// restarts, seconds. Default 600.
    public var maximumGapSeconds: Double = 600

    // MARK: Route awareness

    /// Log-likelihood bonus of candidates on the active route. Default 1.4 (the route is preferred by about
    /// a factor of 4, which a road several metres closer still overrides).
    public var routeBonus: Double = 1.4

    // MARK: Decoding and smoothing

    /// Fixed lag of the online Viterbi decoder and along-road smoother, seconds: a fix's answer becomes final once a
    /// fix at least this much newer arrived (and at least `lagFixes` fixes later), so that its decision and its
    /// smoothed position use that much of what followed. Default 20: 20 fixes at 1 s (at 5 s `lagFixes` decides: 8
    /// fixes, 40 s). The provisional answer for the newest fix (`MatchUpdate.provisional`, which the navigator uses) is
    /// reported at once, so a longer lag delays only the final answers. On simulated drives (BENCHMARKS.md, "Map
    /// matching": accuracy against the lag) way-id accuracy at 1 s fixes rose from 90.8 % at 4 fixes to 92.8 % at 20
    /// and 92.9 % at 30 on Helsinki (Baltimore 95.5 / 97.3 / 97.5 %), and Helsinki's error p95 was lowest at 20; at 5 s
    /// fixes, 3 to 8 fixes were within 0.5 points of each other then (session 3's matcher), and 8 fixes gain 0.7 on
    /// today's (see `lagFixes`). 0 leaves only `lagFixes`.
    public var lagSeconds: Double = 20
    /// The lag is at least this many fixes: fix n is final at the earliest when fix n + lagFixes arrived. Default 8:
    /// at sparse fixes the along-road smoother needs more of them than `lagSeconds` holds (4 at 5 s). Simulated
    /// Helsinki drives at 5 s (`MatchingBenchmark simulate --interval 5`, six samples of 20-30 drives), final answers
    /// on the true way with 4 / 6 / 8 fixes: mean 90.3 / 90.8 / 91.0 % (the 20-drive seed-1 sample of BENCHMARKS.md
    /// 89.0 → 90.3 → 90.5 %; one of the six lost 0.3 points); 1 s and 2 s fixes are decided by `lagSeconds` as
    /// before. The final answer at 5 s then comes 40 s after its fix instead of 20 s; the provisional answer, which
    /// the navigator uses, is unchanged (`provisionalLookBackFixes`).
    public var lagFixes: Int = 8
    /// The provisional answer for the newest fix looks back as it would with a lag of this many fixes (see
    /// `MapMatcher`): `smoothingHistorySeconds` before the fix this many back. Default 4 (the lag it was tuned with).
    public var provisionalLookBackFixes: Int = 4
    /// … and at most this many fixes whatever `lagSeconds` says (10 Hz fixes would otherwise hold 200 undecided
    /// steps). Default 30.
    public var maximumLagFixes: Int = 30
    /// States whose log-score is this far below the best of their step are not extended. Default 20.
    public var pruneMargin: Double = 20
    /// The provisional answer's smoothed position may leave the edge of the newest fix's state: back onto the edge
    /// the best path came by, forward along the active route or onto the road's only continuation. Without this
    /// it stops at the node whenever the noisy fix fell on the other side of it, on the wrong OSM way. Default
    /// true (SUMO drives, navigator's answers at 1 s fixes: Helsinki 84.2 → 89.9 % on the true way, error p95
    /// 9.7 → 7.9 m; Liechtenstein 96.3 → 96.9 %, Baltimore 97.8 → 97.9 %; BENCHMARKS.md "Map matching",
    /// session 5).
    public var provisionalWalksAcrossNodes: Bool = true
    /// Earlier final positions used by the along-road smoother, fixes. Default 6.
    public var smoothingHistoryFixes: Int = 6
    /// … or as many as were taken within this many seconds, when that is more (frequent fixes), seconds.
    /// Default 12. 0 disables.
    public var smoothingHistorySeconds: Double = 12
    /// While the vehicle stands, the smoother also uses up to this many earlier fixes of the same stop (they all
    /// measure the same point), fixes. Default 60.
    public var maximumStandingHistoryFixes: Int = 60
    /// Random-walk growth of the error of the fixes' integrated speeds, m/s per √s: a neighbour Δt seconds away
    /// is trusted with an extra variance of this² · |Δt|. Default 0.6.
    public var speedIntegrationSigmaMetersPerSecond: Double = 0.6
    /// Relative error of a distance obtained by integrating the fixes' speeds (receiver speed against map
    /// length, corners cut, lane changes): a neighbour D metres of driving away gets an extra variance of
    /// (this · D)². Default 0.05.
    public var speedIntegrationScaleError: Double = 0.05
    /// Step of a simulator that moves each vehicle by its new speed at every step (SUMO's default Euler update),
    /// seconds: over n such steps the vehicle drives the trapezoid of the two fixes' speeds plus half a step of
    /// their difference, as if the speeds lagged the positions by half a step; braking from 20 m/s to a stop, the
    /// trapezoid alone overstates the distance by 10 m. 0 is right for receivers' instantaneous Doppler speeds, 1
    /// for such a simulator at 1 s steps. Default 0.5, a hedge that halves the error for either: SUMO drives,
    /// final answers at 1 s / 5 s, error p95 Helsinki 5.45 / 9.51 → 5.30 / 9.41 m, Liechtenstein 5.76 / 9.91 →
    /// 5.33 / 9.70 m, Baltimore 6.43 / 10.28 → 5.37 / 9.91 m, way ids within −0.4 … +0.1 points (1: p95 5.15–5.32
    /// and 9.42–9.75 m); our own simulator, whose speeds are instantaneous, way ids within −0.3 points, p95 within
    /// +0.3 m (1: Helsinki −0.8 points, Baltimore 1 s p95 3.3 → 4.4 m). BENCHMARKS.md "Map matching", session 6.
    public var speedStepSeconds: Double = 0.5
    /// Over an interval from a fix at speed to a standing fix (speed below `stationarySpeedMetersPerSecond`), the final
    /// answers' along-road smoother's uncertainty of where in the interval the speed changed (σ 0.29·|Δv|·Δt, a change
    /// at a uniformly random moment) is multiplied by this, unitless. Vehicles brake to a stop at 2–4 m/s², so a stop
    /// seen at the end of a 5 s interval mostly happened early in it: on the SUMO drives the trapezoid of the two
    /// speeds overstates such an interval's distance by a median 7 m (Helsinki), 11 m (Liechtenstein, Baltimore),
    /// against 2 m for pulling away, and the standing fixes then pulled the braking ones back and vice versa.
    /// Default 2 (SUMO drives, final answers at 5 s fixes: Helsinki 89.8 → 90.4 % on the true way, error p95
    /// 8.78 → 8.73 m, Baltimore p95 9.88 → 9.75 m, Liechtenstein and Kouvola unchanged; at 1 s fixes the term is
    /// small: the same shares; 3 gained no more; BENCHMARKS.md "Session 9"). The provisional answer at the
    /// newest fix, smoothed with earlier fixes only, keeps 1: the fixes before a stop are all it has (with 2:
    /// Helsinki 5 s provisional 85.5 → 85.3 % on the true way, Liechtenstein stopped fixes within 10 m 89.6 →
    /// 87.0 %). Our own simulator, whose stops are gentler (a median 2.4 m over such intervals, 3 m pulling
    /// away), loses at 5 s: traffic-like drives 363 → 371 wrong of 3260, p95 8.17 → 8.30 m. 1 disables.
    public var stoppingIntervalUncertaintyFactor: Double = 2
    /// The smoother first estimates from the neighbours within `smoothingNearFixes` fixes of the target, then
    /// averages every neighbour within this many standard deviations of that (a stretch matched on the wrong road
    /// or a detour on the decided path offsets all older positions). Default 3. 0 disables.
    public var smoothingRejectionSigmas: Double = 3
    /// See `smoothingRejectionSigmas`, fixes. Default 5.
    public var smoothingNearFixes: Int = 5
    /// Acceleration scale of the constant-velocity model used when fixes carry no speed, m/s². Default 1.
    public var accelerationSigmaMetersPerSecondSquared: Double = 1
    /// Without speeds in the fixes, a final position is smoothed with a weighted constant-acceleration fit
    /// s = a + b·τ + c·τ² through its neighbours on the decided path (weights 1 / (σ_z² + (j·|τ|³/6)²), j this
    /// jerk scale), which follows braking to a stop and pulling away better than the constant-velocity fit
    /// (`accelerationSigmaMetersPerSecondSquared`), still used for the provisional answer at the newest fix,
    /// where a one-sided quadratic is noisier. m/s³. Default 0.15 (simulated drives without speed and course,
    /// error p95 at 1 s fixes: Helsinki 9.0 → 8.4 m, Baltimore 10.2 → 7.7 m; 0.5 and 1 did worse at 5 s).
    /// 0 disables.
    public var positionsOnlyJerkMetersPerSecondCubed: Double = 0.15
    /// Without speeds in the fixes, a final position taken standing (the positions' inferred speed, see
    /// `speedInferenceFixes`) is the average of its own stop's fixes (the standing ones next to it on the decided
    /// and pending path) instead of a point on the curve fitted through the window: the curve cannot bend from
    /// braking into standing still and on into pulling away, so it put standing vehicles ahead of or behind
    /// their stop. With speeds, the smoother integrates them and the stop's fixes average anyway. Default true
    /// (SUMO drives, speed and course removed, final answers, after `speedInferenceOutlierSigmas`: wrong-way
    /// fixes Helsinki 1 s 692 → 646, 5 s 240 → 232, Baltimore 1 s 113 → 128, 5 s 73 → 74; stopped fixes within
    /// 10 m at 5 s Helsinki 88.9 → 89.3 %, Liechtenstein 85.7 → 88.3 %, Baltimore 85.0 → 88.3 %; error p50 at 5 s
    /// 4.41 → 4.29, 4.99 → 4.96, 5.43 → 4.83 m; BENCHMARKS.md "Session 10"). Final answers only: the newest fix
    /// cannot tell a stop that just ended.
    public var positionsOnlyStandingRunSmoothing: Bool = true
    /// … except within this many seconds of the stop's last standing fix when moving fixes follow it: the
    /// inferred speed, a line through 12 s of positions, sees a vehicle pull away a few seconds late, so the last
    /// "standing" fixes may be moving. Seconds. Default 4 (measured on a variant that also smoothed the
    /// provisional answers so: without it Baltimore 1 s 129 → 142 wrong-way fixes, Helsinki 635 → 655; 2 s and
    /// 6 s within 7 fixes of 4 s).
    public var positionsOnlyStandingRunEndSeconds: Double = 4
    /// Without speeds in the fixes, a pending fix taken as moving just before fixes taken standing is standing after
    /// all when the standing test looking ahead (the line through it and the fixes of the next
    /// `speedInferenceSeconds`, with the same margin and outlier rule) cannot show it moving: the test looking back
    /// needs the stop to fill its window before it sees it (at 5 s fixes three fixes, 10 s), so each stop's first
    /// fixes were taken as moving, while the final answers, decided `lagSeconds` later, can look at the fixes after
    /// them. Marks only extend a stop the test looking back found (the fix after the marked one is standing), and
    /// count for the smoother and the final answer (`positionsOnlyStandingRunSmoothing`: the stop's average); the
    /// road states and observations stay as they were built. Default true (SUMO drives, speed and course removed,
    /// final answers at 5 s fixes: wrong-way fixes Helsinki 232 → 226, Baltimore 74 → 63, Liechtenstein 14 → 14;
    /// stopped fixes within 10 m Helsinki 89.3 → 90.6 %, Baltimore 88.3 → 90.4 %; error p50 4.29 → 4.25 m,
    /// 4.83 → 4.58 m; p95 Helsinki 13.87 → 14.04 m; 1 s unchanged, see `positionsOnlyStandingLookAheadMaximumFixes`;
    /// BENCHMARKS.md "Session 12"). Building the marked steps again as standing ones (observing the stop's mean,
    /// holding the course) did better on Helsinki and Baltimore but cost 8–11 % more instructions per fix. false
    /// disables.
    public var positionsOnlyStandingLookAhead: Bool = true
    /// … only while the look-ahead window holds at most this many fixes (sparse fixes: the test looking back misses
    /// a large share of each stop, and the look-ahead line, short, judges the fix itself); with more, the line
    /// through `speedInferenceSeconds` of frequent fixes is flat while a braking vehicle's last seconds are in it,
    /// and it marked those fixes standing. Default 4 (fixes 3 s or more apart; at 5 s fixes the window holds 3, at
    /// 1 s 12). Without the limit (measured with a variant that built marked steps again), SUMO drives at 1 s:
    /// Helsinki 646 → 692 wrong-way fixes, error p95 7.93 → 8.25 m, stopped fixes within 10 m 99.0 → 97.7 %;
    /// Baltimore 128 → 124.
    public var positionsOnlyStandingLookAheadMaximumFixes: Int = 4
    /// Radius of the arc a vehicle drives when it turns at a node, metres: the along-road smoother compares the
    /// fixes' positions with the distance their speeds say the vehicle drove, which is shorter than the path through
    /// the node by r·(2·tan(θ/2) − θ) at a turn of θ (`AlongRoadSmoother.removeCornerCuts`); without it the fixes
    /// before a turn hold those after it back (SUMO drives, final answers 0–20 m past a turn of more than 45°:
    /// median along-road error −1.3 m at Helsinki, +1.0 m ahead 0–20 m before one at Baltimore). Default 4 (SUMO
    /// drives, final answers at 1 s / 5 s: Helsinki 94.0 / 88.7 → 94.25 / 89.1 % on the true way, error p95 5.7 /
    /// 9.8 → 5.5 / 9.5 m; Liechtenstein and Baltimore within ±0.2 points and 0.1 m; 8 m and 12 m gained as much on
    /// Helsinki at 1 s but raised the 5 s p95 of Liechtenstein and Baltimore; our own simulator, whose vehicles
    /// turn through the node, within ±0.2 points either way; BENCHMARKS.md "Map matching", session 6). 0 disables.
    public var cornerCutRadiusMeters: Double = 4
    /// With speeds in the fixes, the along-road smoother trusts an answer's neighbours beyond a sharp turn of the
    /// decided path (more than `sharpTurnDegrees` from the end of one edge to the start of the next) less: each such
    /// turn between a neighbour and the fix adds this much standard deviation to the neighbour's moved position,
    /// metres. The path's length through a junction is the least certain part of the odometer: where the vehicle
    /// drove its arc, how wide the junction is drawn, and a connector or turn lane the decided path took or cut; the
    /// speeds integrate the driven distance, so an error there offsets every neighbour beyond the turn alike.
    /// Final and provisional answers alike. Default 12 (our simulator, six samples of 20 Helsinki drives, final
    /// answers on a wrong way at 1 s 2 720 → 2 484, at 5 s 887 → 894; SUMO drives, final answers on a wrong way at
    /// 1 s, Helsinki seeds 1 / 9 / 12 / 14: 374 / 800 / 528 / 382 → 359 / 797 / 481 / 328, at 5 s all maps 806 → 808;
    /// error p95 lower on all but one; 8 gained less at 1 s, 16 lost at 5 s; BENCHMARKS.md "Session 25"). 0 disables.
    public var sharpTurnPathSigmaMeters: Double = 12
    /// See `sharpTurnPathSigmaMeters`, degrees. Default 75 (a right-angle turn at a junction, not a bend drawn as
    /// several edges).
    public var sharpTurnDegrees: Double = 75
    /// Smoothing never moves a position along the road by more than this many σ_z. Default 3.
    public var maximumSmoothingShiftSigmas: Double = 3

    public init() {}

    /// The defaults with the shortest lag (`lagFixes` fixes, `lagSeconds` 0), for a caller that uses only the
    /// provisional answers, as the navigator does: its undecided window, and the memory that holds per vehicle
    /// (transition matrices of every undecided fix, a few KiB each), stay at `lagFixes` fixes instead of 20 s of
    /// them. The provisional answers do not depend on the lag otherwise (see `lagSeconds`); the standing look-ahead
    /// (`positionsOnlyStandingLookAhead`), which would change them, is off.
    public static var provisionalOnly: MapMatchingConfiguration {
        var c = MapMatchingConfiguration()
        c.lagSeconds = 0
        c.lagFixes = c.provisionalLookBackFixes
        // Not measured better for the provisional answers: with a variant that rebuilt the marked steps, the
        // navigator's answers on the SUMO drives without speed and course at 5 s fixes were on the true way less
        // often on Baltimore (91.8 → 90.9 %) and little more on Helsinki (78.1 → 78.4 %), Liechtenstein (96.3 →
        // 96.4 %), arrivals, reroutes and ETAs unchanged (BENCHMARKS.md "Session 12").
        c.positionsOnlyStandingLookAhead = false
        return c
    }

    /// Lanes beyond the first on each side of the centre line, by road class, for `halfLaneWidthMeters`.
    public static func extraLanes(of highwayClass: HighwayClass) -> Double {
        switch highwayClass {
        case .motorway, .trunk: 3
        case .primary: 2
        case .secondary: 1
        default: 0
        }
    }

    /// How far off the centre line of a road of this class a vehicle may drive in its lanes, metres.
    @inlinable public func laneToleranceMeters(for highwayClass: HighwayClass) -> Double {
        halfLaneWidthMeters * Self.extraLanes(of: highwayClass)
    }

    /// σ_z for a fix, metres, from its reported accuracy alone.
    @inlinable public func sigmaMeters(for fix: LocationFix) -> Double {
        let raw = fix.validAccuracy.map { $0 / accuracyToSigmaRatio } ?? defaultSigmaMeters
        return min(maximumSigmaMeters, max(minimumSigmaMeters, raw))
    }

    /// σ_z for a fix, metres, when the matcher's answers show noise of `residualSigma` metres per axis (nil: no
    /// estimate yet, `defaultSigmaMeters` stands in): a reported accuracy is trusted only within
    /// `residualSigmaAgreementFactor` of that; without one, `defaultSigmaMeters`.
    /// `typicalAccuracy`: the accuracy this receiver usually reports, metres (`accuracyRiseWidensBand`), nil when not
    /// known yet.
    @inlinable public func sigmaMeters(for fix: LocationFix, residualSigma: Double?, typicalAccuracy: Double? = nil)
        -> Double
    {
        guard let accuracy = fix.validAccuracy else {
            return min(maximumSigmaMeters, max(minimumSigmaMeters, defaultSigmaMeters))
        }
        var raw = accuracy / accuracyToSigmaRatio
        let factor = max(1, residualSigmaAgreementFactor)
        if factor.isFinite {
            let centre = residualSigma ?? defaultSigmaMeters
            var upper = centre * factor
            if accuracyRiseWidensBand, let typical = typicalAccuracy, typical > 0, accuracy > typical {
                upper *= accuracy / typical
            }
            raw = min(upper, max(centre / factor, raw))
        }
        return min(maximumSigmaMeters, max(minimumSigmaMeters, raw))
    }
}
