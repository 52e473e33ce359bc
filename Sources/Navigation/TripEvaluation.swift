import Foundation
import Geo
import MapMatching
import RoadGraph
import Routing
import TraceSimulation

/// Measures the navigator on simulated drives with known truth: arrivals (once, where, not early), reroutes on
/// drives that follow the route, detection delay on drives that leave it, and the remaining-time error at mid-trip.
/// Used by the accuracy tests and `NavigationBenchmark`. Deterministic; no clock (the caller may time `step`).
public struct TripEvaluator {
    public let graph: RoadGraph
    public let index: RoadGeometryIndex
    public var noise = DriveSimulationConfiguration()
    /// Seconds the vehicle stands at each waypoint (fixes keep coming). Default 30.
    public var dwellSeconds: Double = 30
    /// Every fix is moved this far to the right of the vehicle's true course (a vehicle driving in a lane beside
    /// the mapped centre line, standing included), metres; 0 = on the centre line. Default 0.
    public var laneOffsetMeters: Double = 0
    /// Which provider snaps the fixes.
    public var snapping: Snapping = .mapMatcher
    public var configuration = NavigatorConfiguration()
    /// Receives a line per notable event (reroutes, arrivals, misses) for diagnosis; nil = quiet.
    public var log: (@Sendable (String) -> Void)?

    public enum Snapping: String, Sendable { case nearestRoad, mapMatcher }

    public init(graph: RoadGraph, index: RoadGeometryIndex? = nil) {
        self.graph = graph
        self.index = index ?? RoadGeometryIndex(graph: graph)
    }

    /// The outcome of one trip.
    public struct TripResult: Sendable {
        /// Per waypoint: how many arrival events, and for the first the true distance (along the road) from the
        /// vehicle to the leg's end at that fix; positive = before it.
        public var arrivalCounts: [Int]
        public var arrivalRemainingMeters: [Double?]
        /// Straight-line distance from the true position to the leg's end (the waypoint on the road) at arrival.
        public var arrivalDistanceMeters: [Double?]
        public var reroutes: Int
        /// (predicted − actual) ÷ actual remaining time at the fix nearest mid-way along the first leg.
        public var midTripTimeError: Double?
        /// Fixes from the first fix on a road off the route to the reroute (1 = that fix), for leaving drives.
        public var fixesToReroute: Int?
        /// Fixes from the first fix whose true position is more than 10 m from the route (out of the road's
        /// corridor) to the reroute; 0 = rerouted before that.
        public var fixesToRerouteAfterCorridorExit: Int?
        public var fixCount: Int
    }

