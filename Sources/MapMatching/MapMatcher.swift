import Foundation
import Geo
import RoadGraph
import Routing

/// What one call of `MapMatcher.update(_:)` produces.
public struct MatchUpdate: Sendable {
    /// The newest fix's answer now, from the best path so far (it may still change: see `finalized`).
    public var provisional: SnappedLocation
    /// Fixes whose answer became final with this update, oldest first: with the default lag (20 s and at least 4
    /// fixes, see `MapMatchingConfiguration.lagSeconds`) the fix received 20 updates ago at 1 s fixes, 4 at 5 s;
    /// none, or several at once, when the fix interval changes, and every pending one after a break in the trace.
    public var finalized: [SnappedLocation]
    /// Index (0-based, in arrival order) of `finalized.first`; meaningless when `finalized` is empty.
    public var firstFinalizedIndex: Int
    /// With an active route: the log-score of the best path ending at the newest fix in a state on the route,
    /// minus that of the best path ending in a state off it (natural log; positive = on the route is likelier).
    /// Both paths share the decided history, so this is a generalised likelihood ratio over where the vehicle may
    /// have left the route; a coasting state (the fix taken as an outlier) counts where its anchor is. It includes
    /// `routeBonus` for every fix a path spends on the route. +∞ when every candidate is on the route, −∞ when
    /// none is; nil without a route or when the fix matched nothing.
    public var routeLogOdds: Double? = nil
}

/// The road-snapped location provider's engine: an online hidden-Markov map matcher in the terms of Newson & Krumm
/// (2009), with fixed-lag Viterbi decoding, outlier coasting, route awareness and along-road smoothing.
///
/// - Candidates: roads within `searchRadiusSigmas`·σ_z of the fix (σ_z from the fix's accuracy), both directions.
/// - Emission: Gaussian on the fix-to-road distance, a course term when the fix has a course, a bonus for the
///   active route.
/// - Transition: exponential on |route distance − great-circle distance| (scale β), and on |route distance −
///   distance implied by the fixes' speeds| when they have speeds; impossible above `maximumSpeedMetersPerSecond`.
///   Route distances come from bounded Dijkstra searches cached per source node.
/// - Outliers: every step also holds "coasting" states that skip the fix at a cost equal to a road
///   `outlierSigmas`·σ_z away; a bad fix is coasted through and its position dead-reckoned along the road between
///   the positions before and after it. A real jump wins once several fixes agree on it.
/// - Decoding: fixed lag of `lagSeconds` (at least `lagFixes`, at most `maximumLagFixes` fixes). When the lag has
///   passed after fix n, fix n's state on the best path is decided, every other state of fix n is dropped, and the
///   later scores are recomputed (until a step comes out unchanged), so the decided path is always connected.
///   The newest fix's provisional answer is the best state now.
/// - Smoothing: the decided positions are smoothed along the road with their neighbours' positions, times and
///   speeds (see `AlongRoadSmoother`), which removes most of the along-road GPS error.
///
/// Not `Sendable`: one matcher per vehicle (it keeps search labels and caches). The `RoadGeometryIndex` is shared.
public final class MapMatcher {
    public let index: RoadGeometryIndex
    public let mode: TravelMode
    public let configuration: MapMatchingConfiguration
    /// Unchecked exclusivity here and on the candidate buffers, `history`, `pathEdges` and `recentFixes` below (as on
    /// `window`): the matcher is used from one thread and no access to them overlaps another; each checked access
    /// cost a runtime call (about 15 per fix).
    @exclusivity(unchecked) public private(set) var route: ActiveRoute?

    private let distances: RoadDistanceCache
    /// True when roads closed to `mode` are candidates (`closedRoadPenalty`).
    private let includesClosedRoads: Bool
    private let smootherModel: AlongRoadSmoother.Model
    /// The model for the newest fix's provisional answer: without the constant-acceleration fit, whose one-sided
    /// estimate at the end of the window is noisier than the constant-velocity one.
    private let provisionalSmootherModel: AlongRoadSmoother.Model
    @exclusivity(unchecked) private var scratch: CandidateScratch
    @exclusivity(unchecked) private var candidateBuffer: [RoadCandidate] = []
    /// Reused buffer of the road search targets of one transition.
    private var searchTargets: [(node: NodeID, withinMeters: Double)] = []
    /// Reused buffer of the coasting anchors of one transition (an allocation per fix before).
    private var coastSourceBuffer: [(index: Int, score: Double)] = []
    /// Reused buffers of `bestPath(into:)` and of the smoother's samples (`decide`, `provisionalLocation`): each
    /// was an allocation per call, several per fix.
    private var pathBuffer: [Int] = []
    private var sampleBuffer: [OdometerSample] = []
    /// Unchecked exclusivity, as `LatticeStep`'s arrays: read for every step on every fix.
    @exclusivity(unchecked) private var window: [LatticeStep] = []
    private var spareSteps: [LatticeStep] = []
    /// True when window[0] is the last decided step (kept as the root of the pending ones).
    private var hasRoot = false
    private var nextFixIndex = 0

    // Decided path, for smoothing and for walking back along the road.
    @exclusivity(unchecked) private var history: [OdometerSample] = []
    /// Number of standing fixes at the end of `history`.
    private var historyStandingRun = 0
    /// Directed edges of the decided path with the odometer at each edge's source.
    @exclusivity(unchecked) private var pathEdges: [(edge: EdgeID, start: Double)] = []
    /// Odometer at the last decided road position (the anchor while coasting), metres.
    private var lastDistance = 0.0
    private var lastRouteDistance = 0.0
    private var lastSpeedEstimate: Double?
    private var lastDecided: SnappedLocation?
    /// The road position of the last decided road state, if the current segment has one.
    private var lastDecidedRoad: (edge: EdgeID, offset: Double, time: Double)?
    /// The last few fixes, for inferring a speed when fixes carry none.
    @exclusivity(unchecked) private var recentFixes: [(time: Double, coordinate: Coordinate)] = []
    /// Reused buffer of `lookAheadSpeed`.
    private var lookAheadFixes: [(time: Double, coordinate: Coordinate)] = []
    /// Reused buffer of `inferredMotion`.
    private var speedInferencePoints: [(t: Double, x: Double, y: Double, dropped: Bool)] = []
    /// Running sums of the current run of stationary fixes (speed below `stationarySpeedMetersPerSecond`).
    private var stationaryLatitudeSum = 0.0
    private var stationaryLongitudeSum = 0.0
    private var stationaryCount = 0
    /// The last trusted course (degrees) and its time: a standing vehicle keeps it.
    private var heldCourse: (degrees: Double, time: Double, weight: Double)?
    /// The previous fix's course when it reported one at `oppositeDirectionSpeedMetersPerSecond` or more (degrees).
    private var lastCourseAtSpeed: Double?
    /// For a fix without speed and course: the direction of the line through the recent positions, when they
    /// show the vehicle moving at least `minimumSpeedForCourseMetersPerSecond` (degrees).
    private var inferredCourse: Double?
    /// The noise of the fixes, estimated from the decided answers (`residualSigmaAgreementFactor`). It belongs to
    /// the receiver, not the trace: `reset()` keeps it.
    private var noise: ResidualNoiseEstimate
    /// The accuracy the receiver usually reports (`accuracyRiseWidensBand`); like `noise`, kept by `reset()`.
    private var typicalAccuracy: TypicalAccuracy

