import Geo
import RoadGraph
import TestKit
import Testing

@testable import Routing

/// A random road network: nodes scattered over `sizeMeters`², each joined to its nearest neighbours by roads with
/// random oneway-ness, speeds, access, flags, shapes, barrier nodes and no_/only_ turn restrictions.
func randomGraph(seed: UInt64, nodeCount: Int, sizeMeters: Double = 2_000) throws -> RoadGraph {
    var rng = SeededGenerator(seed: seed)
    let projection = LocalProjection(origin: FixtureMap.origin)
    var builder = RoadGraphBuilder()
    var points: [(Double, Double)] = []
    for _ in 0..<nodeCount {
        let (x, y) = (Double.random(in: 0..<sizeMeters, using: &rng), Double.random(in: 0..<sizeMeters, using: &rng))
        points.append((x, y))
        let barrier = Int.random(in: 0..<100, using: &rng) < 3
        _ = builder.addNode(projection.unproject(x: x, y: y), passableBy: barrier ? [.walking, .cycling] : .all)
    }
    var joined = Set<[Int]>()
    var outgoing = [[EdgeID]](repeating: [], count: nodeCount)
    var incoming = [[EdgeID]](repeating: [], count: nodeCount)
    var way: Int64 = 1
    for i in 0..<nodeCount {
        let nearest = (0..<nodeCount).filter { $0 != i }.sorted {
            let a = points[$0], b = points[$1], p = points[i]
            return (a.0 - p.0) * (a.0 - p.0) + (a.1 - p.1) * (a.1 - p.1) < (b.0 - p.0) * (b.0 - p.0) + (b.1 - p.1) * (b.1 - p.1)
        }.prefix(4)
        for j in nearest where !joined.contains([min(i, j), max(i, j)]) {
            joined.insert([min(i, j), max(i, j)])
            way += 1
            let roll = Int.random(in: 0..<100, using: &rng)
            var access: ModeMask = roll < 85 ? .all : roll < 95 ? [.walking, .cycling] : .motorized
            if Int.random(in: 0..<100, using: &rng) < 5 { access = [.walking] }
            var flags: EdgeFlags = []
            let flagRoll = Int.random(in: 0..<100, using: &rng)
            if flagRoll < 10 { flags.insert(.highway) } else if flagRoll < 15 { flags.insert(.toll) } else if flagRoll < 18 {
                flags.insert(.ferry)
            }
            let speed = [20.0, 30, 50, 60, 80, 100][Int.random(in: 0..<6, using: &rng)]
            let attributes = EdgeAttributes(access: access, flags: flags, freeFlowSpeedKph: speed,
                                            cyclingSpeedKph: Double.random(in: 12...25, using: &rng),
                                            walkingSpeedKph: 5, osmWayID: way)
            var shape: [Coordinate] = []
            if Int.random(in: 0..<100, using: &rng) < 30 {
                let (a, b) = (points[i], points[j])
                shape = [projection.unproject(x: (a.0 + b.0) / 2 + Double.random(in: -40...40, using: &rng),
                                              y: (a.1 + b.1) / 2 + Double.random(in: -40...40, using: &rng))]
            }
            let onewayRoll = Int.random(in: 0..<100, using: &rng)
            let (from, to) = Bool.random(using: &rng) ? (i, j) : (j, i)
            let forward = builder.addEdge(from: NodeID(from), to: NodeID(to), shape: shape, attributes: attributes)
            outgoing[from].append(forward)
            incoming[to].append(forward)
            if onewayRoll >= 25 {
                var back = attributes
                if onewayRoll < 35 { back.access = [.walking, .cycling] }  // oneway for motor vehicles only
                let backward = builder.addEdge(from: NodeID(to), to: NodeID(from), shape: shape.reversed(), attributes: back)
                outgoing[to].append(backward)
                incoming[from].append(backward)
            }
        }
    }
    for v in 0..<nodeCount where !incoming[v].isEmpty && outgoing[v].count >= 2 && Int.random(in: 0..<100, using: &rng) < 15 {
        let from = incoming[v].randomElement(using: &rng)!
        let to = outgoing[v].randomElement(using: &rng)!
        let kind: TurnRestriction.Kind = Int.random(in: 0..<100, using: &rng) < 80 ? .no : .only
        builder.addTurnRestriction(TurnRestriction(from: from, via: NodeID(v), to: to, kind: kind))
    }
    return try builder.build()
}