    /// Routes `waypoints` from `origin`, drives each leg with a stop at its end, and runs a navigator over it.
    /// - Parameters:
    ///   - knownTraffic: feed the true mean moving speed of every driven way as traffic before starting.
    ///   - leaveAfterFraction: when set, the drive leaves the route at the first junction past this fraction of
    ///     the first leg and never comes back (the evaluation then stops after the reroute).
    ///   - step: how each fix is processed (time it, or pass `{ $0.process($1) }`).
    public func run(
        origin: Coordinate, waypoints: [Coordinate], knownTraffic: Bool = false,
        leaveAfterFraction: Double? = nil, seed: UInt64,
        step: (NavigatorCore, RawFix) -> [NavigationEvent] = { $0.process($1) }
    ) -> TripResult? {
        let router = Router(graph: graph)
        var configuration = self.configuration
        if knownTraffic { configuration.fasterRouteMinimumSavingSeconds = .infinity }
        let snapper: any RoadSnappingProvider =
            snapping == .mapMatcher
            ? MapMatcherSnapper(index: index) : NearestRoadSnapper(graph: graph)
        let nav = NavigatorCore(graph: graph, router: router, snapper: snapper, configuration: configuration)
        nav.stopGuidanceAtArrival = false
        // The vehicle stands at the origin; one noisy fix there, then the navigator plans the trip, and the
        // simulated drive follows the navigator's own route.
        var originRNG = SplitMix64(seed: seed &+ 5000)
        let firstFix = RawFix(
            coordinate: LocalProjection(origin: origin).unproject(
                x: noise.positionSigmaMeters * originRNG.normal(),
                y: noise.positionSigmaMeters * originRNG.normal()),
            timestamp: Date(timeIntervalSince1970: noise.startTimestamp - noise.fixIntervalSeconds),
            horizontalAccuracyMeters: noise.reportedAccuracyMeters, speedMetersPerSecond: 0)
        _ = step(nav, firstFix)
        guard
            nav.setDestinations(waypoints.map { NavigationWaypoint(coordinate: $0) }, at: firstFix.timestamp).status
                == .ok
        else {
            return nil
        }
        let plannedLegs = nav.remainingRouteLegs

        // Drive every leg (or the leaving drive), stopping at each end.
        var fixes: [LocationFix] = []
        var truth: [TruthSample] = []
        var driven: [Int64: (meters: Double, seconds: Double)] = [:]  // per way, for the known traffic
        var legEndTruthTime: [Double] = []
        var legTruthStartIndex: [Int] = []
        var offRouteTruthTime: Double?
        var corridorExitTruthTime: Double?
        var clock = noise.startTimestamp
        for (i, leg) in plannedLegs.enumerated() {
            var config = noise
            config.startTimestamp = clock
            config.seed = seed &+ UInt64(i) &* 7919
            let simulator = DriveSimulator(index: index, configuration: config)
            let scale = { (p: RoadPosition) in
                p.offsetMeters * index.length(of: p.edge) / max(graph.lengthMeters(of: p.edge), 1e-9)
            }
            var edges = leg.edges
            var endOffset: Double? = scale(leg.end)
            if i == 0, let fraction = leaveAfterFraction {
                guard
                    let leaving = leavingEdges(
                        leg: leg, afterFraction: fraction, router: router, destination: leg.end.point)
                else { return nil }
                edges = leaving.edges
                endOffset = nil
                offRouteTruthTime = 0  // resolved below from the truth samples
                _ = leaving
            }
            let drive = simulator.drive(edges: edges, startOffset: scale(leg.start), endOffset: endOffset)
            legTruthStartIndex.append(truth.count)
            fixes += drive.fixes
            truth += drive.truth
            for (a, b) in zip(drive.truth, drive.truth.dropFirst()) {  // the known traffic: see below
                let seconds = b.timestamp - a.timestamp
                guard seconds > 0 else { continue }
                driven[a.osmWayID, default: (0, 0)].meters += max(0, b.distanceMeters - a.distanceMeters)
                driven[a.osmWayID, default: (0, 0)].seconds += seconds
            }
            guard let last = drive.truth.last else { return nil }
            if leaveAfterFraction != nil {
                let onRoute = Set(leg.edges)
                offRouteTruthTime = drive.truth.first { !onRoute.contains($0.edge) && $0.offsetMeters > 1 }?.timestamp
                let original = ActiveLeg(leg: leg, graph: graph)
                corridorExitTruthTime =
                    drive.truth.first {
                        $0.timestamp >= (offRouteTruthTime ?? .infinity)
                            && (original.project($0.coordinate)?.distanceFromRouteMeters ?? 0) > 10
                    }?.timestamp
                if (original.project(last.coordinate)?.distanceFromRouteMeters ?? 0) < 50 {
                    log?("skipped: the leaving road stays within 50 m of the route")
                    return nil
                }
                break
            }
            if Geodesy.distanceMeters(last.coordinate, leg.end.point) > 30 {
                // TraceSimulation stopped short of the leg's end (seen on a few Helsinki legs): not a navigator case.
                log?(
                    "skipped: the simulated drive of leg \(i) ends \(Int(Geodesy.distanceMeters(last.coordinate, leg.end.point))) m "
                        + "from the leg's end")
                return nil
            }
            legEndTruthTime.append(
                drive.truth.first { $0.distanceMeters >= (drive.truth.last?.distanceMeters ?? 0) - 2 }?.timestamp
                    ?? last.timestamp)
            // Stand at the waypoint (the simulator's last sample may precede the stop by one interval): noisy
            // fixes around the leg's end, speed 0.
            var rng = SplitMix64(seed: seed &+ 1000 &+ UInt64(i))
            var t = last.timestamp + noise.fixIntervalSeconds
            var parked = last
            parked.coordinate = leg.end.point
            parked.speedMetersPerSecond = 0
            parked.distanceMeters = max(last.distanceMeters, leg.distanceMeters)
            while t < last.timestamp + dwellSeconds {
                let p = LocalProjection(origin: parked.coordinate).unproject(
                    x: noise.positionSigmaMeters * rng.normal(),
                    y: noise.positionSigmaMeters * rng.normal())
                fixes.append(
                    LocationFix(
                        coordinate: p, timestamp: t, speedMetersPerSecond: 0,
                        horizontalAccuracyMeters: noise.reportedAccuracyMeters))
                var standing = parked
                standing.timestamp = t
                truth.append(standing)
                t += noise.fixIntervalSeconds
            }
            clock = t
        }

        let start = Date(timeIntervalSince1970: fixes.first?.timestamp ?? 0)
        var observations: [TrafficObservation] = []
        if knownTraffic {
            // A feed reports each way's travel speed (topics.md, `{prefix}/traffic`): the metres driven on it ÷ the
            // seconds spent on it, stops at its signals included (not the stand at a waypoint: the drives only).
            observations = driven.compactMap { way, d in
                d.meters > 0 && d.seconds > 0
                    ? TrafficObservation(osmWayID: way, speedKph: d.meters / d.seconds * 3.6, observedAt: start) : nil
            }
        }
        let raw = zip(fixes, truth).map { fix, sample in
            RawFix(
                coordinate: laneOffsetMeters == 0
                    ? fix.coordinate
                    : Geodesy.destination(
                        from: fix.coordinate, bearingDegrees: sample.courseDegrees + 90,
                        distanceMeters: laneOffsetMeters),
                timestamp: Date(timeIntervalSince1970: fix.timestamp),
                horizontalAccuracyMeters: fix.horizontalAccuracyMeters, courseDegrees: fix.courseDegrees,
                speedMetersPerSecond: fix.speedMetersPerSecond)
        }
        guard let first = raw.first else { return nil }
        if knownTraffic {
            // Known once the trip has started; the drive keeps to its route (no faster-route switch is measured).
            _ = nav.updateTraffic(observations, at: first.timestamp)
        }
        if let log, let summary = nav.currentRouteLeg, leaveAfterFraction == nil {
            let leg = plannedLegs[0]
            let legTruth = truth[0..<(legTruthStartIndex.count > 1 ? legTruthStartIndex[1] : truth.count)]
            let movingTime = zip(legTruth, legTruth.dropFirst()).filter { $0.0.speedMetersPerSecond > 0.1 }.count
            let stoppedTime = zip(legTruth, legTruth.dropFirst()).filter { $0.0.speedMetersPerSecond <= 0.1 }.count
            let signals = leg.edges.dropLast().filter { graph.flags(of: $0).contains(.trafficSignalsAtTarget) }.count
            log(
                "leg 0: \(Int(leg.distanceMeters)) m, \(leg.edges.count) edges, \(signals) signals; free flow \(Int(leg.durationSeconds)) s, "
                    + "model \(Int(summary.durationSeconds)) s, actual \(Int(legEndTruthTime[0] - truth[0].timestamp)) s "
                    + "(fix-steps moving \(movingTime), stopped \(stoppedTime), interval \(noise.fixIntervalSeconds))")
        }
        var result = TripResult(
            arrivalCounts: Array(repeating: 0, count: waypoints.count),
            arrivalRemainingMeters: Array(repeating: nil, count: waypoints.count),
            arrivalDistanceMeters: Array(repeating: nil, count: waypoints.count), reroutes: 0,
            midTripTimeError: nil, fixesToReroute: nil,
            fixesToRerouteAfterCorridorExit: nil, fixCount: raw.count)
        let firstLegLength = plannedLegs[0].distanceMeters
        var midRecorded = false
        var offFixes = 0
        var corridorFixes = 0
        var recentOnRoute: [Bool] = []
        var recentLogOdds: [Double] = []
        var recentBranchOdds: [Double] = []
        var lowestLogOdds: (value: Double, fix: Int)?
        for (i, fix) in raw.enumerated() {
            let sample = truth[i]
            if let leaving = offRouteTruthTime, sample.timestamp >= leaving { offFixes += 1 }
            if let exit = corridorExitTruthTime, sample.timestamp >= exit { corridorFixes += 1 }
            let legBefore = nav.activeLeg
            recentBranchOdds.append(nav.offRouteBranchLogOdds ?? .nan)
            let events = step(nav, fix)
            var snappedWay: Int64?
            for case .location(let l) in events {
                recentOnRoute.append(l.isOnRoute)
                snappedWay = l.osmWayID
            }
            let logOdds = nav.lastSnapped?.routeLogOdds ?? .nan
            recentLogOdds.append(logOdds)
            if logOdds < lowestLogOdds?.value ?? .infinity, nav.activeLeg != nil { lowestLogOdds = (logOdds, i) }
            if let log, leaveAfterFraction != nil, offFixes > 0, result.fixesToReroute == nil {
                let leg = nav.activeLeg
                let m = leg?.project(
                    fix.coordinate, fromMeters: (leg?.progressMeters ?? 0) - 60,
                    toMeters: (leg?.progressMeters ?? 0) + 600)
                let agrees = m.flatMap { mm in
                    fix.courseDegrees.map {
                        leg!.courseAgrees($0, atDistance: mm.distanceAlongLegMeters, toleranceDegrees: 60)
                    }
                }
                log(
                    "  off fix \(offFixes): onRoute \(recentOnRoute.last ?? false) matched way \(snappedWay.map(String.init) ?? "-") (truth \(sample.osmWayID)) raw-to-leg \(Int(m?.distanceFromRouteMeters ?? -1)) m, course \(Int(fix.courseDegrees ?? -1)) agrees \(agrees.map { String($0) } ?? "-"), speed \(fix.speedMetersPerSecond ?? -1), "
                        + "log-odds \(logOdds), divergence \(nav.offRouteDivergence), "
                        + "branch \(nav.offRouteBranchLogOdds.map { String(format: "%.1f", $0) } ?? "-"), "
                        + "leg bearing \(Int(m?.routeBearingDegrees ?? -1)), "
                        + "truth-to-leg \(Int(leg?.project(sample.coordinate)?.distanceFromRouteMeters ?? -1)) m"
                )
            }
            if !midRecorded && leaveAfterFraction == nil && nav.destinations.first?.index == 0
                && sample.distanceMeters >= firstLegLength / 2
            {
                midRecorded = true
                let actual = legEndTruthTime[0] - sample.timestamp
                if actual > 30 { result.midTripTimeError = (nav.timeToNextDestination - actual) / actual }
            }
            for event in events {
                switch event {
                case .arrival(let a):
                    result.arrivalCounts[a.waypoint.index] += 1
                    if result.arrivalRemainingMeters[a.waypoint.index] == nil {
                        let legIndex = a.waypoint.index
                        let legStart = legTruthStartIndex[legIndex]
                        let legTruth = truth[
                            legStart..<min(
                                truth.count,
                                legIndex + 1 < legTruthStartIndex.count ? legTruthStartIndex[legIndex + 1] : truth.count
                            )]
                        let total = legTruth.map(\.distanceMeters).max() ?? 0
                        result.arrivalRemainingMeters[legIndex] = total - sample.distanceMeters
                        result.arrivalDistanceMeters[legIndex] = Geodesy.distanceMeters(
                            sample.coordinate, plannedLegs[legIndex].end.point)
                        if let m = result.arrivalRemainingMeters[legIndex], m > 30 {
                            log?(
                                "early arrival at waypoint \(legIndex): \(Int(m)) m along still to go, "
                                    + "\(Int(result.arrivalDistanceMeters[legIndex] ?? -1)) m straight; true speed \(sample.speedMetersPerSecond), "
                                    + "fix speed \(fix.speedMetersPerSecond ?? -1), vehicle at \(Int(Geodesy.distanceMeters(a.vehicleCoordinate, plannedLegs[legIndex].end.point))) m by the navigator"
                            )
                        }
                    }
                    if a.remainingWaypoints > 0 { _ = nav.continueToNextDestination(at: fix.timestamp) }
                case .routeChanged(let r) where r.reason == .offRoute || r.reason == .fasterRoute:
                    result.reroutes += 1
                    let odds = recentLogOdds.suffix(6).map { $0.isFinite ? Int($0.rounded()) : ($0 > 0 ? 999 : -999) }
                    log?(
                        "fix \(i) t=\(sample.timestamp - noise.startTimestamp) \(r.reason.rawValue): truth edge \(sample.edge) way \(sample.osmWayID) "
                            + "speed \(sample.speedMetersPerSecond) dist \(sample.distanceMeters); fix off truth "
                            + "\(Geodesy.distanceMeters(fix.coordinate, sample.coordinate)) m; "
                            + "recent onRoute \(recentOnRoute.suffix(6)) log-odds "
                            + "\(odds) branch before "
                            + "\(recentBranchOdds.suffix(4).map { $0.isNaN ? "-" : String(format: "%.1f", $0) })"
                    )
                    if let log, let leg = legBefore {
                        let m = leg.project(fix.coordinate)
                        let t = leg.project(sample.coordinate)
                        log("    old leg: progress \(Int(leg.progressMeters)) of \(Int(leg.lengthMeters)); fix at along \(Int(m?.distanceAlongLegMeters ?? -1)) "
                            + "\(Int(m?.distanceFromRouteMeters ?? -1)) m off, bearing there \(Int(m?.routeBearingDegrees ?? -1)); truth at along "
                            + "\(Int(t?.distanceAlongLegMeters ?? -1)) \(Int(t?.distanceFromRouteMeters ?? -1)) m off; fix course \(Int(fix.courseDegrees ?? -1)) "
                            + "truth course \(Int(sample.courseDegrees)); leg edges \(leg.leg.edges.prefix(3)) truth edge \(sample.edge)")
                    }
                    if leaveAfterFraction != nil, result.fixesToReroute == nil, offFixes > 0 {
                        result.fixesToReroute = offFixes
                        result.fixesToRerouteAfterCorridorExit = corridorFixes
                    }
                default: break
                }
            }
            if leaveAfterFraction != nil && result.fixesToReroute != nil { break }
        }
        if leaveAfterFraction == nil, let lowest = lowestLogOdds {
            log?("lowest route log-odds \(lowest.value) at fix \(lowest.fix) of \(raw.count)")
        }
        for (k, count) in result.arrivalCounts.enumerated() where count != 1 && leaveAfterFraction == nil {
            let end = nav.currentRouteLeg?.destinationCoordinate
            let vehicle = truth.last!.coordinate
            let closest = nav.activeLeg.flatMap { $0.project(vehicle) }
            log?(
                "waypoint \(k): \(count) arrivals; remaining at end \(nav.distanceToNextDestination) m; current \(nav.destinations.first?.index ?? -1); "
                    + "vehicle to leg end \(end.map { Geodesy.distanceMeters($0, vehicle) } ?? -1) m; vehicle nearest leg point at along "
                    + "\(closest?.distanceAlongLegMeters ?? -1) of \(nav.activeLeg?.lengthMeters ?? -1), \(closest?.distanceFromRouteMeters ?? -1) m off; "
                    + "truth route end \(Geodesy.distanceMeters(plannedLegs[k].end.point, vehicle)) m")
        }
        return result
    }