    /// Matches fixes for `mode` on the graph behind `index`. `searchScratch`, when given, is shared with other
    /// matchers used on the same thread one at a time (a fleet's vehicles); without it the matcher holds its own,
    /// 16 bytes per graph node.
    public init(index: RoadGeometryIndex, mode: TravelMode = .driving,
                configuration: MapMatchingConfiguration = MapMatchingConfiguration(),
                searchScratch: RoadSearchScratch? = nil) {
        self.index = index
        self.mode = mode
        self.configuration = configuration
        includesClosedRoads = mode.isMotorized && configuration.closedRoadPenalty.isFinite
            && configuration.maximumClosedCandidateRoads > 0
        distances = RoadDistanceCache(index: index, mode: mode, scratch: searchScratch,
                                      closedRoadLengthFactor: includesClosedRoads
                                          ? max(1, configuration.closedRoadLengthFactor) : nil)
        smootherModel = AlongRoadSmoother.Model(
            speedNoise: configuration.speedIntegrationSigmaMetersPerSecond,
            speedScale: configuration.speedIntegrationScaleError,
            acceleration: configuration.accelerationSigmaMetersPerSecondSquared,
            rejectionSigmas: configuration.smoothingRejectionSigmas,
            standingSpeed: configuration.stationarySpeedMetersPerSecond,
            nearSamples: configuration.smoothingNearFixes, jerk: configuration.positionsOnlyJerkMetersPerSecondCubed,
            speedLagSeconds: configuration.speedStepSeconds,
            stoppingChangeFactor: configuration.stoppingIntervalUncertaintyFactor,
            standingRunSmoothing: configuration.positionsOnlyStandingRunSmoothing,
            standingRunEndSeconds: configuration.positionsOnlyStandingRunEndSeconds,
            sharpTurnSigma: configuration.sharpTurnPathSigmaMeters, sharpTurnDegrees: configuration.sharpTurnDegrees)
        var provisionalModel = smootherModel
        provisionalModel.jerk = 0
        // The newest fix has no later ones to show that a standing run has ended.
        provisionalModel.standingRunSmoothing = false
        // One-sided: for the newest fix standing after moving ones, only the fixes before the stop say where it is.
        provisionalModel.stoppingChangeFactor = 1
        provisionalSmootherModel = provisionalModel
        noise = ResidualNoiseEstimate(
            timeConstantSeconds: configuration.residualSigmaTimeConstantSeconds,
            minimumMemoryFixes: configuration.residualSigmaMemoryFixes,
            evidenceFixes: configuration.residualSigmaEvidenceFixes,
            medianToSigma: configuration.residualMedianToSigma)
        typicalAccuracy = TypicalAccuracy(
            timeConstantSeconds: configuration.typicalAccuracyTimeConstantSeconds,
            minimumMemoryFixes: configuration.typicalAccuracyMemoryFixes,
            evidenceFixes: configuration.typicalAccuracyEvidenceFixes)
        scratch = CandidateScratch()
        candidateBuffer.reserveCapacity(32)
    }

    /// Sets (or with nil clears) the route the vehicle is expected to follow. Candidates on it are preferred by
    /// `routeBonus`; outputs report `isOnRoute` and `routeDistanceMeters`.
    public func setRoute(_ route: Route?) {
        self.route = route.map { ActiveRoute(route: $0, index: index) }
        lastRouteDistance = 0
    }

    /// Sets a route given as whole directed edges.
    public func setRoute(edges: [EdgeID]) {
        route = edges.isEmpty ? nil : ActiveRoute(edges: edges, index: index)
        lastRouteDistance = 0
    }

    /// Number of fixes given to `update` so far.
    public var fixCount: Int { nextFixIndex }

    /// Number of bounded road searches run so far (most transitions are answered from the cache).
    public var roadSearchCount: Int { distances.searchCount }

    /// Feeds the next fix. Fixes must come in time order (a fix older than the previous one is treated as
    /// simultaneous with it).
    public func update(_ fix: LocationFix) -> MatchUpdate {
        var finalized: [SnappedLocation] = []
        let firstIndex = window.first.map { hasRoot ? $0.fixIndex + 1 : $0.fixIndex } ?? nextFixIndex
        distances.step = nextFixIndex
        let step = takeStep()
        // The typical accuracy before this fix: a fix reporting a rise is compared with what came before it.
        let rawSigma = configuration.sigmaMeters(
            for: fix, residualSigma: noise.sigmaMeters, typicalAccuracy: typicalAccuracy.meters)
        if let accuracy = fix.validAccuracy { typicalAccuracy.record(accuracyMeters: accuracy, time: fix.timestamp) }
        var sigma = rawSigma
        let radius = min(configuration.maximumSearchRadiusMeters,
                         max(configuration.minimumSearchRadiusMeters, configuration.searchRadiusSigmas * sigma))
        // A standing vehicle's fixes are repeated measurements of one point: observe their running mean.
        var observed = fix.coordinate
        // Hysteresis: a standing run starts below the stationary speed and ends only above twice that, so that
        // speed noise does not break it up.
        let threshold = configuration.stationarySpeedMetersPerSecond * (stationaryCount > 0 ? 2 : 1)
        recentFixes.append((fix.timestamp, fix.coordinate))
        if recentFixes.count > configuration.speedInferenceFixes { recentFixes.removeFirst() }
        // The line through the recent positions gives a fix without speed its speed, and a fix without course
        // (whose speed, reported or inferred, shows it moving) its direction.
        let reportedSpeedWantsCourse = configuration.inferredCourseForReportedSpeeds && fix.validCourse == nil
            && (fix.validSpeed.map { $0 >= configuration.minimumSpeedForCourseMetersPerSecond } ?? false)
        let line = fix.validSpeed == nil || reportedSpeedWantsCourse ? inferredMotion(sigma: rawSigma) : nil
        let inferred = fix.validSpeed == nil ? line : nil
        inferredCourse = nil
        if let m = line, fix.validCourse == nil, configuration.inferredCourseWeight > 0,
           m.speed >= configuration.minimumSpeedForCourseMetersPerSecond,
           !turnedWithinLine(fix, lineCourse: m.course, sigma: rawSigma) {
            inferredCourse = m.course
        }
        if let v = fix.validSpeed ?? inferred?.speed, v < threshold {
            if stationaryCount > 0 {
                let n = Double(stationaryCount)
                let mean = Coordinate(latitude: stationaryLatitudeSum / n, longitude: stationaryLongitudeSum / n)
                if Geodesy.distanceMeters(mean, fix.coordinate) > configuration.outlierSigmas * sigma {
                    observed = fix.coordinate  // an outlier while standing: leave the mean alone
                } else {
                    stationaryLatitudeSum += fix.coordinate.latitude
                    stationaryLongitudeSum += fix.coordinate.longitude
                    stationaryCount += 1
                    let m = Double(stationaryCount)
                    observed = Coordinate(latitude: stationaryLatitudeSum / m, longitude: stationaryLongitudeSum / m)
                    sigma = max(configuration.minimumStationarySigmaMeters, sigma / m.squareRoot())
                }
            } else {
                stationaryLatitudeSum = fix.coordinate.latitude
                stationaryLongitudeSum = fix.coordinate.longitude
                stationaryCount = 1
            }
        } else {
            stationaryCount = 0
        }
        step.reset(fixIndex: nextFixIndex, fix: fix, observed: observed, sigma: sigma, rawSigma: rawSigma,
                   radius: radius)
        step.standing = stationaryCount > 0
        nextFixIndex += 1
        addRoadStates(to: step)

        if let previous = window.last, fix.timestamp - previous.fix.timestamp > configuration.maximumGapSeconds {
            flush(into: &finalized)
        }
        if let previous = window.last {
            linkStep(step, to: previous)
            if !step.score.contains(where: { $0.isFinite }) {
                // Nothing connects: the trace breaks here. Decide everything before, restart at this fix.
                flush(into: &finalized)
                startStep(step)
            }
        } else {
            startStep(step)
        }

        let provisional: SnappedLocation
        if step.states.isEmpty {
            // No road near and nothing to coast from: this fix is unmatched and the lattice restarts after it.
            flush(into: &finalized)
            let out = SnappedLocation.unmatched(fix)
            finalized.append(out)
            recycle(step)
            provisional = out
            lastDecided = out
        } else {
            window.append(step)
            if fix.validSpeed == nil { markStandingInHindsight() }
            while oldestPendingIsDue() { finalized.append(commitOldest()) }
            provisional = provisionalLocation()
            if fix.validSpeed == nil, configuration.derivedSpeedBetaMeters.isFinite,
               provisional.speedMetersPerSecond >= 0 {
                // No receiver speed: the smoother's speed along the best path stands in for it in the next
                // transition (`derivedSpeedBetaMeters`).
                for i in step.states.indices where !step.states[i].isCoast {
                    step.states[i].referenceSpeed = provisional.speedMetersPerSecond
                }
            }
        }
        var update = MatchUpdate(provisional: provisional, finalized: finalized,
                                 firstFinalizedIndex: finalized.isEmpty ? nextFixIndex : firstIndex)
        if provisional.matched, let newest = window.last { update.routeLogOdds = routeLogOdds(of: newest) }
        return update
    }

    /// See `MatchUpdate.routeLogOdds`.
    private func routeLogOdds(of step: LatticeStep) -> Double? {
        guard let route else { return nil }
        var on = -Double.infinity
        var off = -Double.infinity
        for (i, s) in step.states.enumerated() where step.score[i].isFinite {
            if route.contains(edge: s.edge, offset: s.offset, tolerance: 5) {
                on = max(on, step.score[i])
            } else {
                off = max(off, step.score[i])
            }
        }
        if !on.isFinite && !off.isFinite { return nil }
        if !off.isFinite { return .infinity }
        if !on.isFinite { return -.infinity }
        return on - off
    }