/// An independent oracle for tiny graphs: Bellman–Ford style relaxation over edge states until nothing changes,
/// sharing no search code with the router (only the endpoint snapping and the cost model).
private func oracleWeight(_ model: EdgeCostModel, sources: [PathEndpoint], targets: [PathEndpoint]) -> Double {
    let graph = model.graph
    var best = Double.infinity
    for s in sources { for t in targets where s.edge == t.edge && t.fraction >= s.fraction {
        best = min(best, model.weight(s.edge) * (t.fraction - s.fraction))
    } }
    var g = [Double](repeating: .infinity, count: graph.edgeCount)
    func successors(_ e: EdgeID) -> [EdgeID] {
        graph.outgoingEdges(of: graph.target(of: e)).filter {
            model.isUsable($0) && graph.isTurnAllowed(from: e, to: $0, mode: model.mode)
        }
    }
    for s in sources { for f in successors(s.edge) { g[Int(f)] = min(g[Int(f)], model.weight(s.edge) * (1 - s.fraction)) } }
    var changed = true
    while changed {
        changed = false
        for e in 0..<graph.edgeCount where g[e].isFinite {
            for f in successors(EdgeID(e)) where g[e] + model.weight(EdgeID(e)) < g[Int(f)] {
                g[Int(f)] = g[e] + model.weight(EdgeID(e))
                changed = true
            }
        }
    }
    for t in targets { best = min(best, g[Int(t.edge)] + model.weight(t.edge) * t.fraction) }
    return best
}

private func randomTraffic(_ graph: RoadGraph, _ rng: inout SeededGenerator) -> TrafficOverlay {
    var multipliers: [EdgeID: Double] = [:]
    var speeds: [EdgeID: Double] = [:]
    for _ in 0..<(graph.edgeCount / 8) {
        multipliers[EdgeID.random(in: 0..<EdgeID(graph.edgeCount), using: &rng)] = Double.random(in: 1...4, using: &rng)
    }
    if Bool.random(using: &rng) {  // some edges faster than free flow: the ALT bound must shrink
        for _ in 0..<3 { speeds[EdgeID.random(in: 0..<EdgeID(graph.edgeCount), using: &rng)] = 120 }
    }
    return TrafficOverlay(graph: graph, speedKphByEdge: speeds, durationMultiplierByEdge: multipliers)
}

