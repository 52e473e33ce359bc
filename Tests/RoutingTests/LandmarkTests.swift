import Geo
import RoadGraph
import TestKit
import Testing

@testable import Routing

/// Exact node-to-node free-flow distances from `source` (forward) or to it (`reverse`), by plain Dijkstra on
/// `Double` weights: the yardstick the landmark bounds must never exceed.
private func exactDistances(_ graph: RoadGraph, from source: NodeID, mode: TravelMode, strategy: RoutingStrategy,
                            reverse: Bool) -> [Double] {
    let model = EdgeCostModel(graph: graph, mode: mode, strategy: strategy, avoid: [], traffic: nil)
    var dist = [Double](repeating: .infinity, count: graph.nodeCount)
    var done = [Bool](repeating: false, count: graph.nodeCount)
    dist[Int(source)] = 0
    while let v = (0..<graph.nodeCount).filter({ !done[$0] && dist[$0].isFinite }).min(by: { dist[$0] < dist[$1] }) {
        done[v] = true
        let edges = reverse ? Array(graph.incomingEdges(of: NodeID(v))) : Array(graph.outgoingEdges(of: NodeID(v)))
        for e in edges where graph.access(of: e).contains(ModeMask(mode)) {
            let u = Int(reverse ? graph.source(of: e) : graph.target(of: e))
            dist[u] = min(dist[u], dist[v] + model.weight(e))
        }
    }
    return dist
}

@Suite struct LandmarkTests {
    /// The bidirectional search is exact only if both potentials are consistent: π(u) − π(v) ≤ w(u, v) on every
    /// edge the mode may use (forward bound), π_s(v) − π_s(u) ≤ w(u, v) (reverse bound), with the free-flow
    /// weights. They must also never exceed the true distance, and be infinite only when there is no path.
    @Test func boundsAreConsistentAndAdmissible() throws {
        var finiteBounds = 0, infiniteBounds = 0
        for graphSeed in 0..<4 { try checkBounds(graphSeed: graphSeed, &finiteBounds, &infiniteBounds) }
        #expect(finiteBounds > 0)
        #expect(infiniteBounds > 0, "the random graphs have one-way pockets: some bounds must prove unreachability")
    }