    /// True when the oldest undecided fix has waited the lag: `lagFixes` later fixes and `lagSeconds`, or
    /// `maximumLagFixes` later fixes.
    private func oldestPendingIsDue() -> Bool {
        let pending = window.count - (hasRoot ? 1 : 0)
        let minimum = max(0, configuration.lagFixes)
        guard pending > minimum, let newest = window.last else { return false }
        if pending > max(minimum, configuration.maximumLagFixes) { return true }
        let oldest = window[hasRoot ? 1 : 0]
        return newest.fix.timestamp - oldest.fix.timestamp >= configuration.lagSeconds
    }

    /// Decides every pending fix (end of the trace) and returns their answers, oldest first.
    public func finish() -> [SnappedLocation] {
        var out: [SnappedLocation] = []
        flush(into: &out)
        return out
    }

    /// Forgets the trace (not the route): the next fix starts afresh.
    public func reset() {
        for s in window { recycle(s) }
        window.removeAll(keepingCapacity: true)
        hasRoot = false
        history.removeAll(keepingCapacity: true)
        historyStandingRun = 0
        pathEdges.removeAll(keepingCapacity: true)
        lastDecided = nil
        lastDecidedRoad = nil
        lastSpeedEstimate = nil
        lastRouteDistance = 0
        stationaryCount = 0
        heldCourse = nil
        inferredCourse = nil
        lastCourseAtSpeed = nil
        recentFixes.removeAll(keepingCapacity: true)
    }

    /// Dead reckoning for a time without fixes (a tunnel): the last known road position moved along the road
    /// (the active route where it continues, else the straightest way on) at the last speed, until `timestamp`.
    /// Nil before the first matched fix.
    public func deadReckonedLocation(at timestamp: Double) -> SnappedLocation? {
        guard let last = window.last, let best = last.bestState else { return lastDecided }
        let state = last.states[best]
        let speed = last.fix.validSpeed ?? lastSpeedEstimate ?? 0
        let elapsed = max(0, timestamp - state.referenceTime)
        let (e, o) = walkForward(from: state.edge, offset: state.offset, distance: speed * elapsed, toward: nil)
        return makeLocation(fix: LocationFix(coordinate: index.point(on: e, at: o), timestamp: timestamp,
                                             speedMetersPerSecond: speed),
                            edge: e, offset: o, source: .deadReckoned, speed: speed, final: false)
    }

    /// Speed (m/s) and direction (degrees) from a least-squares line through the recent positions (at most
    /// `speedInferenceFixes`, within `speedInferenceSeconds`), for fixes without a speed: enough to tell a
    /// standing vehicle from a moving one. The estimate is reduced by `speedInferenceMarginSigmas` of its own
    /// standard error (σ_z / √Σ(t − t̄)²
    /// per axis), so that a vehicle counts as moving only when the positions show it; up to
    /// `speedInferenceOutlierDrops` fixes far off the line are left out of it first. Nil with fewer than three
    /// fixes in the window or when disabled.
    private func inferredMotion(sigma: Double) -> (speed: Double, course: Double)? {
        guard configuration.speedInferenceFixes >= 3, let newest = recentFixes.last else { return nil }
        var first = recentFixes.count - 1
        while first > 0 && newest.time - recentFixes[first - 1].time <= configuration.speedInferenceSeconds {
            first -= 1
        }
        return lineMotion(recentFixes[first...], sigma: sigma)
    }

    /// `inferredCourseTurnDegrees`: a fix with a reported speed whose last interval (from the previous fix) points
    /// more than that away from the line through the recent positions: the vehicle turned within the line's window,
    /// whose direction is then that of several seconds ago. Only where the interval drove far enough
    /// (`inferredCourseTurnMinimumSigmas` σ at the reported speed) for its own direction to mean something.
    private func turnedWithinLine(_ fix: LocationFix, lineCourse: Double, sigma: Double) -> Bool {
        guard configuration.inferredCourseTurnDegrees > 0, let speed = fix.validSpeed, recentFixes.count >= 2 else {
            return false
        }
        let previous = recentFixes[recentFixes.count - 2]
        guard speed * (fix.timestamp - previous.time) >= configuration.inferredCourseTurnMinimumSigmas * sigma else {
            return false
        }
        let chord = Geodesy.initialBearingDegrees(from: previous.coordinate, to: fix.coordinate)
        return Geodesy.bearingDifferenceDegrees(chord, lineCourse) > configuration.inferredCourseTurnDegrees
    }

    /// The line of `inferredMotion` through `fixes`: speed less the margin, and direction (that of increasing time
    /// when they are in time order). The last fix is never left out as an outlier. Nil with fewer than three.
    private func lineMotion(_ fixes: ArraySlice<(time: Double, coordinate: Coordinate)>,
                            sigma: Double) -> (speed: Double, course: Double)? {
        let n = fixes.count
        guard n >= 3, let newest = fixes.last else { return nil }
        let origin = newest.coordinate
        let ky = Geodesy.earthRadiusMeters * .pi / 180
        let kx = ky * cos(origin.latitude * .pi / 180)
        // The fixes in local metres; `dropped` marks those left out of the line (`speedInferenceOutlierSigmas`).
        var points: [(t: Double, x: Double, y: Double, dropped: Bool)] = []
        swap(&points, &speedInferencePoints)
        defer { swap(&points, &speedInferencePoints) }
        points.removeAll(keepingCapacity: true)
        for f in fixes {
            points.append((f.time, (f.coordinate.longitude - origin.longitude) * kx,
                           (f.coordinate.latitude - origin.latitude) * ky, false))
        }
        var kept = n
        var vx = 0.0, vy = 0.0, stt = 0.0
        while true {
            var st = 0.0, sx = 0.0, sy = 0.0
            for p in points where !p.dropped { st += p.t; sx += p.x; sy += p.y }
            let mt = st / Double(kept), mx = sx / Double(kept), my = sy / Double(kept)
            var stx = 0.0, sty = 0.0
            stt = 0
            for p in points where !p.dropped {
                let dt = p.t - mt
                stt += dt * dt
                stx += dt * (p.x - mx)
                sty += dt * (p.y - my)
            }
            guard stt > 0 else { return nil }
            vx = stx / stt
            vy = sty / stt
            // One outlier among a standing vehicle's fixes tilts the line for as long as it stays in the window
            // (12 s): leave out the fix farthest off the line, never the newest, while it lies more than
            // `speedInferenceOutlierSigmas` σ off, keeping at least three fixes.
            guard configuration.speedInferenceOutlierSigmas > 0, n - kept < configuration.speedInferenceOutlierDrops,
                  kept > 3 else { break }
            var worst = -1
            var worstSquared = configuration.speedInferenceOutlierSigmas * sigma
            worstSquared *= worstSquared
            for i in 0..<(n - 1) where !points[i].dropped {
                let dt = points[i].t - mt
                let ex = points[i].x - mx - vx * dt, ey = points[i].y - my - vy * dt
                if ex * ex + ey * ey > worstSquared { worstSquared = ex * ex + ey * ey; worst = i }
            }
            if worst < 0 { break }
            points[worst].dropped = true
            kept -= 1
        }
        let standardError = sigma / stt.squareRoot()
        let speed = max(0, (vx * vx + vy * vy).squareRoot() - configuration.speedInferenceMarginSigmas * standardError)
        return (speed, Geodesy.normalizedDegrees(atan2(vx, vy) * 180 / .pi))
    }

    /// `positionsOnlyStandingLookAhead`: a pending fix without a speed taken as moving, just before a fix taken
    /// standing, was standing after all when the standing test looking ahead (the line through it and the fixes of
    /// the next `speedInferenceSeconds`) cannot show it moving. Walks back from the newest pending step whose
    /// look-ahead window is complete (a later fix lies beyond it) through the standing steps to the one before
    /// them, and marks it and those before it while the test holds. A marked step counts as standing for the
    /// smoother and the final answer (`positionsOnlyStandingRunSmoothing` averages it with its stop); its road
    /// states, and the observations of the steps after it, stay as they were built.
    private func markStandingInHindsight() {
        guard configuration.positionsOnlyStandingLookAhead, configuration.speedInferenceFixes >= 3,
              let newest = window.last else { return }
        let firstPending = hasRoot ? 1 : 0
        var p = window.count - 2
        while p >= firstPending && newest.fix.timestamp - window[p].fix.timestamp <= configuration.speedInferenceSeconds
                && window.count - 1 - p < configuration.speedInferenceFixes {
            p -= 1
        }
        while p >= firstPending {
            let s = window[p]
            if s.standing {
                p -= 1
                continue
            }
            guard !s.isStart, s.fix.validSpeed == nil, window[p + 1].standing, let v = lookAheadSpeed(from: p),
                  v < configuration.stationarySpeedMetersPerSecond else { return }
            s.standing = true
            p -= 1
        }
    }