    /// Route edges up to the first junction past `fraction` of the leg, then a different road for ~400 m.
    /// The deviation must leave a way back to the destination (a oneway out of the extract would make any reroute
    /// impossible, which measures the map, not the navigator).
    private func leavingEdges(leg: RouteLeg, afterFraction fraction: Double, router: Router, destination: Coordinate)
        -> (edges: [EdgeID], leaveIndex: Int)?
    {
        let onRoute = Set(leg.edges)
        var along = 0.0
        for (k, e) in leg.edges.enumerated().dropLast() {
            along += graph.lengthMeters(of: e)
            guard along >= fraction * leg.distanceMeters else { continue }
            let node = graph.target(of: e)
            let next = leg.edges[k + 1]
            let reverse = graph.reverseEdge(of: e)
            let options = graph.outgoingEdges(of: node).filter {
                $0 != next && $0 != reverse && !onRoute.contains($0) && graph.access(of: $0).contains(.driving)
                    && graph.isTurnAllowed(from: e, to: $0, mode: .driving)
                    && !(graph.reverseEdge(of: $0).map { onRoute.contains($0) } ?? false)
            }
            guard let branch = options.first else { continue }
            var edges = Array(leg.edges[0...k]) + [branch]
            var length = graph.lengthMeters(of: branch)
            var current = branch
            while length < 400 {
                let back = graph.reverseEdge(of: current)
                guard
                    let continuation = graph.outgoingEdges(of: graph.target(of: current)).first(where: {
                        $0 != back && !onRoute.contains($0) && graph.access(of: $0).contains(.driving)
                            && graph.isTurnAllowed(from: current, to: $0, mode: .driving) && !edges.contains($0)
                    })
                else { break }
                edges.append(continuation)
                length += graph.lengthMeters(of: continuation)
                current = continuation
            }
            let end = graph.geometry(of: current).last!
            let back = router.route(
                RouteRequest(
                    origin: Waypoint(
                        end, preferredHeadingDegrees: index.bearing(on: current, at: index.length(of: current))),
                    destinations: [Waypoint(destination)]))
            if length >= 60 && back.status == .ok { return (edges, k + 1) }
        }
        return nil
    }
}
