
/// Every threshold of the navigator, with its default and why.
public struct NavigatorConfiguration: Sendable, Hashable {
    /// Arrival when the progress estimate is within this of the end of the leg (along the road). Default 15 m:
    /// on simulated σ = 8 m drives the estimate (fed by the matcher's provisional positions) was up to 12 m ahead
    /// of the vehicle, so 20 m announced some arrivals 31 m early; 15 m keeps them within 30 m. A vehicle that
    /// stops is caught by the standing rule below in any case.
    public var arrivalRadiusMeters: Double = 15
    /// … or when the vehicle stands this close to the leg's end or the waypoint, in a straight line: vehicles stop
    /// short of the address (a parking space, the kerb before a junction) or on the other carriageway. Where it
    /// stands is the mean of its run of standing fixes (`arrivalStandingFixes` or more), and the mean must be
    /// within this radius less its own uncertainty (accuracy ÷ √n), so a stop at a light 30 m short does not count
    /// by noise. Default 25 m.
    public var arrivalStandingRadiusMeters: Double = 25
    /// Default 3 standing fixes.
    public var arrivalStandingFixes: Int = 3
    /// "Standing" for the arrival rule above: at most this speed. Default 2 m/s.
    public var arrivalStandingSpeedMetersPerSecond: Double = 2
    /// A standing fix this far from the mean of the run so far is an outlier and left out of it. Default 40 m.
    public var standingOutlierMeters: Double = 40
    /// … but not while the progress estimate has the vehicle standing on the leg (its standing position within
    /// `arrivalStandingRadiusMeters` of the leg at the estimate) more than twice that radius before the leg's end,
    /// once the estimate has followed it at least this far along the leg: a leg that loops round a block past its
    /// waypoint has the vehicle stand at a light within 25 m of the waypoint with hundreds of metres still to drive.
    /// Default 40 m (the leg's first metres, where a vehicle standing at the origin or a waypoint has not driven
    /// along it yet, decide nothing). 0 turns the check off.
    public var arrivalStandingProgressMeters: Double = 40
    /// … and the latest fix, both its matched position and the raw fix projected onto the leg, is within
    /// `arrivalRadiusMeters` + this of the end, so neither one outlier that drags the estimate forward nor a
    /// provisional match that runs ahead can announce an early arrival. Default 10 m.
    public var arrivalMeasurementSlackMeters: Double = 10
    /// How far short of the leg's end a measurement may lie and still agree with an arrival, metres:
    /// `arrivalRadiusMeters` + `arrivalMeasurementSlackMeters` (25 m by default).
    public var arrivalMeasurementLimitMeters: Double { arrivalRadiusMeters + arrivalMeasurementSlackMeters }
    /// The slack for a fix without its own speed that comes less than `sparseFixSeconds` after the one before,
    /// metres. Positions alone give a speed that lags a braking vehicle, so its estimate and matched position run
    /// ahead of it, and a fix 2σ short lets the vehicle seem there while it stops in a queue 30-40 m before the
    /// waypoint (SUMO Baltimore seed 10 probe27 at 1 s without speed: braking from 25 m/s, stopped 39 m short, announced
    /// on a fix 25 m short). With a fix every second, waiting for a nearer one costs a second. Default 5 m.
    public var arrivalMeasurementSlackWithoutSpeedMeters: Double = 5
    /// … and the raw fix lies within this of the leg (or twice its reported accuracy, if more): an outlier says
    /// nothing about arriving. Default 25 m.
    public var arrivalRawCorridorMeters: Double = 25
    /// … or, for a vehicle that drives through the waypoint without stopping (a drop-off on the move, the end of a
    /// recorded drive), when the progress estimate is within this of the end and the fix's matched position is
    /// within `arrivalRadiusMeters` of the leg's end or the waypoint in a straight line, and the raw fix within
    /// `arrivalRawCorridorMeters` (or twice its accuracy) of it: at speed the estimate trails a moving vehicle by
    /// 5–20 m and no fix may fall inside the radius. With sparse fixes the limit grows to half the distance driven
    /// since the previous fix, at most 1.5 times this. Default 20 m (30 m at 1 s fixes announced some arrivals 31 m
    /// early).
    public var arrivalPassingEstimateMeters: Double = 20
    /// … and at sparse fixes (`sparseFixSeconds` or more after the previous one) the estimate may trail by up to
    /// this when the vehicle moves (faster than `arrivalStandingSpeedMetersPerSecond`: standing, its fixes are
    /// averaged by the standing rule instead) and the fix agrees on its own: its matched position within
    /// `arrivalRadiusMeters` of the leg's end along the leg, the raw fix within `arrivalAgreeingFixRadiusMeters` of it
    /// along the leg, of the route and of the leg's end or the waypoint in a straight line. Between 5 s fixes
    /// the α-β filter takes only part of each residual, so a vehicle slowing into its destination is measured there
    /// while the estimate, pulled back by the fixes before, is still 20–30 m short (SUMO Kouvola probe2 at 5 s: last
    /// fix 9 m from the waypoint at 4 m/s, estimate 22 m short: the final arrival was never announced). Default 30 m
    /// (1.5 × `arrivalPassingEstimateMeters`; the 1 s fixes keep the tighter limit, where 30 m announced some
    /// arrivals early). 0 turns the widening off.
    public var arrivalAgreeingEstimateMeters: Double = 30
    /// … and the same for a fix without its own speed at any interval (positions only): its estimate moves at the
    /// β gain's speed, which trails a vehicle pulling away into its destination (held-out SUMO Helsinki seed 13
    /// probe17 at 1 s: the estimate 23 m short at the last fix, the matched position 10 m and the fix 12 m from the
    /// waypoint; the final arrival was lost; `AcceleratingIntoTheWaypointTests`). Default true.
    public var arrivalAgreeingEstimateWithoutSpeed = true
    /// For that widening, how far the raw fix may lie from the leg's end (along the leg, from the route, and from the
    /// leg's end or the waypoint in a straight line), metres; its matched position keeps `arrivalRadiusMeters`. At σ = 8
    /// m per axis a fix lies more than 15 m from the vehicle 17 % of the time, more than 20 m 4 %: a drive ending at its
    /// destination lost its arrival on such a last fix (held-out SUMO Kouvola seed 13 probe3 at 1 s without speed: the
    /// last fix 15.9 m off, its matched position within 15 m; `AgreeingFixRadiusTests`). Default 20 (SUMO replays
    /// without speed, 28 white runs, seeds 13-15, stops runs: arrivals once 3 458 → 3 460 of 3 504, early 29 → 29, false
    /// reroutes 27 → 27, 1 s arrivals announced more than 20 m from the waypoint 163 → 158; 25: the same totals, 156;
    /// with speed and course every trip identical).
    public var arrivalAgreeingFixRadiusMeters: Double = 20
    /// … or, with sparse fixes at speed, at the last fix before the waypoint when waiting for the next would be
    /// late: the matched position and the raw fix are both within this of the leg's end (along the leg) and of the
    /// leg's end or the waypoint (in a straight line), and at the fix's speed the next fix, one fix interval on,
    /// will land more than this past the waypoint. At 5 s fixes vehicles pass waypoints at 14–28 m/s, 70–140 m
    /// between fixes: the first fix past the waypoint may lie 100 m beyond it while the one before was 20–25 m short.
    /// Default 25 m (an arrival counts within 30 m). With "the next fix lands farther past than this one is short"
    /// instead, a vehicle at 8 m/s measured 19 m short (truly 34) was announced early on SUMO Helsinki at 5 s.
    /// 0 turns the rule off.
    public var arrivalNearestFixMeters: Double = 25
    /// A moving fix (its own speed `minimumSpeedForCourseMetersPerSecond` or more) whose own course differs by more
    /// than this from every direction of the leg's last `arrivalCourseSpanMeters` announces no arrival by the rules for
    /// a vehicle on the move (the radius, passing, nearest-fix and coasting rules above; standing is judged by the
    /// standing rule alone) while it lies more than `arrivalRadiusMeters` from the leg's end and the waypoint, or the
    /// fix before it ran across the leg too, on a course within this angle of this fix's: it drives across the leg,
    /// along a branch, not to its end. A vehicle that takes a fork just before its destination is still matched on the
    /// route for a fix or two, and its noisy fixes land by the waypoint (SUMO Liechtenstein, seed 9, probe19: the route
    /// ran on 272° for the last 45 m, the vehicle took a fork at 220°; its fixes' courses said 213–224° while the
    /// matcher held it on the route, and the arrival was announced 34 m away with 265 m of driving to go, at 1 s and at
    /// 5 s). One fix at the destination is there whatever its course: SUMO's vehicles end their drives turning in the
    /// junction (Liechtenstein seed 9 probe23 and Baltimore seed 9 probe0 at 5 s: last fix 8–9 m from the waypoint, its
    /// course 50–69° off the leg), and so is a vehicle turning round there, whose two last fixes run across the leg on
    /// courses far apart (SUMO Helsinki seed 12 probe24 at 5 s: 17.6 m short at 50°, then 9 m from the waypoint at
    /// 230°; never announced while any fix across the leg after another one counted). Default 45° (nine times the
    /// course noise of the simulated GPS; a Doppler course at 4 m/s or more is seldom 20° off). 0 or less turns the
    /// check off.
    public var arrivalCourseAcrossLegDegrees: Double = 45
    /// How far back from the leg's end its directions are compared with the fix's course for
    /// `arrivalCourseAcrossLegDegrees`, metres: the leg may turn in its last metres, and a vehicle still before the
    /// turn drives the direction before it. Default 40 m (the arrival radii and the measurement slack).
    public var arrivalCourseSpanMeters: Double = 40
    /// … or when the vehicle's matched positions at two fixes in a row, both on matched roads and without a
    /// position jump, lie on either side of the leg's end and the line between them passes within
    /// `arrivalRadiusMeters` of it, while the estimate before this fix could have reached the end: the vehicle
    /// drove through the waypoint between sparse fixes (5 s at 40 km/h is 55 m). Announced late rather than
    /// missed, which would send the vehicle back to it.
    public var arrivalByPassingThrough = true
    /// … and only when the line between those two positions runs within this of the leg's direction at its end,
    /// degrees: a vehicle crossing the waypoint's street on another road does not pass through it. Default 60.
    public var arrivalPassingThroughCourseDegrees: Double = 60
    /// … and not when this fix's matched position lies more than this from the fix, metres, while the fix itself lies
    /// on the leg (within its raw corridor) short of its end by more than a measurement that agrees with an arrival
    /// may be (`arrivalMeasurementLimitMeters`, 25 m): a position the matcher dead-reckoned along the road through
    /// fixes it took for outliers says nothing about where the vehicle is (an outlier off the leg, rightly coasted
    /// through, still passes: a drive that ends at its destination on one, SUMO Helsinki seed 1 probe12 at 5 s). Positions only at 5 s, a vehicle braking from 25 m/s to a red light short of the
    /// waypoint stands where the matcher's speed, taken from the positions, does not expect it: it coasted on past the
    /// waypoint (SUMO Baltimore seed 2, probes 6, 7 and 19: matched positions 116-226 m from their fixes, three
    /// arrivals 108-215 m early). Until session 22 the fix had to lie this far short as well, and one 35 m short let
    /// a matched position 65 m from it, carried 32 m past the waypoint by an outlier the matcher had taken, announce
    /// an arrival 42 m early (own Helsinki drive 13 at 5 s, `NavigationBenchmark` seed 2026).
    /// Default 40 m (5 σ of an 8 m error). 0 or `.infinity` turns the check off.
    public var arrivalPassingThroughFixMeters: Double = 40
    /// … or after a GPS gap of at least this many seconds between two fixes (a tunnel, a garage, a lost uplink) that
    /// began while the vehicle was on the leg: the vehicle reappears on the next leg, going its way, no farther along
    /// it than the gap's time allows a drive through the waypoint (see `NavigatorCore.checkPassedDuringGap`).
    /// Without it the waypoint passed unseen is never announced and the vehicle is sent back to it, leg after leg.
    /// Default 8 s (above the 5 s of sparse fixes); 0 turns the rule off.
    public var arrivalAfterGapMinimumSeconds: Double = 8
    /// … and at sparse fixes an interval of `sparseFixSeconds` or more counts as such a gap too (the windows around
    /// it stay `arrivalAfterGapMinimumSeconds`): at 5 s fixes a vehicle at 30 m/s drives 150 m between two fixes,
    /// and where the road bends at the waypoint (a motorway ramp) the straight line between the matched positions
    /// either side of it passes 20 m or more wide of it, so the passing-through rule does not see it, no fix lands
    /// within the nearest-fix radius, and the vehicle, found on the next leg, was sent back to the waypoint leg
    /// after leg (SUMO Liechtenstein, seed 2, probe12: both arrivals lost, five reroutes). Default true.
    public var arrivalAfterSparseInterval = true
    /// … and without a course in the fix, the step from the previous matched position (a chord across the bend the
    /// vehicle may have driven through the waypoint on) may go the way of the road's chord from the waypoint to the
    /// matched position instead of the road's direction there (SUMO Liechtenstein seed 15 probe30 at 5 s without speed:
    /// it passed its midpoint on a bend at 23 m/s between fixes 40 m before and 65 m past it; the line between them
    /// ran 25 m wide of the waypoint and the step more than 60° from the road's direction at the second fix; the
    /// vehicle was sent back six times and both arrivals were lost). Default true.
    public var arrivalAfterGapStepAlongRoadChord = true
    /// After a real gap (`arrivalAfterGapMinimumSeconds` or more), the first fix that shows the vehicle on the next
    /// leg is confirmed by the fix after it before the arrival is announced: one fix is never enough, and the first
    /// after an outage may be an outlier. The fix after it confirms unless the matcher puts it back on this leg.
    /// Own Helsinki drive 46 (sample seed 7) at 5 s: the vehicle slowed to 4 m/s before a 25 s outage; the first
    /// fix after it was 106 m off, beside the next leg just past the waypoint, and the arrival was announced with the
    /// vehicle 106 m short of it. Sparse 5 s intervals without a gap are not held (a drive-through at speed would be
    /// announced 5 s and 50–150 m later). Default true.
    public var arrivalAfterGapConfirmed = true
    /// … or, at dense fixes, when this fix's position is an outlier (a jump from the last consistent fix, outside
    /// the leg's raw corridor, or that far from the matcher's position, which coasted through it) but its own speed
    /// says the vehicle moves (`minimumSpeedForCourseMetersPerSecond`):
    /// the progress estimate at the last accepted fix, carried on at the slower of that fix's and this one's speed,
    /// is within `arrivalRadiusMeters` of the leg's end, and so is the matcher's position for this fix, in a straight
    /// line. Only while the last accepted fix is at most this many seconds old (farther, a stop in between could make
    /// the reckoning run ahead of the vehicle), or is this one (the filter took the matched position). Default 3 s
    /// (1–2 s fixes; 5 s fixes have the nearest-fix rule and `arrivalCoastingMovingMaximumSeconds`); 0 turns the rule
    /// off.
    public var arrivalCoastingMaximumSeconds: Double = 3
    /// … or up to this many seconds when the last accepted fix reported its own speed of
    /// `minimumSpeedForCourseMetersPerSecond` or more too: moving at both ends of the interval. At 5 s fixes a drive
    /// that ends at its destination without stopping has one fix there, and when that one is an outlier (2 % of them)
    /// no other rule announces it (SUMO seed 11: Kouvola probe11, Liechtenstein probe17, Helsinki probe3, the matcher
    /// coasting 0.2-13 m from the waypoint). The reckoning over such an interval is the slower end's speed, or, when
    /// the vehicle sped up, the mean of the two (at the slower end's a vehicle pulling away from 10 to 14 m/s was
    /// reckoned 17 m short: SUMO Kouvola seed 10 probe10). Over the 5 s intervals of SUMO's own tracks (seeds 9-11)
    /// that moved at 4 m/s or more at both ends, that overran the distance driven by more than 15 m
    /// (`arrivalRadiusMeters`) in 58 of 14 032 braking (0.41 %) and 53 of 16 510 accelerating ones (0.32 %); the
    /// faster end's speed overran in 10 % of all. Default 6 s (5 s fixes and a second of jitter); 0 leaves only
    /// `arrivalCoastingMaximumSeconds`.
    public var arrivalCoastingMovingMaximumSeconds: Double = 6
    /// Passing through a waypoint is judged from the fix before this one, or, when that one was off the route or
    /// shows no passing, from the one before it; with this on, not from the one before it when this fix is the
    /// position outlier: it jumped from the fix before (`positionJumpSlackMeters`), which came on from the one before
    /// it without a jump. Why: at 5 s fixes an outlier 92 m off the vehicle, matched on the road beyond the
    /// destination, made a line from two fixes back that crossed the waypoint (SUMO Liechtenstein seed 11 probe18:
    /// announced 37 m early, the next fix was at the waypoint). Default true.
    public var arrivalPassingThroughSkipsJumpedFix = true
    /// … and for a fix without its own speed (positions only), whose estimate and matched position trail a moving
    /// vehicle (the β gain's speed lags it: SUMO Helsinki probe12 and Kouvola probe9 at 1 s ended at their
    /// destination 10-15 m ahead of both, the last fix an outlier): the least-squares line through the straight-line
    /// distances to the leg's end of the raw fixes of the last this many seconds that were no jump and lay within the
    /// leg's raw corridor (three or more, spanning 2 s or more, every one within twice the accuracy of the line, its
    /// slope at most `maximumSpeedMetersPerSecond`), carried on to this fix's time, must be within `arrivalRadiusMeters`
    /// and fall at `minimumSpeedForCourseMetersPerSecond` or more, and the matcher's position (trailing) within
    /// `arrivalStandingRadiusMeters` in a straight line. Straight-line, not along the leg: a leg that passes the same
    /// place twice made the projections jump between its passes (Kouvola probe9). The price: on a road that does not
    /// head for the waypoint the line reckons the vehicle closer than its drive (a corner 40 m of drive before it, at
    /// 10 m/s: 35 m; 35 m round a corner at 20 m/s: 23 m), and there the trailing matched position, which must be within
    /// 25 m, is what keeps it from an early arrival. Default 4 s (four 1 s
    /// fixes; 2 s and sparser fixes never have three: the line's error at the next fix, σ ≈ 10 m with σ = 8 m fixes,
    /// lets a vehicle stopping more than 30 m short reckon itself within 15 m only by chance, and a braking one
    /// reckons itself short, not ahead; a longer window lags a vehicle changing speed). 0 turns it off.
    public var arrivalCoastingTrackSeconds: Double = 4