    private func checkBounds(graphSeed: Int, _ finiteBounds: inout Int, _ infiniteBounds: inout Int) throws {
        let graph = try randomGraph(seed: UInt64(graphSeed) &* 31 &+ 5, nodeCount: 120)
        let index = LandmarkIndex.build(graph: graph, modes: [.driving, .walking], landmarkCount: 5,
                                        seed: UInt64(graphSeed))
        var rng = SeededGenerator(seed: UInt64(graphSeed) + 99)
        for mode in [TravelMode.driving, .walking] {
            for strategy in RoutingStrategy.allCases {
                let table = try #require(index.tables[LandmarkIndex.Key(mode: mode, strategy: strategy)])
                let model = EdgeCostModel(graph: graph, mode: mode, strategy: strategy, avoid: [], traffic: nil)
                for _ in 0..<6 {
                    let endpoints = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                        LandmarkPotential.Endpoint(node: NodeID.random(in: 0..<NodeID(graph.nodeCount), using: &rng),
                                                   offset: Double.random(in: 0...50, using: &rng))
                    }
                    let active = Array((0..<table.landmarks.count).shuffled(using: &rng).prefix(Int.random(in: 1...5, using: &rng)))
                    for reversed in [false, true] {
                        let potential = LandmarkPotential(table: table, endpoints: endpoints, landmarks: active,
                                                          reversed: reversed, scale: 1)
                        // Consistency on every usable edge.
                        for e in 0..<graph.edgeCount where model.isUsable(EdgeID(e)) {
                            let (u, v) = (graph.source(of: EdgeID(e)), graph.target(of: EdgeID(e)))
                            let (near, far) = reversed ? (potential.value(at: v), potential.value(at: u))
                                : (potential.value(at: u), potential.value(at: v))
                            // A node proven off every path is pruned, whatever its neighbours' bounds (the
                            // admissibility check below makes sure such proofs are sound).
                            if near == .infinity || far == .infinity { continue }
                            #expect(near - far <= model.weight(EdgeID(e)) * (1 + 1e-12) + 1e-9,
                                    "edge \(e) \(mode) \(strategy) reversed \(reversed): \(near) − \(far) > \(model.weight(EdgeID(e)))")
                        }
                        // Admissibility against exact distances to (or from) the endpoints.
                        var best = [Double](repeating: .infinity, count: graph.nodeCount)
                        for x in endpoints {
                            let d = exactDistances(graph, from: x.node, mode: mode, strategy: strategy, reverse: !reversed)
                            for v in 0..<graph.nodeCount { best[v] = min(best[v], d[v] + x.offset) }
                        }
                        for v in 0..<graph.nodeCount {
                            let bound = potential.value(at: NodeID(v))
                            #expect(bound <= best[v] * (1 + 1e-12) + 1e-9, "node \(v): bound \(bound) > \(best[v])")
                            if bound == .infinity { infiniteBounds += 1 } else { finiteBounds += 1 }
                        }
                    }
                }
            }
        }
    }

    /// Distances are stored in whole quanta of the rounded-down metric: never above the exact distance, and within
    /// one quantum per edge of it.
    @Test func storedDistancesAreRoundedDown() throws {
        let graph = try randomGraph(seed: 4242, nodeCount: 80)
        let index = LandmarkIndex.build(graph: graph, landmarkCount: 3)
        for strategy in RoutingStrategy.allCases {
            let table = try #require(index.tables[LandmarkIndex.Key(mode: .driving, strategy: strategy)])
            #expect(table.quantum == (strategy == .best ? 1e-3 : 1e-2))
            for (l, landmark) in table.landmarks.enumerated() {
                let exact = exactDistances(graph, from: landmark, mode: .driving, strategy: strategy, reverse: false)
                for v in 0..<graph.nodeCount {
                    let stored = table.fromLandmark(NodeID(v), l)
                    if exact[v].isInfinite {
                        #expect(stored == LandmarkIndex.Table.unreachable)
                    } else {
                        let value = Double(stored) * table.quantum
                        #expect(value <= exact[v] + 1e-9)
                        #expect(value >= exact[v] - table.quantum * Double(graph.edgeCount))
                    }
                }
            }
        }
    }

    /// The per-query choice picks the landmarks with the largest bound for the query and is deterministic.
    @Test func bestLandmarksRankByBound() throws {
        let graph = try randomGraph(seed: 77, nodeCount: 150)
        let index = LandmarkIndex.build(graph: graph, landmarkCount: 8)
        let table = try #require(index.tables[LandmarkIndex.Key(mode: .driving, strategy: .shorter)])
        var rng = SeededGenerator(seed: 5)
        for _ in 0..<20 {
            let s = LandmarkPotential.Endpoint(node: NodeID.random(in: 0..<150, using: &rng), offset: 0)
            let t = LandmarkPotential.Endpoint(node: NodeID.random(in: 0..<150, using: &rng), offset: 0)
            let chosen = LandmarkPotential.bestLandmarks(table: table, sources: [s], targets: [t], count: 3)
            #expect(chosen.count == 3)
            #expect(chosen == LandmarkPotential.bestLandmarks(table: table, sources: [s], targets: [t], count: 3))
            func bound(_ l: Int) -> Double {
                LandmarkPotential(table: table, endpoints: [t], landmarks: [l], reversed: false, scale: 1).value(at: s.node)
            }
            let weakestChosen = chosen.map(bound).min()!
            for l in 0..<8 where !chosen.contains(l) { #expect(bound(l) <= weakestChosen) }
        }
    }
}

@Suite struct LandmarkInstallTests {
    /// The agent builds its landmarks after start and installs them into the router that already answers: the
    /// answers stay the same, and an index of another graph is refused.
    @Test func installedLaterGivesTheSameRoutesAndAForeignIndexIsRefused() throws {
        let graph = try randomGraph(seed: 901, nodeCount: 150)
        let other = try randomGraph(seed: 902, nodeCount: 90)
        let router = Router(graph: graph)
        let reference = Router(graph: graph)
        #expect(!router.install(landmarks: LandmarkIndex.build(graph: other)))
        #expect(router.landmarks == nil)
        #expect(router.install(landmarks: LandmarkIndex.build(graph: graph)))
        #expect(router.landmarks != nil)
        var rng = SeededGenerator(seed: 903)
        let projection = LocalProjection(origin: FixtureMap.origin)
        var routed = 0
        for query in 0..<200 {
            let origin = Waypoint(projection.unproject(x: .random(in: 0..<2_000, using: &rng), y: .random(in: 0..<2_000, using: &rng)))
            let destination = Waypoint(projection.unproject(x: .random(in: 0..<2_000, using: &rng), y: .random(in: 0..<2_000, using: &rng)))
            let request = RouteRequest(origin: origin, destinations: [destination], strategy: query % 2 == 0 ? .best : .shorter)
            let fast = router.route(request, algorithm: .alt)
            let exact = reference.route(request, algorithm: .bidirectionalDijkstra)
            #expect(fast.status == exact.status)
            if let a = fast.route?.weight, let b = exact.route?.weight {
                routed += 1
                #expect(nearlyEqual(a, b), "query \(query): \(a) vs \(b)")
            }
        }
        #expect(routed > 50)
    }
}