    /// The inferred speed (`lineMotion`) of window[p]'s fix from it and the fixes after it within
    /// `speedInferenceSeconds` (at most `speedInferenceFixes`); nil when they are fewer than three or more than
    /// `positionsOnlyStandingLookAheadMaximumFixes`.
    private func lookAheadSpeed(from p: Int) -> Double? {
        let t0 = window[p].fix.timestamp
        var last = p
        while last + 1 < window.count && last + 1 - p < configuration.speedInferenceFixes
                && window[last + 1].fix.timestamp - t0 <= configuration.speedInferenceSeconds {
            last += 1
        }
        guard last - p >= 2, last - p < configuration.positionsOnlyStandingLookAheadMaximumFixes else { return nil }
        lookAheadFixes.removeAll(keepingCapacity: true)
        // Newest first, so that the fix tested comes last: the line never leaves it out.
        for q in stride(from: last, through: p, by: -1) {
            lookAheadFixes.append((window[q].fix.timestamp, window[q].fix.coordinate))
        }
        return lineMotion(lookAheadFixes[...], sigma: window[p].rawSigma)?.speed
    }

    // MARK: Lattice construction

    private func takeStep() -> LatticeStep { spareSteps.popLast() ?? LatticeStep() }

    private func recycle(_ step: LatticeStep) { spareSteps.append(step) }

    private func addRoadStates(to step: LatticeStep) {
        let fix = step.fix
        let observed = step.observed
        index.candidates(near: observed, radius: step.radius, mode: mode,
                         maximumRoads: configuration.maximumCandidateRoads,
                         maximumClosedRoads: includesClosedRoads ? configuration.maximumClosedCandidateRoads : 0,
                         into: &candidateBuffer, scratch: &scratch)
        let sigma = step.sigma
        var course: Double? = {
            guard configuration.courseWeight > 0, let c = fix.validCourse else { return nil }
            if let v = fix.validSpeed, v < configuration.minimumSpeedForCourseMetersPerSecond { return nil }
            return c
        }()
        var courseWeight = configuration.courseWeight
        if course == nil, let c = inferredCourse {
            course = c
            courseWeight = configuration.inferredCourseWeight
            heldCourse = (c, fix.timestamp, courseWeight)
        } else if let c = course {
            heldCourse = (c, fix.timestamp, courseWeight)
        } else if stationaryCount > 0, let held = heldCourse,
                  fix.timestamp - held.time <= configuration.standingCourseHoldSeconds {
            // A standing vehicle still points the way it was driving: it waits on its own road, not on the
            // cross street whose start lies as near to the averaged fixes.
            course = held.degrees
            courseWeight = held.weight
        }
        let speed = fix.validSpeed ?? -1
        let standing = stationaryCount > 0
        // The raw fix relative to the observed point (they differ while a standing vehicle's mean is observed).
        let projection = LocalProjection(origin: observed)
        let raw = observed == fix.coordinate ? (x: 0.0, y: 0.0) : projection.project(fix.coordinate)
        // A receiver's course at speed rules out the opposite direction (`oppositeDirectionSpeedMetersPerSecond`),
        // as long as some candidate runs the fix's way.
        // Only when the fix before at speed pointed the same way (within 45°): a single course glitch must not take
        // the vehicle's own direction away.
        // `steadyCourse`: the course candidates must not run against (nil: none is left out).
        var steadyCourse: Double?
        let lastCourse = lastCourseAtSpeed
        lastCourseAtSpeed = nil
        if let c = fix.validCourse, let v = fix.validSpeed, v >= configuration.oppositeDirectionSpeedMetersPerSecond {
            lastCourseAtSpeed = c
            if let last = lastCourse, Geodesy.bearingDifferenceDegrees(c, last) <= 45,
               candidateBuffer.contains(where: { !runsAgainst(c, $0) })
            {
                steadyCourse = c
            }
        }
        let logSigma = log(sigma)
        for c in candidateBuffer {
            if let steadyCourse, runsAgainst(steadyCourse, c) { continue }
            let highwayClass = index.graph.highwayClass(of: c.edge)
            // Vehicles drive in lanes, not on the drawn centre line: on wide roads the distance that counts is
            // the distance beyond the lanes (see `laneToleranceMeters`).
            let distance = max(0, c.distance - configuration.laneToleranceMeters(for: highwayClass))
            var emission = -0.5 * (distance / sigma) * (distance / sigma) - logSigma
            if let course {
                let diff = Geodesy.bearingDifferenceDegrees(course, index.bearing(on: c.edge, at: c.offset))
                emission -= courseWeight * (1 - cos(diff * .pi / 180))
            }
            if let route, route.contains(edge: c.edge, offset: c.offset, tolerance: 5) {
                emission += configuration.routeBonus
            }
            if standing && index.length(of: c.edge) - c.offset <= configuration.stopLineZoneMeters
                && index.isWaitingPoint(index.graph.target(of: c.edge)) {
                // Queues start at the stop line before a junction or signal.
                emission += configuration.standingBeforeJunctionBonus
            }
            if standing && c.offset < configuration.junctionClearanceMeters
                && index.isWaitingPoint(index.graph.source(of: c.edge)) {
                // Vehicles wait at stop lines before a junction, not just past it.
                emission -= configuration.standingPastJunctionPenalty
            }
            switch highwayClass {
            case .service, .track, .busway, .pedestrian: emission -= configuration.minorRoadPenalty
            default: break
            }
            if c.closed { emission -= configuration.closedRoadPenalty }
            var state = LatticeState(
                edge: c.edge, offset: c.offset, distance: c.distance, emission: emission, coastCount: 0,
                referenceLatitude: observed.latitude, referenceLongitude: observed.longitude,
                referenceTime: fix.timestamp, referenceSpeed: speed)
            if raw.x != 0 || raw.y != 0 {
                let bearing = index.bearing(on: c.edge, at: c.offset) * .pi / 180
                state.alongDelta = raw.x * sin(bearing) + raw.y * cos(bearing)
            }
            step.states.append(state)
        }
    }

    /// A candidate more than this far from the fix's course runs against it (`oppositeDirectionSpeedMetersPerSecond`),
    /// degrees.
    static let oppositeDegrees = 135.0

    /// Whether candidate `c`'s road runs more than `oppositeDegrees` from `course` where it lies.
    private func runsAgainst(_ course: Double, _ c: RoadCandidate) -> Bool {
        Geodesy.bearingDifferenceDegrees(course, index.bearing(on: c.edge, at: c.offset)) > Self.oppositeDegrees
    }

    private func startStep(_ step: LatticeStep) {
        // Drop coasting states a failed link may have added.
        step.states.removeAll { $0.isCoast }
        step.isStart = true
        step.previousCount = 0
        step.transition.removeAll(keepingCapacity: true)
        step.advance.removeAll(keepingCapacity: true)
        step.score.removeAll(keepingCapacity: true)
        step.back.removeAll(keepingCapacity: true)
        var top = -Double.infinity
        for s in step.states { top = max(top, s.emission) }
        for s in step.states {
            step.score.append(s.emission - top)
            step.back.append(-1)
        }
    }

    /// β for fixes `dt` seconds apart whose newer observation has σ_z = `sigma`.
    @inline(__always) private func beta(_ dt: Double, sigma: Double) -> Double {
        max(configuration.betaMeters, configuration.betaPerSigma * sigma)
            + configuration.betaGrowthMetersPerSecond * max(0, dt - 1)
    }