    /// Off route when the evidence of consecutive off-route fixes reaches this. A fix the matcher puts off the
    /// route counts 1; one that is also at least `strongOffRouteDistanceMeters` from the route while the vehicle
    /// moves against the route's direction (around that point) counts 2; a fix on the route resets the count
    /// unless its course contradicts the route (see `onRouteCourseSpanMeters`).
    /// Default 3: never one bad fix, never two position outliers (their course still follows the road), but two
    /// fixes turning away from the route are enough.
    public var offRouteEvidenceThreshold: Int = 3
    /// A fix the snapper puts off the route counts nothing (and resets nothing) while the matcher's log-odds for the
    /// leg (`SnappedFix.routeLogOdds`) are at least this. Default 5 (e⁵ ≈ 150 : 1; on the simulated drives the
    /// matcher's odds at the fixes that decided a real departure were below 3, those of outliers and of a progress
    /// estimate gone astray 5–22).
    public var offRouteVetoLogOdds: Double = 5
    /// A fix the snapper puts off the route counts 2 (as a course against the route does) when it is no position jump
    /// and the matcher's log-odds for the leg are at or below minus this. Default 6 (e⁶ ≈ 400 : 1 for another road,
    /// after the matcher's bonus for the route on every fix; an outlier it coasts through keeps the route's odds).
    /// With the count's threshold 3 one such fix after any other off-route fix reroutes, never one alone. On the
    /// SUMO drives the matcher was at −7 to −∞ on the second fix past a junction the route turned at and the vehicle
    /// went straight on (BENCHMARKS.md "Session 6: rerouting after really leaving the route").
    public var offRouteDecisiveLogOdds: Double = 6
    /// A fix within the route's corridor resets the off-route count only while the matcher's log-odds for the leg
    /// are above minus this. Default 2 (7 : 1 for another road): the first fixes past a junction the vehicle left
    /// the route at still lie within the corridor and reset the count while the matcher already prefers the branch.
    /// 3 (session 6) let a fix 16 m from the route at −2.3 reset the count of a vehicle going straight on where the
    /// route turned (SUMO Helsinki 1 s probe24 with speed and course: rerouted on the 4th fix after leaving, with 2
    /// on the 3rd); no reroute was added on the SUMO drives, white or recorded-drive noise, with or without speed and
    /// course (BENCHMARKS.md "Session 11: leaving the route within 3 fixes").
    public var offRouteHoldLogOdds: Double = 2
    /// An off-route fix without a usable course of its own (`minimumSpeedForCourseMetersPerSecond`) counts 2 (as a
    /// course against the route does) when it and the fix before it, both off the route, lie at least this far from
    /// every part of the leg, the earlier one was reached without a position jump, an off-route fix has already
    /// counted since the last reset, and the matcher's log-odds for the leg are below 0: the vehicle drove there.
    /// Default 50 m: 6 σ of the σ = 8 m noise, beyond the urban-canyon shifts of recorded drives (15–30 m) and their
    /// bias; outliers (50–150 m in the white model, 2 % of fixes) come one at a time (two in a row: 0.04 % of fix
    /// pairs), and a pair displaced alike jumps on the way out. Without a course (positions-only receivers) at 5 s
    /// nothing else counts 2, and the distance alone took three fixes: SUMO Baltimore probe3 and probe20 were
    /// 75 → 117 m and 132 → 163 m off the route on two fixes in a row and were rerouted only on the next (3.4 and 3.6
    /// fixes after leaving; now 2.4 and 2.6). `.infinity` turns it off.
    public var offRouteFarMeters: Double = 50
    /// Default 8 m (one σ of GPS noise: closer than that the course says little about which road).
    public var strongOffRouteDistanceMeters: Double = 8
    /// A fix whose raw position jumped from the previous one by more than 1.5 × speed × interval plus this is a
    /// position outlier (or the return from one): off the route it counts 1, never 2. Default 40 m (two fixes with
    /// σ = 8 m per axis lie farther apart than that with probability 0.2 %; outliers are 50 m and more).
    public var positionJumpSlackMeters: Double = 40
    /// Sparse fixes (`sparseFixSeconds` or more apart) without a speed (positions-only receivers, GPX loggers): how
    /// fast the vehicle may speed up beyond the speed derived from its positions (see `derivedSpeedBaselineSeconds`:
    /// over 20 s, it lags a vehicle pulling away from a light), m/s². The jump test allows the derived speed plus
    /// this × the interval (denser fixes take the progress filter's speed along the leg, see
    /// `NavigatorCore.isPositionJump`); the progress
    /// filter, which takes the derived speed in place of the fix's on sparse fixes, widens its gate by ½ × this ×
    /// interval². Default 2 (a car pulling away briskly: 1.5–3 m/s²). Fixes with a speed are judged by it, as before.
    /// Reading the missing speed as 0 made every 5 s step over 40 m a jump, and the arrival rules, which need a
    /// plausible fix, announced 23 / 13 / 13 of 40 waypoints on the SUMO Helsinki / Liechtenstein / Baltimore
    /// drives and 2 of 40 on Kouvola with realistic noise and no speed or course at 5 s (now 37 / 34 / 32 and 33;
    /// BENCHMARKS.md "Session 8: recorded-drive GPS noise").
    public var unknownSpeedAccelerationMetersPerSecondSquared: Double = 2
    /// A course differing from the route by more than this contradicts it. Default 60°.
    public var courseContradictionDegrees: Double = 60
    /// The fix's course counts only at or above this speed. Default 4 m/s (slower, turning through a junction,
    /// the course says little about the road).
    public var minimumSpeedForCourseMetersPerSecond: Double = 4
    /// … but for a sparse fix (`sparseFixSeconds` or more after the previous one) the snapper already puts off the
    /// route, twice `strongOffRouteDistanceMeters` or more from it, the course counts from this speed (three such
    /// fixes cover 15 s or more: a vehicle turning off slowly should not need them all). Default 2.5 m/s.
    public var offRouteCourseMinimumSpeedMetersPerSecond: Double = 2.5
    /// Default 3 s.
    public var sparseFixSeconds: Double = 3
    /// Fixes without a course: the course their last few positions show, where they show one with confidence,
    /// stands in for it as evidence of leaving the route (see `PositionCourseConfiguration`).
    public var positionCourse = PositionCourseConfiguration()
    /// Off-route fixes from a vehicle slower than this (by the fix's own speed) on the first `settlingMeters` of a
    /// leg neither add evidence nor reset it. Default 1.5 m/s.
    public var offRouteMinimumSpeedMetersPerSecond: Double = 1.5
    /// A vehicle not yet on a new leg (no progress along it) within this of the leg's start, or of the end of the
    /// leg it just finished (when the plan was kept on arriving there), is rolling up to it, not off it.
    /// Default 40 m.
    public var legStartToleranceMeters: Double = 40
    /// Decisive wrong way: matched on the twin of the current route edge with a course at least this far from the
    /// route's. Counts threshold − 1, so two such fixes (or one after any other off-route fix) reroute. Default 135°.
    public var wrongWayDegrees: Double = 135