@Suite struct RandomizedRoutingTests {
    /// Every method against plain bidirectional Dijkstra (and unidirectional Dijkstra against bidirectional) on
    /// random graphs, bidirectional ALT also with all landmarks or only one active: identical status and, when a
    /// route exists, equal weight within 1e-6 relative (see `nearlyEqual`), with every returned path legal.
    @Test(arguments: 0..<8)
    func methodsAgreeOnRandomGraphs(graphSeed: Int) throws {
        let graph = try randomGraph(seed: UInt64(graphSeed) &* 7919 &+ 17, nodeCount: 250)
        let landmarks = LandmarkIndex.build(graph: graph, modes: [.driving, .cycling, .walking], landmarkCount: 6,
                                            seed: UInt64(graphSeed))
        let router = Router(graph: graph, landmarks: landmarks)
        // Every landmark active, and a single one: the per-query landmark choice must not matter for the result.
        var allActive = RouterConfiguration(), oneActive = RouterConfiguration()
        allActive.activeLandmarkCount = 6
        oneActive.activeLandmarkCount = 1
        let variants = [Router(graph: graph, landmarks: landmarks, configuration: allActive),
                        Router(graph: graph, landmarks: landmarks, configuration: oneActive)]
        var rng = SeededGenerator(seed: UInt64(graphSeed) + 1000)
        let projection = LocalProjection(origin: FixtureMap.origin)
        func randomPoint() -> Waypoint {
            Waypoint(projection.unproject(x: Double.random(in: 0..<2000, using: &rng), y: Double.random(in: 0..<2000, using: &rng)))
        }
        var compared = 0, routed = 0
        for query in 0..<250 {
            let stops = query % 10 == 0 ? 3 : 1
            let mode: TravelMode = [.driving, .driving, .cycling, .walking][query % 4]
            let avoidRoll = Int.random(in: 0..<4, using: &rng)
            let avoid: AvoidOptions = [[.ferries], [], [.ferries, .highways], [.tolls, .ferries]][avoidRoll]
            var request = RouteRequest(origin: randomPoint(), destinations: (0..<stops).map { _ in randomPoint() },
                                       travelMode: mode, strategy: query % 2 == 0 ? .best : .shorter, avoid: avoid)
            if query % 3 == 0 { request.traffic = randomTraffic(graph, &rng) }
            let reference = router.route(request, algorithm: .bidirectionalDijkstra)
            let variant = variants[query % 2]
            let methods: [(String, RouteResponse)] = [
                ("dijkstra", router.route(request, algorithm: .dijkstra)),
                ("alt", router.route(request, algorithm: .alt)),
                ("unidirectionalAlt", router.route(request, algorithm: .unidirectionalAlt)),
                ("alt, \(variant.configuration.activeLandmarkCount) active", variant.route(request, algorithm: .alt)),
            ]
            for (algorithm, other) in methods {
                #expect(other.status == reference.status, "graph \(graphSeed) query \(query) \(algorithm)")
                if let a = other.route, let b = reference.route {
                    #expect(nearlyEqual(a.weight, b.weight), "graph \(graphSeed) query \(query) \(algorithm): \(a.weight) vs \(b.weight)")
                    for leg in a.legs { #expect(isLegal(leg, graph: graph, mode: mode, avoid: avoid)) }
                }
                compared += 1
            }
            if let route = reference.route {
                routed += 1
                for leg in route.legs { #expect(isLegal(leg, graph: graph, mode: mode, avoid: avoid)) }
            }
        }
        #expect(compared == 1000)
        #expect(routed > 60, "too few routable pairs (\(routed)) for the comparison to mean much")
    }

    /// The bidirectional Dijkstra itself against a brute-force oracle on tiny graphs.
    @Test(arguments: 0..<6)
    func referenceMatchesBruteForceOracle(graphSeed: Int) throws {
        let graph = try randomGraph(seed: UInt64(graphSeed) &+ 555, nodeCount: 40, sizeMeters: 800)
        // The oracle searches open roads only: no leg starts or ends on a closed road here (`ClosedRoadStretch` has
        // its own tests, and `methodsAgreeOnRandomGraphs` compares the methods with it).
        var openRoadsOnly = RouterConfiguration()
        openRoadsOnly.closedRoadSnapMarginMeters = .infinity
        // … and it ends at the nearest road: no next nearest road when none joins it (`nextRoadCandidateLimit`).
        openRoadsOnly.nextRoadCandidateLimit = 0
        let router = Router(graph: graph, configuration: openRoadsOnly)
        var rng = SeededGenerator(seed: UInt64(graphSeed) + 77)
        let projection = LocalProjection(origin: FixtureMap.origin)
        var routed = 0
        for query in 0..<150 {
            let origin = Waypoint(projection.unproject(x: Double.random(in: 0..<800, using: &rng), y: Double.random(in: 0..<800, using: &rng)))
            let destination = Waypoint(projection.unproject(x: Double.random(in: 0..<800, using: &rng), y: Double.random(in: 0..<800, using: &rng)))
            let strategy: RoutingStrategy = query % 2 == 0 ? .best : .shorter
            let model = EdgeCostModel(graph: graph, mode: .driving, strategy: strategy, avoid: [.ferries], traffic: nil)
            let sources = router.endpoints(for: origin, arriving: false, model: model)
            let targets = router.endpoints(for: destination, arriving: true, model: model)
            let response = router.route(RouteRequest(origin: origin, destinations: [destination], strategy: strategy),
                                        algorithm: .bidirectionalDijkstra)
            guard !sources.isEmpty, !targets.isEmpty else {
                #expect(response.status == .locationUnavailable)
                continue
            }
            let expected = oracleWeight(model, sources: sources, targets: targets)
            if expected.isInfinite {
                #expect(response.status == .noRouteFound)
            } else {
                routed += 1
                let weight = try #require(response.route?.weight, "graph \(graphSeed) query \(query): \(response.status)")
                #expect(nearlyEqual(weight, expected), "graph \(graphSeed) query \(query): \(weight) vs \(expected)")
            }
        }
        #expect(routed > 30)
    }
}