    /// Adds coasting states and the transition matrix from `previous`, and computes scores.
    private func linkStep(_ step: LatticeStep, to previous: LatticeStep) {
        let fix = step.fix
        let roadCount = step.states.count
        // Coasting states: continue from the best previous states.
        let dtStep = max(0.2, fix.timestamp - previous.fix.timestamp)
        // A coasted fix skips its emission and one transition: charge the emission of a road `outlierSigmas`·σ
        // away plus what a typical transition costs (normalisation and a deviation of about σ), so that only fixes
        // worse than that are coasted.
        let betaStep = beta(dtStep, sigma: step.sigma)
        var coastLog = -0.5 * configuration.outlierSigmas * configuration.outlierSigmas - log(step.sigma)
            - log(betaStep) - step.sigma / betaStep
        let derivedSpeeds = fix.validSpeed == nil && configuration.derivedSpeedBetaMeters.isFinite
        if fix.validSpeed != nil {
            let speedBeta = configuration.speedBetaMeters + configuration.speedBetaGrowthMetersPerSecond * dtStep
            coastLog -= log(speedBeta) + step.sigma / speedBeta
        } else if derivedSpeeds, previous.states.contains(where: { $0.referenceSpeed >= 0 }) {
            let speedBeta = configuration.derivedSpeedBetaMeters
                + configuration.derivedSpeedBetaGrowthMetersPerSecond * dtStep
            coastLog -= log(speedBeta) + step.sigma / speedBeta
        }
        var coastSources: [(index: Int, score: Double)] = []
        swap(&coastSources, &coastSourceBuffer)
        defer { swap(&coastSources, &coastSourceBuffer) }
        coastSources.removeAll(keepingCapacity: true)
        // The `coastAnchors` best, best first, equal scores in state order (what a stable sort of all of them kept):
        // each goes in after the kept ones that score at least as well.
        let anchors = max(0, configuration.coastAnchors)
        do {
            let states = previous.states, scores = previous.score
            for a in states.indices where scores[a].isFinite {
                guard states[a].coastCount < configuration.maximumCoastedFixes,
                      fix.timestamp - states[a].referenceTime <= configuration.maximumCoastSeconds else { continue }
                let score = scores[a]
                var i = coastSources.count
                while i > 0 && coastSources[i - 1].score < score { i -= 1 }
                guard i < anchors else { continue }
                coastSources.insert((a, score), at: i)
                if coastSources.count > anchors { coastSources.removeLast() }
            }
        }
        for (a, _) in coastSources {
            var s = previous.states[a]
            s.coastCount += 1
            s.emission = 0
            s.distance = .infinity
            step.states.append(s)
        }
        let n = step.states.count
        let m = previous.states.count
        step.isStart = false
        step.previousCount = m
        // Local copies (moved out of the step, moved back at the end) keep exclusivity checks out of the loops.
        var transition: [Double] = []
        var advance: [Double] = []
        swap(&transition, &step.transition)
        swap(&advance, &step.advance)
        let states = step.states
        let previousStates = previous.states
        let previousScore = previous.score
        transition.refill(-Double.infinity, count: m * n)
        advance.refill(0.0, count: m * n)
        for (k, (a, _)) in coastSources.enumerated() {
            transition[a * n + roadCount + k] = coastLog
        }

        let edgeSource = index.edgeSource, edgeTarget = index.edgeTarget
        let fixSpeed = fix.validSpeed
        let speedWithoutCourse = (fixSpeed ?? 0) >= configuration.signedMoveMinimumSpeedMetersPerSecond
            && fix.validCourse == nil
        var bestPrevious = -Double.infinity
        for s in previousScore where s > bestPrevious { bestPrevious = s }
        let tolerance = configuration.backwardJitterToleranceMeters
        let driftLimit = configuration.maximumBackwardDriftMeters
        let observedHere = step.observed
        let radii = previous.radius + step.radius
        var targets: [(node: NodeID, withinMeters: Double)] = []
        swap(&targets, &searchTargets)
        defer { swap(&targets, &searchTargets) }
        if targets.count < roadCount {
            targets.append(contentsOf: repeatElement((node: NodeID(0), withinMeters: 0.0), count: roadCount - targets.count))
        }
        // The previous step's road states share one reference point (its observation): one great-circle distance.
        var lastReference = (latitude: Double.nan, longitude: Double.nan, distance: 0.0)
        // ... and one time: β, the speed term's scale, the braking and pulling-away allowances and logarithms, once per
        // time gap.
        var lastGap = (
            dt: Double.nan, beta: 0.0, logBeta: 0.0, speedBeta: 0.0, logSpeedBeta: 0.0, brakingMeters: 0.0,
            acceleratingMeters: 0.0
        )
        // Written through spans: one uniqueness check per array, not one per state pair (bounds still checked).
        do {
            var transitionRow = transition.mutableSpan
            var advanceRow = advance.mutableSpan
            for a in 0..<m where previousScore[a] >= bestPrevious - configuration.pruneMargin && roadCount > 0 {
                let from = previousStates[a]
                let dt = max(0.2, fix.timestamp - from.referenceTime)
                if from.referenceLatitude != lastReference.latitude || from.referenceLongitude != lastReference.longitude {
                    lastReference = (from.referenceLatitude, from.referenceLongitude, Geodesy.distanceMeters(
                        Coordinate(latitude: from.referenceLatitude, longitude: from.referenceLongitude), observedHere))
                }
                let gc = lastReference.distance
                let reach = configuration.maximumSpeedMetersPerSecond * dt + radii
                let bound = min(reach, gc * configuration.routeSearchDistanceFactor + radii
                                + configuration.routeSearchSlackMeters)
                if !(dt == lastGap.dt) {
                    let b1 = beta(dt, sigma: step.sigma)
                    let speedBeta = fixSpeed != nil
                        ? configuration.speedBetaMeters + configuration.speedBetaGrowthMetersPerSecond * dt
                        : configuration.derivedSpeedBetaMeters + configuration.derivedSpeedBetaGrowthMetersPerSecond * dt
                    let braking = derivedSpeeds
                        ? 0.5 * max(0, configuration.derivedSpeedBrakingMetersPerSecondSquared) * dt * dt : 0
                    // Not for a fix of a standing run: its positions show no movement to allow for.
                    let accelerating = derivedSpeeds && !step.standing
                        && dt >= configuration.derivedSpeedAccelerationMinimumSeconds
                        ? 0.5 * max(0, configuration.derivedSpeedAccelerationMetersPerSecondSquared) * dt * dt : 0
                    lastGap = (dt, b1, log(b1), speedBeta, log(speedBeta), braking, accelerating)
                }
                let b1 = lastGap.beta, logBeta = lastGap.logBeta
                let speedBeta = lastGap.speedBeta, logSpeedBeta = lastGap.logSpeedBeta
                let brakingMeters = lastGap.brakingMeters
                let acceleratingMeters = lastGap.acceleratingMeters
                var expected: Double? = fixSpeed.flatMap { v in
                    from.referenceSpeed >= 0 ? 0.5 * (v + from.referenceSpeed) * dt : nil
                }
                if derivedSpeeds && from.referenceSpeed >= 0 { expected = from.referenceSpeed * dt }
                let stationary = (fixSpeed ?? .infinity) < configuration.stationarySpeedMetersPerSecond
                    && from.referenceSpeed >= 0 && from.referenceSpeed < configuration.stationarySpeedMetersPerSecond
                let edgeChangePenalty = stationary ? configuration.stationaryEdgeChangePenalty : 0
                let remaining = index.length(of: from.edge) - from.offset
                let twin = index.reverse(of: from.edge)
                // The road search from the end of this edge runs only when some candidate needs it.
                // Unretained: the cache keeps every tree used in this step (no per-pair retain and release).
                var tree: Unmanaged<DistanceTree>?
                var searched = false
                let treeBound = bound - remaining
                /// `d`: the distance travelled along the road, against the fixes' straight-line distance and the
                /// distance their speed implies. `along`: the same, negative when the move runs backwards on the road.
                /// For a moving fix without a course it replaces `d` in the speed term
                /// (`signedMoveMinimumSpeedMetersPerSecond`): nothing else tells which way a vehicle faces on a two-way
                /// road. With a course, without a speed or below that speed, backward jitter keeps counting as its
                /// length: on dense short ways and at stops the signed term cost accuracy at noise-sized backward moves.
                @inline(__always) func score(_ d: Double, _ penalty: Double, along: Double? = nil) -> Double {
                    var v = -abs(d - gc) / b1 - logBeta - penalty
                    if let expected {
                        let moved = speedWithoutCourse ? along ?? d : d
                        // A derived speed lags a braking vehicle: shorter moves get `brakingMeters` free
                        // (`derivedSpeedBrakingMetersPerSecondSquared`; 0 for fixes with a speed); and one pulling away:
                        // longer moves get `acceleratingMeters` (`derivedSpeedAccelerationMetersPerSecondSquared`).
                        let deviation = moved < expected
                            ? max(0, expected - moved - brakingMeters) : max(0, moved - expected - acceleratingMeters)
                        v -= deviation / speedBeta + logSpeedBeta
                    }
                    return v
                }
                for b in 0..<roadCount {
                    let to = states[b]
                    var best = -Double.infinity
                    var move = 0.0
                    if to.edge == from.edge && to.offset >= from.offset - tolerance
                        && from.backwardDriftMeters + (from.offset - to.offset) <= driftLimit {
                        let d = abs(to.offset - from.offset)
                        if d <= bound { best = score(d, 0, along: to.offset - from.offset); move = to.offset - from.offset }
                    }
                    if let twin, to.edge == twin {
                        // Turning round in the middle of the road.
                        let d = abs((index.length(of: twin) - to.offset) - from.offset)
                        if d <= bound {
                            let v = score(d, configuration.uTurnPenalty + edgeChangePenalty)
                            if v > best { best = v; move = d }
                        }
                    }
                    if to.edge == from.arrivedFrom && to.edge != twin && edgeTarget[Int(to.edge)] == edgeSource[Int(from.edge)] {
                        // Jitter backwards over the junction behind (a stopped car's fixes straddle the stop line).
                        let d = from.offset + index.length(of: to.edge) - to.offset
                        if d <= tolerance && from.backwardDriftMeters + d <= driftLimit {
                            let v = score(d, 0, along: -d)
                            if v > best { best = v; move = -d }
                        }
                    }
                    if to.edge == twin {
                        // Turning round at the junction ahead.
                        let d = remaining + to.offset
                        if d <= bound {
                            let v = score(d, configuration.uTurnPenalty + edgeChangePenalty)
                            if v > best { best = v; move = d }
                        }
                    }
                    let needsTree = to.edge != twin && (to.edge != from.edge || best == -.infinity)
                    if needsTree && !searched && treeBound > 0 && to.offset <= treeBound {
                        // The search needs to reach only the candidates' edges, each within what the bound leaves:
                        // written into the buffer's prefix (sized for every road state above).
                        var count = 0
                        do {
                            var buffer = targets.mutableSpan
                            for c in states[..<roadCount] where c.offset <= treeBound {
                                buffer[count] = (edgeSource[Int(c.edge)], treeBound - c.offset)
                                count += 1
                            }
                        }
                        tree = Unmanaged.passUnretained(
                            distances.tree(from: edgeTarget[Int(from.edge)], bound: treeBound, targets: targets[..<count]))
                        searched = true
                    }
                    if needsTree, let tree {
                        let node = edgeSource[Int(to.edge)]
                        let (via, last) = tree._withUnsafeGuaranteedRef { $0.label(of: node) }
                        if via.isFinite {
                            let d = remaining + via + to.offset
                            if d <= bound {
                                var penalty = to.edge == from.edge ? 0 : edgeChangePenalty
                                // A path that ends on the twin of its last edge turned round at a junction.
                                if via > 0, last != .max, index.edgeReverse[Int(last)] == to.edge {
                                    penalty += configuration.uTurnPenalty
                                }
                                let v = score(d, penalty)
                                if v > best { best = v; move = d }
                            }
                        }
                    }
                    transitionRow[a * n + b] = best
                    advanceRow[a * n + b] = move
                }
            }
        }
        // Restart links: from the best previous state to every road state, at a fixed cost, for when the vehicle
        // cannot have driven there (a wrong earlier decision, a real jump). NaN advance marks the break.
        if configuration.restartPenalty.isFinite, let top = previousScore.indices.max(by: { previousScore[$0] < previousScore[$1] }),
           previousScore[top].isFinite {
            for b in 0..<roadCount where transition[top * n + b] < -configuration.restartPenalty {
                transition[top * n + b] = -configuration.restartPenalty
                advance[top * n + b] = .nan
            }
        }
        swap(&transition, &step.transition)
        swap(&advance, &step.advance)
        step.score.refill(-Double.infinity, count: n)
        step.back.refill(Int32(-1), count: n)
        step.recompute(from: previous)
    }