    /// Divergence (see `NavigatorCore`): off route when the CUSUM of (raw distance from the leg ÷ the fix's accuracy
    /// − `divergenceReferenceAccuracies`), over fixes the matcher puts on another road with log-odds of at least
    /// `divergenceLogOdds`, reaches this. Default 3: for σ = 8 m fixes (accuracy 10 m) a road 16 m beside the route
    /// adds ≈ 0.6 a fix, one 25 m away 1.5; fixes on the route (mean distance ≈ 6 m) take ≈ 0.4 a fix away.
    public var divergenceThreshold: Double = 3
    /// Default 1 accuracy (10 m for the simulated σ = 8 m fixes: a fix on the route lies farther from it one time in
    /// three).
    public var divergenceReferenceAccuracies: Double = 1
    /// Most one fix adds. Default 1.5 (never fewer than two fixes; an outlier counts no more than a fix 25 m away).
    public var divergenceMaximumStep: Double = 1.5
    /// The matcher's log-odds for the leg at or below minus this let a fix add. Default 3 (e³ ≈ 20 : 1 for the other
    /// road; the matcher's route bonus already holds it on the route through single noisy fixes).
    public var divergenceLogOdds: Double = 3
    /// A moving vehicle's course (see `minimumSpeedForCourseMetersPerSecond`) more than this from every direction of
    /// the leg within `divergenceCourseSpanMeters` of the fix adds `divergenceCourseStep` to the fix's divergence step
    /// (same cap). Default 25° (five times the course noise of the simulated GPS).
    public var divergenceCourseDegrees: Double = 25
    /// Default 1.
    public var divergenceCourseStep: Double = 1.5
    /// How far along the leg either side of the fix its directions are compared with the course for the divergence
    /// step. Default 10 m.
    public var divergenceCourseSpanMeters: Double = 10

