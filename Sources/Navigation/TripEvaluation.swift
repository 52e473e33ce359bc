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
    /// Which provider snaps the fixes.
    public var snapping: Snapping = .mapMatcher
    public var configuration = NavigatorConfiguration()

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
        public var reroutes: Int
        /// (predicted − actual) ÷ actual remaining time at the fix nearest mid-way along the first leg.
        public var midTripTimeError: Double?
        /// Fixes from the first fix truly off the route to the reroute (1 = that fix), for leaving drives.
        public var fixesToReroute: Int?
        public var fixCount: Int
    }

    /// Routes `waypoints` from `origin`, drives each leg with a stop at its end, and runs a navigator over it.
    /// - Parameters:
    ///   - knownTraffic: feed the true mean moving speed of every driven way as traffic before starting.
    ///   - leaveAfterFraction: when set, the drive leaves the route at the first junction past this fraction of
    ///     the first leg and never comes back (the evaluation then stops after the reroute).
    ///   - step: how each fix is processed (time it, or pass `{ $0.process($1) }`).
    public func run(origin: Coordinate, waypoints: [Coordinate], knownTraffic: Bool = false,
                    leaveAfterFraction: Double? = nil, seed: UInt64,
                    step: (NavigatorCore, RawFix) -> [NavigationEvent] = { $0.process($1) }) -> TripResult? {
        let router = Router(graph: graph)
        let request = RouteRequest(origin: Waypoint(origin), destinations: waypoints.map { Waypoint($0) })
        guard let route = router.route(request).route else { return nil }

        // Drive every leg (or the leaving drive), stopping at each end.
        var fixes: [LocationFix] = []
        var truth: [TruthSample] = []
        var legEndTruthTime: [Double] = []
        var legTruthStartIndex: [Int] = []
        var offRouteTruthTime: Double?
        var clock = noise.startTimestamp
        for (i, leg) in route.legs.enumerated() {
            var config = noise
            config.startTimestamp = clock
            config.seed = seed &+ UInt64(i) &* 7919
            let simulator = DriveSimulator(index: index, configuration: config)
            let scale = { (p: RoadPosition) in p.offsetMeters * index.length(of: p.edge) / max(graph.lengthMeters(of: p.edge), 1e-9) }
            var edges = leg.edges
            var endOffset: Double? = scale(leg.end)
            if i == 0, let fraction = leaveAfterFraction {
                guard let leaving = leavingEdges(leg: leg, afterFraction: fraction) else { return nil }
                edges = leaving.edges
                endOffset = nil
                offRouteTruthTime = 0  // resolved below from the truth samples
                _ = leaving
            }
            let drive = simulator.drive(edges: edges, startOffset: scale(leg.start), endOffset: endOffset)
            legTruthStartIndex.append(truth.count)
            fixes += drive.fixes
            truth += drive.truth
            guard let last = drive.truth.last else { return nil }
            if leaveAfterFraction != nil {
                let onRoute = Set(leg.edges)
                offRouteTruthTime = drive.truth.first { !onRoute.contains($0.edge) && $0.offsetMeters > 1 }?.timestamp
                break
            }
            legEndTruthTime.append(drive.truth.first { $0.distanceMeters >= (drive.truth.last?.distanceMeters ?? 0) - 2 }?.timestamp
                ?? last.timestamp)
            // Stand at the waypoint: noisy fixes around the end, speed 0.
            var rng = SplitMix64(seed: seed &+ 1000 &+ UInt64(i))
            var t = last.timestamp + noise.fixIntervalSeconds
            while t < last.timestamp + dwellSeconds {
                let p = LocalProjection(origin: last.coordinate).unproject(x: noise.positionSigmaMeters * rng.normal(),
                                                                             y: noise.positionSigmaMeters * rng.normal())
                fixes.append(LocationFix(coordinate: p, timestamp: t, speedMetersPerSecond: 0,
                                         horizontalAccuracyMeters: noise.reportedAccuracyMeters))
                var standing = last
                standing.timestamp = t
                truth.append(standing)
                t += noise.fixIntervalSeconds
            }
            clock = t
        }

        let snapper: any RoadSnappingProvider = snapping == .mapMatcher
            ? MapMatcherSnapper(index: index) : NearestRoadSnapper(graph: graph)
        let nav = NavigatorCore(graph: graph, router: router, snapper: snapper, configuration: configuration)
        nav.stopGuidanceAtArrival = false
        let start = Date(timeIntervalSince1970: fixes.first?.timestamp ?? 0)
        if knownTraffic {
            var moving: [Int64: (meters: Double, seconds: Double)] = [:]
            for (a, b) in zip(truth, truth.dropFirst()) where a.speedMetersPerSecond > 1 && a.osmWayID == b.osmWayID {
                let dt = b.timestamp - a.timestamp
                moving[a.osmWayID, default: (0, 0)].meters += a.speedMetersPerSecond * dt
                moving[a.osmWayID, default: (0, 0)].seconds += dt
            }
            _ = nav.updateTraffic(moving.compactMap { way, m in
                m.seconds > 0 ? TrafficObservation(osmWayID: way, speedKph: m.meters / m.seconds * 3.6, observedAt: start) : nil
            }, at: start)
        }
        let raw = fixes.map {
            RawFix(coordinate: $0.coordinate, timestamp: Date(timeIntervalSince1970: $0.timestamp),
                   horizontalAccuracyMeters: $0.horizontalAccuracyMeters, courseDegrees: $0.courseDegrees,
                   speedMetersPerSecond: $0.speedMetersPerSecond)
        }
        guard let first = raw.first else { return nil }
        _ = step(nav, first)
        guard nav.setDestinations(waypoints.map { NavigationWaypoint(coordinate: $0) }, at: first.timestamp).status == .ok else {
            return nil
        }
        var result = TripResult(arrivalCounts: Array(repeating: 0, count: waypoints.count),
                                arrivalRemainingMeters: Array(repeating: nil, count: waypoints.count), reroutes: 0,
                                midTripTimeError: nil, fixesToReroute: nil, fixCount: raw.count)
        let firstLegLength = route.legs[0].distanceMeters
        var midRecorded = false
        var offFixes = 0
        for (i, fix) in raw.enumerated().dropFirst() {
            let sample = truth[i]
            if let leaving = offRouteTruthTime, sample.timestamp >= leaving { offFixes += 1 }
            let events = step(nav, fix)
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
                        let legTruth = truth[legStart..<min(truth.count, legIndex + 1 < legTruthStartIndex.count ? legTruthStartIndex[legIndex + 1] : truth.count)]
                        let total = legTruth.map(\.distanceMeters).max() ?? 0
                        result.arrivalRemainingMeters[legIndex] = total - sample.distanceMeters
                    }
                    if a.remainingWaypoints > 0 { _ = nav.continueToNextDestination(at: fix.timestamp) }
                case .routeChanged(let r) where r.reason == .offRoute || r.reason == .fasterRoute:
                    result.reroutes += 1
                    if leaveAfterFraction != nil, result.fixesToReroute == nil, offFixes > 0 { result.fixesToReroute = offFixes }
                default: break
                }
            }
            if leaveAfterFraction != nil && result.fixesToReroute != nil { break }
        }
        return result
    }

    /// Route edges up to the first junction past `fraction` of the leg, then a different road for ~400 m.
    private func leavingEdges(leg: RouteLeg, afterFraction fraction: Double) -> (edges: [EdgeID], leaveIndex: Int)? {
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
                guard let continuation = graph.outgoingEdges(of: graph.target(of: current)).first(where: {
                    $0 != back && !onRoute.contains($0) && graph.access(of: $0).contains(.driving)
                        && graph.isTurnAllowed(from: current, to: $0, mode: .driving) && !edges.contains($0)
                }) else { break }
                edges.append(continuation)
                length += graph.lengthMeters(of: continuation)
                current = continuation
            }
            if length >= 60 { return (edges, k + 1) }
        }
        return nil
    }
}