    // MARK: Decisions

    /// The best path's state at window position `position`, traced back from the newest step.
    private func bestPath(into path: inout [Int]) {
        let window = self.window  // one access to the property, not one per step
        path.refill(-1, count: window.count)
        guard var s = window.last?.bestState else { return }
        for p in stride(from: window.count - 1, through: 0, by: -1) {
            path[p] = s
            if p > 0 {
                let b = Int(window[p].back[s])
                if b < 0 { break }
                s = b
            }
        }
    }

    private func commitOldest() -> SnappedLocation {
        let j = hasRoot ? 1 : 0
        var path: [Int] = []
        swap(&path, &pathBuffer)
        bestPath(into: &path)
        let k = path[j] >= 0 ? path[j] : (window[j].bestState ?? 0)
        swap(&path, &pathBuffer)
        let step = window[j]
        for x in 0..<step.score.count where x != k { step.score[x] = -.infinity }
        step.committed = k
        // Survivor paths usually merge within a few fixes: once a step comes out unchanged, so do all after it.
        for p in (j + 1)..<window.count where !window[p].isStart {
            if !window[p].recompute(from: window[p - 1]) { break }
        }
        let out = decide(position: j)
        if hasRoot { recycle(window.removeFirst()) }
        hasRoot = true
        return out
    }

    /// Decides all pending steps and empties the window.
    private func flush(into out: inout [SnappedLocation]) {
        while window.count - (hasRoot ? 1 : 0) > 0 { out.append(commitOldest()) }
        for s in window { recycle(s) }
        window.removeAll(keepingCapacity: true)
        hasRoot = false
    }

    /// Records the committed state of window[position] in the decided path and returns its smoothed location.
    private func decide(position j: Int) -> SnappedLocation {
        let window = self.window  // read only here: one access to the property
        let step = window[j]
        let k = step.committed
        let state = step.states[k]
        let fix = step.fix
        var continuing = !step.isStart && j > 0 && window[j - 1].committed >= 0
        if continuing && !state.isCoast && step.advance[window[j - 1].committed * step.states.count + k].isNaN {
            continuing = false  // a restart link: the decided path breaks here
        }
        if !continuing {
            history.removeAll(keepingCapacity: true)
            historyStandingRun = 0
            pathEdges.removeAll(keepingCapacity: true)
            lastDistance = 0
            lastDecidedRoad = nil
        }
        if state.isCoast {
            history.append(step.sample(distance: nil))
        } else {
            if continuing {
                let a = window[j - 1].committed
                let move = step.advance[a * step.states.count + k]
                let previousEdge = pathEdges.last?.edge
                lastDistance += move
                extendPath(from: previousEdge, to: state.edge, offset: state.offset, odometer: lastDistance)
            } else {
                pathEdges.append((state.edge, lastDistance - state.offset))
            }
            history.append(roadSample(step, state, distance: lastDistance + state.alongDelta))
            // The fix's distance from its decided road measures the noise (`residualSigmaAgreementFactor`, unused
            // when infinite); a standing vehicle's is that of its averaged fixes, so it is left out.
            if configuration.residualSigmaAgreementFactor.isFinite && !step.standing {
                noise.record(distanceMeters: state.distance, time: fix.timestamp)
            }
        }
        // A standing vehicle's earlier fixes of the same stop stay in the history (up to
        // `maximumStandingHistoryFixes`): they all measure the same point.
        historyStandingRun = step.standing ? historyStandingRun + 1 : 0
        var keep = max(1, configuration.smoothingHistoryFixes + 1)
            + min(max(0, historyStandingRun - 1), configuration.maximumStandingHistoryFixes)
        // Frequent fixes: also every fix of the last `smoothingHistorySeconds` (at most twice the fix count).
        var recent = 0
        for sample in history.reversed() where fix.timestamp - sample.time <= configuration.smoothingHistorySeconds {
            recent += 1
        }
        keep = max(keep, min(recent, 2 * keep))
        if history.count > keep { history.removeFirst(history.count - keep) }
        if pathEdges.count > 64 { pathEdges.removeFirst(pathEdges.count - 64) }

        // Samples: decided history, then the provisional best path after this fix.
        var samples: [OdometerSample] = []
        swap(&samples, &sampleBuffer)
        samples.removeAll(keepingCapacity: true)
        samples.append(contentsOf: history)
        var path: [Int] = []
        swap(&path, &pathBuffer)
        defer {
            swap(&samples, &sampleBuffer)
            swap(&path, &pathBuffer)
        }
        let target = samples.count - 1
        bestPath(into: &path)
        var provisionalDistance = lastDistance
        var nextRoad: (edge: EdgeID, offset: Double)?
        if j + 1 < window.count {
            var previousIndex = k
            for p in (j + 1)..<window.count {
                let s = window[p]
                guard !s.isStart, path[p] >= 0 else { break }
                let b = path[p]
                let st = s.states[b]
                if st.isCoast {
                    samples.append(s.sample(distance: nil))
                } else {
                    let move = s.advance[previousIndex * s.states.count + b]
                    if move.isNaN { break }  // the path breaks: later fixes say nothing about this one
                    provisionalDistance += move
                    samples.append(roadSample(s, st, distance: provisionalDistance + st.alongDelta))
                    if nextRoad == nil { nextRoad = (st.edge, st.offset) }
                }
                previousIndex = b
            }
        }
        let cut = AlongRoadSmoother.removeCornerCuts(&samples, target: target,
                                                     radiusMeters: configuration.cornerCutRadiusMeters)
        // The target's odometer in the smoother's frame (driven distance, corners cut).
        let here = lastDistance - cut
        let estimate = AlongRoadSmoother.estimate(samples[...], target: target, model: smootherModel)
        if let v = estimate.speed, v.isFinite { lastSpeedEstimate = max(0, v) }
        let location: SnappedLocation
        if state.isCoast {
            let anchorTime = lastDecidedRoad?.time ?? state.referenceTime
            var ahead: Double
            if let s = estimate.distance {
                ahead = s - here
            } else {
                ahead = (fix.validSpeed ?? lastSpeedEstimate ?? 0) * max(0, fix.timestamp - anchorTime)
            }
            // The smoothed estimate may lie behind the anchor when the anchor's own fix ran ahead along the road.
            let maxShift = configuration.maximumSmoothingShiftSigmas * step.sigma
            let (e, o) = ahead >= 0
                ? walkForward(from: state.edge, offset: state.offset, distance: ahead, toward: nextRoad)
                : walkBackward(from: state.edge, offset: state.offset, distance: min(-ahead, maxShift))
            location = makeLocation(fix: fix, edge: e, offset: o, source: .deadReckoned,
                                    speed: fix.validSpeed ?? estimate.speed, final: true)
        } else {
            let maxShift = configuration.maximumSmoothingShiftSigmas * step.sigma
            let shift = min(maxShift, max(-maxShift, (estimate.distance ?? here) - here))
            var (e, o) = shift >= 0
                ? walkForward(from: state.edge, offset: state.offset, distance: shift, toward: nextRoad)
                : walkBackward(from: state.edge, offset: state.offset, distance: -shift)
            if step.standing && o < configuration.standingApproachMeters {
                // Walked forward onto a later edge: the edge before it on that walk; else the decided path's.
                let before = e != state.edge && shift > 0
                    ? walkForward(from: state.edge, offset: state.offset, distance: max(0, shift - o - 0.01),
                                  toward: nextRoad).0
                    : decidedEdge(before: e)
                if let approach = approachEnd(of: before, to: e, offset: o) { (e, o) = approach }
            }
            location = makeLocation(fix: fix, edge: e, offset: o, source: .snapped,
                                    speed: fix.validSpeed ?? estimate.speed, final: true)
            lastDecidedRoad = (state.edge, state.offset, fix.timestamp)
        }
        lastDecided = location
        return location
    }