    /// The sequential test between the route and each road leaving it at the junctions the vehicle passes
    /// (`JunctionBranchTest`): leaving at a fork is decided from the geometry of both roads, fix by fix.
    public var junctionBranches = JunctionBranchTestConfiguration()

    /// How much one fix counts as evidence of leaving (the divergence sum, the junction branch test): in proportion
    /// to the distance moved since the previous fix, or the time since it, whichever is the larger share of these,
    /// up to 1. A vehicle standing in a lane beside the centre line repeats the same offset fix after fix, and GPS
    /// errors are correlated over seconds: a minute of standing fixes is not sixty independent measurements.
    /// Defaults 5 m and 5 s: on simulated drives with the fixes 5 m right of the centre line, vehicles standing in
    /// queues (the matcher holding them on a neighbouring way) summed a minute of 1 s fixes into 29 false reroutes
    /// per 96 Helsinki trips without it, 5 with it. The distance moved is the fix's own speed × the interval, or,
    /// for a fix without one, the map matcher's speed along the road (which comes down to 0 within a few fixes of a
    /// stop; the 5 s smoothed speed still read 2–7 m/s ten seconds into a stand, and a positions-only vehicle
    /// standing at a light in a canyon episode was rerouted: SUMO Baltimore probe0, recorded-drive noise, 1 s).
    public var evidenceDecorrelationMeters: Double = 5
    public var evidenceDecorrelationSeconds: Double = 5
    /// … and while the vehicle stands (speed below `offRouteMinimumSpeedMetersPerSecond`), the time share adds up to
    /// at most this many fixes' worth for the whole stand, whatever its length: a vehicle that does not move cannot
    /// show which road it took, and its fixes repeat its lane's offset and the GPS's slow error. Moving renews it.
    /// Default 1. Without it, SUMO Baltimore at three times the default traffic (probe0, 5 s fixes) stood three
    /// minutes in a queue 10 m past a fork at 17°, each fix a full one, until the junction branch test took the
    /// fork: a false reroute onto a 7.9 km detour, both arrivals lost and ten more reroutes. `.infinity`: no limit.
    public var standingEvidenceLimit: Double = 1
    /// A vehicle whose fixes' own speed says it stands (below `offRouteMinimumSpeedMetersPerSecond`), and which came to
    /// a stop with no evidence of leaving counted, stays on the route for the whole stand: its off-route fixes neither
    /// add evidence nor reset it. A vehicle that does not move cannot leave; street-canyon multipath at a light holds
    /// its fixes 20–40 m to one side for seconds at a time (`realistic.py`'s canyon episodes: SUMO Baltimore probes 7
    /// and 14 and Helsinki probe7 at 1 s, rerouted while standing). Without a speed of its own the fix cannot say it
    /// stands. Default true.
    public var standingKeepsRoute = true