    /// A road state's fix as a smoother sample at odometer `distance`, with its edge and the edge's directions
    /// (`AlongRoadSmoother.removeCornerCuts`).
    private func roadSample(_ step: LatticeStep, _ state: LatticeState, distance: Double) -> OdometerSample {
        var sample = step.sample(distance: distance)
        sample.edge = state.edge
        sample.entryBearing = index.entryBearings[Int(state.edge)]
        sample.exitBearing = index.exitBearings[Int(state.edge)]
        return sample
    }

    /// The edge the decided path took just before `edge`, if `edge` is on it.
    private func decidedEdge(before edge: EdgeID) -> EdgeID? {
        guard let i = pathEdges.lastIndex(where: { $0.edge == edge }), i > 0 else { return nil }
        return pathEdges[i - 1].edge
    }

    /// The edge of the newest pending step before the last one whose best-path state is on another edge than
    /// `edge`, if its path reaches that far back unbroken.
    private func pendingEdge(before edge: EdgeID, path: [Int]) -> EdgeID? {
        for p in stride(from: window.count - 2, through: 0, by: -1) {
            guard path[p] >= 0 else { return nil }
            let s = window[p].states[path[p]]
            if !s.isCoast && s.edge != edge { return s.edge }
        }
        return nil
    }

    /// True when `approach` ends where `edge` starts and `edge` does not turn back along it.
    private func leadsInto(_ approach: EdgeID, _ edge: EdgeID) -> Bool {
        approach != edge && index.edgeTarget[Int(approach)] == index.edgeSource[Int(edge)]
            && index.graph.reverseEdge(of: approach) != edge
    }

    /// Where a standing vehicle `offset` metres along `edge` is reported (`standingApproachMeters`): at the end of
    /// `approach`, the edge it came by, when that close to the start of `edge`; nil to leave it where it is.
    private func approachEnd(of approach: EdgeID?, to edge: EdgeID, offset: Double) -> (EdgeID, Double)? {
        guard offset < configuration.standingApproachMeters, let approach, leadsInto(approach, edge),
              !configuration.standingApproachAtWaitingNodesOnly || isWaitingNode(after: approach) else {
            return nil
        }
        return (approach, index.length(of: approach))
    }

    /// Whether vehicles wait at the node `approach` leads into (`standingApproachAtWaitingNodesOnly`): a signal there,
    /// or a junction, two or more other roads of any mode meeting it (`SignalJunctions.branchCount`).
    private func isWaitingNode(after approach: EdgeID) -> Bool {
        index.graph.flags(of: approach).contains(.trafficSignalsAtTarget)
            || SignalJunctions.branchCount(at: approach, graph: index.graph, usableBy: .all) >= 2
    }

    /// Appends the edges from the end of `previousEdge` to `edge` to the decided path.
    private func extendPath(from previousEdge: EdgeID?, to edge: EdgeID, offset: Double, odometer: Double) {
        let start = odometer - offset
        guard let previousEdge, let last = pathEdges.last else {
            pathEdges.append((edge, start))
            return
        }
        if previousEdge == edge && abs(last.start - start) < 1e-6 { return }
        if previousEdge != edge && index.graph.target(of: edge) == index.graph.source(of: previousEdge)
            && index.graph.reverseEdge(of: previousEdge) != edge && start + index.length(of: edge) <= last.start + 1e-6 {
            // Moved back over the junction behind: the last edge was entered by mistake.
            pathEdges.removeLast()
            if pathEdges.last?.edge != edge { pathEdges.append((edge, start)) }
            return
        }
        if previousEdge == edge && abs(last.start - start) < configuration.backwardJitterToleranceMeters + 1 {
            // Jitter on the same edge: keep the edge's start where it was.
            return
        }
        if let twin = index.graph.reverseEdge(of: previousEdge), twin == edge,
           abs(start - (last.start + index.length(of: previousEdge))) > 1 {
            pathEdges.append((edge, start))  // turned round mid-edge
            return
        }
        let bound = max(0, start - (last.start + index.length(of: previousEdge))) + 1
        if let between = distances.connectingEdges(from: previousEdge, to: edge, bound: bound) {
            var s = last.start + index.length(of: previousEdge)
            for e in between {
                pathEdges.append((e, s))
                s += index.length(of: e)
            }
        }
        pathEdges.append((edge, start))
    }

    /// Moves `distance` metres forward from (edge, offset): when `target` (the next fix's road position) is on
    /// another edge, along the shortest road path to it (never beyond its edge); else along the active route or the
    /// straightest continuation. The target is one noisy fix, so the walk may pass it.
    private func walkForward(from edge: EdgeID, offset: Double, distance: Double,
                             toward target: (edge: EdgeID, offset: Double)?) -> (EdgeID, Double) {
        let length = index.length(of: edge)
        // The next position is one noisy fix: the smoothed distance may lie past it, even past the end of its edge.
        if offset + distance <= length { return (edge, offset + distance) }
        var remaining = distance - (length - offset)
        if let target, target.edge != edge {
            if let between = distances.connectingEdges(from: edge, to: target.edge, bound: remaining + 1) {
                for e in between {
                    let l = index.length(of: e)
                    if remaining <= l { return (e, remaining) }
                    remaining -= l
                }
                return (target.edge, min(remaining, index.length(of: target.edge)))
            }
            return (edge, length)
        }
        var current = edge
        for _ in 0..<32 {
            guard let next = continuation(after: current) else { return (current, index.length(of: current)) }
            let l = index.length(of: next)
            if remaining <= l { return (next, remaining) }
            remaining -= l
            current = next
        }
        return (current, index.length(of: current))
    }