    /// A fix within the route's corridor counts as leaving when its course contradicts every direction of the leg
    /// within this distance along it of the fix's position (1), or 2 when the matcher also holds it on another road
    /// whose direction is within `matchedRoadCourseDegrees` of the course. Default 25 m (the along-road error of a
    /// σ = 8 m fix, and more: a position ahead of a turn must not contradict the road before it).
    public var onRouteCourseSpanMeters: Double = 25
    /// Default 45°.
    public var matchedRoadCourseDegrees: Double = 45
    /// A fix whose own course (`usableCourse`) runs the route's way around the progress estimate (within
    /// `courseContradictionDegrees`, over `onRouteCourseSpanMeters`) while the matcher put it on a road that is none
    /// of the leg's and runs more than `courseContradictionDegrees` across that course neither adds evidence of
    /// leaving nor resets it: the position is off, not the vehicle. Multipath in a street canyon holds a receiver's
    /// fixes 20–30 m to one side for tens of seconds while its Doppler course stays right (`realistic.py`'s canyon
    /// episodes: SUMO Kouvola probe15 at 1 s, rerouted four times in 8 s onto a road across its course, 30 m away).
    /// A vehicle that really leaves drives along the road it is on, or against the route. Default true.
    public var offRouteCourseOverridesMatcher = true
    /// A fix without a usable course of its own within the corridor also counts 1 when the matcher, despite its
    /// bonus for the route, holds the vehicle moving at `minimumSpeedForCourseMetersPerSecond` or more (log-odds at
    /// or below −`offRouteHoldLogOdds`) on a road that is none of the leg's edges around it and runs against every
    /// direction of the leg within `onRouteCourseSpanMeters` (at least `wrongWayDegrees` from each), beside the
    /// progress estimate (within twice that span along the leg): a U-turn onto the other carriageway of a dual road,
    /// 10–15 m from the route, where positions alone show no course at city speeds and the distance stays inside the
    /// corridor (SUMO Helsinki positions only at 1 s, probes 7 and 10: rerouted 13–15 fixes, 87–95 m, after turning
    /// back along Hakaniemenranta). Default true.
    public var offRouteOnMatchedRoadAgainstRoute = true
    /// When the route planned on leaving is the rest of the current leg (its edges are the leg's last ones) and it
    /// starts `offRouteUnchangedRouteAheadMeters` or more ahead of the progress estimate, or the vehicle stands
    /// (below `offRouteMinimumSpeedMetersPerSecond`), no route change is announced: the leg is kept, its estimate
    /// moved to where the new route starts, and the evidence starts again. A `nav/route` saying "offRoute" with the
    /// route the vehicle is already on tells dispatch nothing true; such re-plans came from estimates left behind on
    /// a leg that passes the same street twice and from standing vehicles' noisy fixes. A moving vehicle re-planned
    /// near its estimate is rerouted as before: leaving at a junction, the first decision may come from a fix still
    /// matched on the leg (keeping every such re-plan delayed or lost the reroute of eight unit tests' leaves). On
    /// every SUMO run false reroutes went 23 → 21 with speed and course (64 runs) and 23 → 21 positions only (52),
    /// every arrival and every reroute within 3 fixes of leaving unchanged. Default true.
    public var offRouteKeepsUnchangedRoute = true
    /// See `offRouteKeepsUnchangedRoute`. Default 50 m.
    public var offRouteUnchangedRouteAheadMeters: Double = 50
    /// On the first metres of a leg that began at a standstill (origin, waypoint) only fixes off the route count as
    /// leaving it, and only while the vehicle moves. Default 40 m.
    public var settlingMeters: Double = 40
    /// How fast the vehicle may have moved on unseen, for widening the search along the leg after a gap in the
    /// fixes: the progress estimate's slack grows by this per second beyond `progressSlackAfterSeconds` since the
    /// last accepted position. Default 15 m/s.
    public var progressSlackSpeedMetersPerSecond: Double = 15
    /// Default 5 s (5 s fixes are ordinary; longer is a gap).
    public var progressSlackAfterSeconds: Double = 5

    /// Gain of the along-route progress filter (α of an α-β filter on distance along the leg). Default 0.4:
    /// σ = 8 m fixes give a ≈ 3.5 m estimate.
    public var progressGain: Double = 0.4
    /// The progress filter's gate rejects a measurement far from its prediction; two in a row are still rejected,
    /// the third believed unless the fix's own speed says the vehicle cannot have got there since the last accepted
    /// one, and then only the tenth. With this on, that third one is believed too when the vehicle drove on from the
    /// rejected measurement at its own speed (the distance along the leg since then within 3 × the accuracy plus a
    /// quarter of it of the mean of the two fixes' speeds × the time, the fix moving at
    /// `minimumSpeedForCourseMetersPerSecond` or more): it joined the leg further on. Why: a route planned from a
    /// fix heading the other way goes round a block and back along the street the vehicle is already driving (SUMO
    /// Liechtenstein seed 11 probe7 at 5 s, rerouted from a fix taken mid-turn onto a 494 m loop whose last 170 m it
    /// drove: its final arrival was lost while ten fixes were awaited). A vehicle standing beside a later part of
    /// its leg does not drive on. Default true.
    public var progressFollowsDrivingOnAhead = true
    /// Velocity gain (β) when fixes carry no speed. Default 0.1.
    public var progressVelocityGain: Double = 0.1
    /// A measurement further than (3 × accuracy + half the predicted travel + 10 m) from the prediction is an
    /// outlier and ignored; three in a row are believed (the vehicle really is there). Assumed accuracy when
    /// the fix has none: default 10 m.
    public var defaultHorizontalAccuracyMeters: Double = 10
    /// Most plausible speed, metres per second. Default 70 m/s (252 km/h).
    public var maximumSpeedMetersPerSecond: Double = 70