    /// Moves `distance` metres back along the decided path from (edge, offset).
    private func walkBackward(from edge: EdgeID, offset: Double, distance: Double) -> (EdgeID, Double) {
        if offset - distance >= 0 { return (edge, offset - distance) }
        var remaining = distance - offset
        var i = pathEdges.count - 1
        while i >= 0 && pathEdges[i].edge != edge { i -= 1 }
        i -= 1
        var last = (edge, 0.0)
        while i >= 0 {
            let e = pathEdges[i].edge
            let l = index.length(of: e)
            if remaining <= l { return (e, l - remaining) }
            remaining -= l
            last = (e, 0)
            i -= 1
        }
        return last
    }

    /// The next edge after `edge`: the active route's, else, of the open edges on (no U-turn), the one that turns
    /// least (dead reckoning), or with `onlyIfSingle` the only one, nil at a junction (a provisional position that
    /// ran past the edge's end: a guess at a junction is as often wrong as right, and at 5 s fixes the straightest
    /// continuation did worse than stopping at the node).
    private func continuation(after edge: EdgeID, onlyIfSingle: Bool = false) -> EdgeID? {
        let graph = index.graph
        if let route, let next = route.nextEdge(after: edge, near: lastRouteDistance),
           graph.source(of: next) == graph.target(of: edge) {
            return next
        }
        let heading = index.bearing(on: edge, at: index.length(of: edge))
        let twin = graph.reverseEdge(of: edge)
        var best: EdgeID?
        var bestTurn = Double.infinity
        let node = graph.target(of: edge)
        guard graph.isPassable(node: node, mode: mode) else { return nil }
        for e in graph.outgoingEdges(of: node) where e != twin && graph.access(of: e).contains(mode) {
            if onlyIfSingle {
                if best != nil { return nil }
                best = e
                continue
            }
            let turn = Geodesy.bearingDifferenceDegrees(heading, index.bearing(on: e, at: 0))
            if turn < bestTurn { bestTurn = turn; best = e }
        }
        return best
    }

    /// The newest fix's answer from the current best path (position smoothed with the decided history).
    private func provisionalLocation() -> SnappedLocation {
        let window = self.window  // read only here: one access to the property
        guard let step = window.last, let k = step.bestState else {
            return SnappedLocation.unmatched(window.last?.fix ?? LocationFix(coordinate: Coordinate(latitude: 0, longitude: 0), timestamp: 0))
        }
        let state = step.states[k]
        if state.isCoast {
            let speed = step.fix.validSpeed ?? lastSpeedEstimate ?? 0
            let (e, o) = walkForward(from: state.edge, offset: state.offset,
                                     distance: speed * max(0, step.fix.timestamp - state.referenceTime), toward: nil)
            return makeLocation(fix: step.fix, edge: e, offset: o, source: .deadReckoned, speed: speed, final: false)
        }
        // Odometer along the provisional path from the last decided position.
        var path: [Int] = []
        var samples: [OdometerSample] = []
        swap(&path, &pathBuffer)
        swap(&samples, &sampleBuffer)
        defer {
            swap(&path, &pathBuffer)
            swap(&samples, &sampleBuffer)
        }
        bestPath(into: &path)
        samples.removeAll(keepingCapacity: true)
        var distance = 0.0
        var rooted = false
        if hasRoot, window.count > 1, path[0] >= 0 {
            samples.append(contentsOf: history)
            distance = lastDistance
            rooted = true
        }
        var previousIndex = rooted ? path[0] : -1
        for p in (rooted ? 1 : 0)..<window.count {
            let s = window[p]
            let b = path[p]
            if b < 0 { break }
            if s.isStart && p > 0 {
                samples.removeAll(keepingCapacity: true)
                distance = 0
            } else if previousIndex >= 0 && !s.isStart && !s.states[b].isCoast {
                let move = s.advance[previousIndex * s.states.count + b]
                if move.isNaN {
                    samples.removeAll(keepingCapacity: true)
                } else {
                    distance += move
                }
            }
            let st = s.states[b]
            samples.append(st.isCoast ? s.sample(distance: nil) : roadSample(s, st, distance: distance + st.alongDelta))
            previousIndex = b
        }
        // The provisional answer looks back as it did with a lag of `provisionalLookBackFixes`: `smoothingHistorySeconds`
        // before the fix that many back (a standing vehicle's whole stop still counts). A longer lag leaves older
        // fixes undecided, and smoothing the newest fix with them along the still-changing best path lowered the
        // error p50 but raised the p95 (simulated Helsinki drives at 1 s, lag 20: 1.76 -> 1.59 m and 8.9 -> 9.9 m).
        let horizonStep = window[max(0, window.count - 1 - max(0, configuration.provisionalLookBackFixes))]
        let cutoff = horizonStep.fix.timestamp - configuration.smoothingHistorySeconds
        var standingFrom = samples.count
        while standingFrom > 0, let v = samples[standingFrom - 1].speed, v < configuration.stationarySpeedMetersPerSecond {
            standingFrom -= 1
        }
        var first = 0
        while first < samples.count - 1 && first < standingFrom && samples[first].time < cutoff { first += 1 }
        let cut = AlongRoadSmoother.removeCornerCuts(&samples, target: samples.count - 1,
                                                     radiusMeters: configuration.cornerCutRadiusMeters)
        let here = distance - cut
        let estimate = AlongRoadSmoother.estimate(samples[first...], target: samples.count - 1,
                                                  model: provisionalSmootherModel)
        let maxShift = configuration.maximumSmoothingShiftSigmas * step.sigma
        let shift = min(maxShift, max(-maxShift, (estimate.distance ?? here) - here))
        // The smoothed position may lie past either end of the state's edge (the newest fix fell on the other side
        // of a node): back onto the edge the best path came by, or on along the route or the road's only
        // continuation (`provisionalWalksAcrossNodes`); else it stops at the node.
        var e = state.edge
        var o = state.offset + shift
        let length = index.length(of: e)
        if o < 0 || (step.standing && o < configuration.standingApproachMeters) {
            let before = pendingEdge(before: e, path: path) ?? decidedEdge(before: e)
            if o < 0, configuration.provisionalWalksAcrossNodes, let b = before, leadsInto(b, e) {
                e = b
                o = max(0, index.length(of: b) + o)
            } else {
                o = max(0, o)
                if step.standing, let approach = approachEnd(of: before, to: e, offset: o) { (e, o) = approach }
            }
        } else if o > length {
            // A standing vehicle just past the node stands before it (see `standingApproachMeters`).
            let standsBefore = step.standing && o - length < configuration.standingApproachMeters
            if configuration.provisionalWalksAcrossNodes, !standsBefore, let next = continuation(after: e, onlyIfSingle: true) {
                o = min(index.length(of: next), o - length)
                e = next
            } else {
                o = length
            }
        }
        return makeLocation(fix: step.fix, edge: e, offset: o, source: .snapped,
                            speed: step.fix.validSpeed ?? estimate.speed, final: false)
    }

    private func makeLocation(fix: LocationFix, edge: EdgeID, offset: Double, source: SnappedLocation.Source,
                              speed: Double?, final: Bool) -> SnappedLocation {
        let graph = index.graph
        let snaps = mode == .driving || mode == .taxi || mode == .twoWheeler
        var routeDistance: Double?
        if let route {
            routeDistance = route.routeDistance(edge: edge, offset: offset, after: lastRouteDistance - 50, tolerance: 5)
            if final, let d = routeDistance { lastRouteDistance = max(lastRouteDistance, d) }
        }
        let course = snaps ? index.bearing(on: edge, at: offset) : (fix.validCourse ?? index.bearing(on: edge, at: offset))
        var location = SnappedLocation(
            coordinate: snaps ? index.point(on: edge, at: offset) : fix.coordinate,
            altitudeMeters: fix.altitudeMeters ?? .nan, courseDegrees: course,
            speedMetersPerSecond: speed.map { max(0, $0) } ?? -1, timestamp: fix.timestamp,
            horizontalAccuracyMeters: fix.validAccuracy ?? -1, matched: true, edge: edge, edgeOffsetMeters: offset,
            osmWayID: graph.osmWayID(of: edge), roadName: graph.name(of: edge), speedLimitKph: graph.speedLimitKph(of: edge),
            source: source, isOnRoute: routeDistance != nil, routeDistanceMeters: routeDistance)
        location.isOnClosedRoad = !graph.access(of: edge).contains(mode)
        return location
    }
}