    /// Fixes without a speed: the speed is the straight-line displacement of the snapped positions over this many
    /// seconds (or as many as there are) ÷ the time. Default 20 s: from one fix to the next, σ = 8 m noise reads
    /// as 11 m/s on a vehicle standing still (speeding alerts on every other fix); over 20 s the noise is ≈ 0.5 m/s.
    /// On a bend or while braking the speed comes out a little low, never high: a speeding alert must not come
    /// from noise. This speed drives the speeding alerts; the reported speed, arrivals, reroutes and ETA take the
    /// snapper's speed along the road when it has one (the map matcher's: it follows pulling away and braking
    /// within seconds, this one lags by up to 20 s), and this one otherwise.
    public var derivedSpeedBaselineSeconds: Double = 20
    /// Each end of that displacement has a position error of σ per axis = this × the fix's reported accuracy, and
    /// the displacement is corrected for it (√(d² − 4σ²)). Default 0.8 (σ = 8 m for the simulated 10 m accuracy).
    public var derivedSpeedSigmaPerAccuracy: Double = 0.8
    /// … and no speed (unknown) until the positions span at least this. Default 10 s (σ ≈ 1.1 m/s; over 1–5 s the
    /// noise read as 30–40 km/h on a vehicle doing 27).
    public var derivedSpeedMinimumBaselineSeconds: Double = 10
    /// A gap longer than this between fixes without a speed starts the displacement afresh. Default 30 s.
    public var derivedSpeedMaximumGapSeconds: Double = 30

    /// On the current edge the ETA blends the model speed with the vehicle's own smoothed speed by this weight.
    /// Default 0.5.
    public var ownSpeedWeight: Double = 0.5
    /// … but the own speed counts at least this fraction of the model speed (stops are junction delays). Default 0.3.
    public var ownSpeedFloorFraction: Double = 0.3
    /// The own speed counts only while moving at least this fast (standing at the start or at a light says nothing
    /// about the road's speed). Default 2 m/s.
    public var ownSpeedMinimumMetersPerSecond: Double = 2
    /// Time constant of the own-speed smoothing, seconds. Default 5 s.
    public var ownSpeedSmoothingSeconds: Double = 5
    /// While the vehicle stands (the fix's own speed, or without one the smoothed speed, below
    /// `ownSpeedMinimumMetersPerSecond`), the remaining time and
    /// distance are taken from where its progress estimate was when it stopped, as long as the estimate stays within
    /// this of it, metres: a vehicle waiting at a red light stands at the stop line, often on the signal's node, and
    /// its estimate, a few metres either side of the node fix by fix, made the remaining time jump by the whole signal
    /// charge and back (the README demo: 40, 26, 40, 26 s in consecutive `nav/eta` messages). 28 white SUMO runs at 1
    /// s: `nav/eta` rises of 10 s or more 428 → 250, reversals of such jumps 705 → 348, messages −9 %, mid-leg
    /// remaining-time medians within 0.3 points. (By the smoothed speed alone, which takes seconds to come down after
    /// a stop: 354 and 556, and the demo's short stops not held.) Default 15 m. 0 turns the hold off.
    public var standingEtaProgressMeters: Double = 15
    /// The remaining time is scaled by the trip's own pace (time driven ÷ model time of the progress made), with
    /// weight m ÷ (m + this) after m model seconds of progress: half after this many. Default 60 s: with stops
    /// split off (`paceSplitsStops`) this is the vehicle's moving speed against the model's, which a minute of
    /// driving shows well (the speed factor of the driver, a city's real speeds on roads without a limit); the
    /// lottery of the signals is in the stop pace, with its own, slower weight. 600 s left the SUMO drives' mid-leg
    /// estimates 4–8 points further off (BENCHMARKS.md "Remaining time on SUMO drives").
    public var paceHalfWeightSeconds: Double = 60
    /// Split the pace in two: the road part of the remaining time scales with moving time ÷ the model's road time
    /// (weight as above: the driver's and the traffic's speed), the junction part with the time not moving ÷ the
    /// model's junction delays passed (weight j ÷ (j + `paceStopHalfWeightSeconds`): the city's signal delay rate as
    /// the trip has met it, shrunk towards the model because the stops already made are mostly the lottery of the
    /// signals met). Default true: on 120 simulated trips per map it lowered the mid-trip median error in 7 of 8
    /// runs (BENCHMARKS.md, "Navigation"); false scales the whole remaining time by one pace.
    public var paceSplitsStops = true
    /// With `paceSplitsStops`, the part of the remaining time a traffic feed gives (its travel times, waits
    /// included) scales with the trip's whole pace (elapsed ÷ model time of the progress made), not the split one.
    /// Default true. Why: the split pace compares the moving time with the cruise time, so a vehicle driving as
    /// slowly as the feed says shows a moving pace above 1 — which scaled the cruise part of the remaining time up
    /// while the feed's excess over cruise was added on top: the same slowness counted twice. On the SUMO drives
    /// with a feed from the same simulation that made the mid-leg remaining time +10 to +13 % (signed median) on
    /// free-flowing Kouvola and Liechtenstein (BENCHMARKS.md "Remaining time when traffic is known").
    public var paceUnsplitUnderFeed = true
    /// The whole pace that scales the feed's part is trusted with weight m ÷ (m + this) after m model seconds of
    /// progress. Default 300 s, slower than `paceHalfWeightSeconds`: a feed already says how fast today's traffic
    /// goes on each way, so the trip's own pace corrects less (the driver, the junctions the feed leaves out).
    public var feedPaceHalfWeightSeconds: Double = 300
    /// Default 200 s (some 10 signalised junctions of the model before the trip's own stop rate counts half). The
    /// same city's signals cost 106 s of waiting per SUMO trip with fixed-time programs and 11 s with actuated
    /// ones (Helsinki): no fixed delay fits both, the trip's own stops must tell. 600 s left the actuated drives'
    /// mid-leg estimates +23–35 % (signed median), 200 s +13–28 %, at the same pooled error over the fixed-time
    /// drives (BENCHMARKS.md "Remaining time on SUMO drives").
    public var paceStopHalfWeightSeconds: Double = 200
    /// The pace ratio is clamped to this range. Default 0.3...1.8: a trip through green (actuated) signals stands
    /// a small fraction of the model's signal delays; one long red is capped at 1.8.
    public var paceRatioRange: ClosedRange<Double> = 0.3...1.8
    /// Fixes further apart than this do not count towards the pace (a gap says nothing about it). Default 60 s.
    public var paceMaximumGapSeconds: Double = 60
    /// The vehicle reports its own speed on a way to the traffic model after moving at least this long on it. Default 10 s.
    public var ownObservationMinimumSeconds: Double = 10

    /// Traffic on the current leg is re-evaluated at least this often as observations fade, seconds. Default 60 s.
    public var trafficRefreshSeconds: Double = 60
    /// Check for a faster route at most this often, and only after the traffic feed changed. Default 120 s.
    public var fasterRouteCheckIntervalSeconds: Double = 120
    /// Switch only when the new route saves at least this … Default 60 s.
    public var fasterRouteMinimumSavingSeconds: Double = 60
    /// … and at least this fraction of the remaining time. Default 0.1.
    public var fasterRouteMinimumSavingFraction: Double = 0.1

    /// Delay category bands on the traffic-aware ÷ the no-traffic time of the rest of the leg, junction delays
    /// included in both (a feed speed holds the waits at signals: compared with road times alone, a usual red light
    /// would read as a delay): below `lightBelowRatio` light (delays up to 15 %), below `mediumBelowRatio` medium
    /// (up to 40 %), else heavy; noData when no live observation covers an edge ahead.
    public var lightBelowRatio: Double = 1.15
    public var mediumBelowRatio: Double = 1.4

    /// `traveledPath` keeps a snapped point only after moving this far from the last one. Default 5 m.
    public var traveledPathMinimumStepMeters: Double = 5
    /// Most destinations per `setDestinations` (the SDK's limit). Default 25.
    public var maximumDestinations: Int = 25

    public var junctions = JunctionDelayModel()
    /// The remaining time's speeds between junctions (`CruiseSpeedModel`: the speed limit where known).
    public var cruiseSpeeds = CruiseSpeedModel()
    public var lighting = LightingConfiguration()
    public var speeding = SpeedingConfiguration()
    public var traffic = TrafficModelConfiguration()

    public init() {}
}
