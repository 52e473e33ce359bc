import RoadGraph
import SeededRandom

/// ALT landmark distances (Goldberg & Harrelson, "Computing the shortest path: A* search meets graph theory",
/// 2005) for each (travel mode, strategy) pair it was built for.
///
/// Distances are node-to-node on free-flow weights over every edge the mode may use, ignoring turn restrictions and
/// avoid options. Restrictions and avoid options only remove paths and traffic (above `lowerBoundFactor`) only
/// raises weights, so the bounds stay admissible for every query without a rebuild.
///
/// Distances are whole multiples of a quantum (1 ms for `best`, 1 cm for `shorter`, coarser when a distance would
/// not fit in 32 bits) on edge weights rounded *down* to the quantum, in exact integer arithmetic. That keeps every bound not just admissible but consistent
/// (feasible: π(u) − π(v) ≤ w(u, v) for every edge), which the bidirectional search with average potentials
/// needs, at 4 bytes per entry.
public struct LandmarkIndex: Sendable {
    public struct Key: Hashable, Sendable {
        public var mode: TravelMode
        public var strategy: RoutingStrategy
        public init(mode: TravelMode, strategy: RoutingStrategy) {
            self.mode = mode
            self.strategy = strategy
        }
    }

    /// Distances of one metric, one row of 2k values per node so a potential evaluation touches one or two cache
    /// lines: `distances[node * 2k + l]` = d(landmark l → node) and `distances[node * 2k + k + l]` = d(node →
    /// landmark l), in quanta; `unreachable` when there is no path.
    struct Table: Sendable {
        static let unreachable = UInt32.max

        var landmarks: [NodeID]
        /// Weight units (seconds or metres) per stored unit.
        var quantum: Double
        var distances: [UInt32]

        func fromLandmark(_ node: NodeID, _ l: Int) -> UInt32 { distances[Int(node) * 2 * landmarks.count + l] }
        func toLandmark(_ node: NodeID, _ l: Int) -> UInt32 {
            distances[Int(node) * 2 * landmarks.count + landmarks.count + l]
        }
    }

    let nodeCount: Int
    let edgeCount: Int
    let tables: [Key: Table]

    /// Landmarks of each table.
    public func landmarks(for key: Key) -> [NodeID]? { tables[key]?.landmarks }
    public var keys: [Key] { Array(tables.keys) }
    /// Bytes held by the distance arrays.
    public var memoryBytes: Int { tables.values.reduce(0) { $0 + $1.distances.count * 4 } }

    /// Builds tables for every (mode, strategy) pair. `landmarkCount` landmarks are chosen by the farthest
    /// heuristic (each new landmark is the node farthest from those already chosen), starting from a node picked
    /// deterministically from `seed`. Cost: 3 × `landmarkCount` Dijkstra runs per pair. A query uses only the
    /// `RouterConfiguration.activeLandmarkCount` landmarks that bound its own endpoints best, so more landmarks
    /// cost memory and build time but not query time.
    public static func build(
        graph: RoadGraph, modes: [TravelMode] = [.driving], strategies: [RoutingStrategy] = RoutingStrategy.allCases,
        landmarkCount: Int = 16, seed: UInt64 = 1
    ) -> LandmarkIndex {
        var tables: [Key: Table] = [:]
        for mode in modes {
            for strategy in strategies {
                let metric = NodeMetric(graph: graph, mode: mode, strategy: strategy)
                tables[Key(mode: mode, strategy: strategy)] = metric.table(landmarkCount: landmarkCount, seed: seed)
            }
        }
        return LandmarkIndex(nodeCount: graph.nodeCount, edgeCount: graph.edgeCount, tables: tables)
    }

    func matches(_ graph: RoadGraph) -> Bool { graph.nodeCount == nodeCount && graph.edgeCount == edgeCount }
}

/// Node-based free-flow weights of one (mode, strategy), rounded down to a quantum, for landmark preprocessing.
private struct NodeMetric {
    let graph: RoadGraph
    let mask: ModeMask
    /// Free-flow weight per edge; `.infinity` for edges the mode may not use.
    let weights: [Double]
    /// The first quantum tried: 1 ms or 1 cm.
    let baseQuantum: Double

    init(graph: RoadGraph, mode: TravelMode, strategy: RoutingStrategy) {
        self.graph = graph
        let mask = ModeMask(mode)
        self.mask = mask
        // The same expressions as `EdgeCostModel.weight` without traffic: the fastest time an edge ever has
        // (traffic below free flow is covered by the router's `heuristicScale`).
        weights = (0..<graph.edgeCount).map { i in
            let e = EdgeID(i)
            guard graph.access(of: e).contains(mask) else { return .infinity }
            return strategy == .best ? graph.durationSeconds(of: e, mode: mode) : graph.lengthMeters(of: e)
        }
        baseQuantum = strategy == .best ? 1e-3 : 1e-2
    }

    /// Edge weights in quanta, rounded down (so the quantized metric never exceeds the real one); nil for edges
    /// the mode may not use or with no finite weight.
    func quantized(_ quantum: Double) -> [UInt64?] {
        weights.map { w in
            guard w.isFinite, w >= 0 else { return nil }
            var units = (w / quantum).rounded(.down)
            if units * quantum > w { units -= 1 }  // the division may have rounded up
            return units < 0x1p62 ? UInt64(max(0, units)) : nil
        }
    }

    /// Single- or multi-source Dijkstra over nodes in exact integer arithmetic; `reverse` follows edges backwards
    /// (distances *to* the sources). `UInt64.max` marks unreachable nodes.
    func distances(from sources: [NodeID], reverse: Bool, weights units: [UInt64?]) -> [UInt64] {
        var dist = [UInt64](repeating: .max, count: graph.nodeCount)
        var heap = MinHeap()
        for s in sources {
            dist[Int(s)] = 0
            heap.push(0, s)
        }
        while !heap.isEmpty {
            let (key, v) = heap.popMin()
            let d = UInt64(key)
            if d > dist[Int(v)] { continue }
            func relax(_ e: EdgeID, to u: NodeID) {
                guard let w = units[Int(e)] else { return }
                let (nd, overflow) = d.addingReportingOverflow(w)
                if !overflow && nd < dist[Int(u)] {
                    dist[Int(u)] = nd
                    heap.push(Double(nd), u)  // exact: distances stay below 2⁵³ (see `table`)
                }
            }
            if reverse {
                for e in graph.incomingEdges(of: v) { relax(e, to: graph.source(of: e)) }
            } else {
                for e in graph.outgoingEdges(of: v) { relax(e, to: graph.target(of: e)) }
            }
        }
        return dist
    }

    func table(landmarkCount: Int, seed: UInt64) -> LandmarkIndex.Table {
        let n = graph.nodeCount
        // Nodes the mode can leave: landmarks elsewhere would bound nothing.
        var usable: [NodeID] = []
        for v in 0..<n where graph.outgoingEdges(of: NodeID(v)).contains(where: { graph.access(of: $0).contains(mask) }) {
            usable.append(NodeID(v))
        }
        var quantum = baseQuantum
        while true {
            if let table = table(landmarkCount: landmarkCount, seed: seed, usable: usable, quantum: quantum) {
                return table
            }
            quantum *= 16  // some distance does not fit 32 bits: coarser units
        }
    }

    /// The table at `quantum`, or nil when a finite distance does not fit in 32 bits.
    private func table(landmarkCount: Int, seed: UInt64, usable: [NodeID], quantum: Double) -> LandmarkIndex.Table? {
        let n = graph.nodeCount
        let units = quantized(quantum)
        var landmarks: [NodeID] = []
        if !usable.isEmpty && landmarkCount > 0 {
            // A deterministic start node without global random state.
            var rng = SplitMix64(seed: seed)
            var anchor = [usable[Int(rng.next() % UInt64(usable.count))]]
            while landmarks.count < min(landmarkCount, usable.count) {
                let dist = distances(from: anchor, reverse: false, weights: units)
                var farthest: NodeID?
                var farthestDistance: UInt64 = 0
                var found = false
                for v in usable where dist[Int(v)] != .max && (!found || dist[Int(v)] > farthestDistance)
                    && !landmarks.contains(v) {
                    farthest = v
                    farthestDistance = dist[Int(v)]
                    found = true
                }
                // Everything reachable is taken: continue in a part of the graph the landmarks cannot reach.
                if farthest == nil || farthestDistance == 0 {
                    farthest = usable.first { dist[Int($0)] == .max && !landmarks.contains($0) } ?? farthest
                }
                guard let chosen = farthest, !landmarks.contains(chosen) else { break }
                landmarks.append(chosen)
                anchor = landmarks
            }
        }
        let k = landmarks.count
        let limit = UInt64(LandmarkIndex.Table.unreachable)
        var rows = [UInt32](repeating: LandmarkIndex.Table.unreachable, count: n * 2 * k)
        for (l, landmark) in landmarks.enumerated() {
            let forward = distances(from: [landmark], reverse: false, weights: units)
            let backward = distances(from: [landmark], reverse: true, weights: units)
            for v in 0..<n {
                if forward[v] != .max {
                    if forward[v] >= limit { return nil }
                    rows[v * 2 * k + l] = UInt32(forward[v])
                }
                if backward[v] != .max {
                    if backward[v] >= limit { return nil }
                    rows[v * 2 * k + k + l] = UInt32(backward[v])
                }
            }
        }
        return LandmarkIndex.Table(landmarks: landmarks, quantum: quantum, distances: rows)
    }
}

/// A query's ALT potential: a lower bound on the weight from a node to the nearest of several endpoints (or, with
/// `reversed`, from the nearest endpoint to the node), each endpoint a node plus a weight already incurred there.
///
/// Per landmark the bound over all endpoints is folded into two constants, max over landmarks of min over
/// endpoints, which is a little weaker than min over endpoints of max over landmarks but evaluates one term per
/// landmark. Every term is a landmark bound (d(v, x) ≥ d(L, x) − d(L, v), d(v, x) ≥ d(v, L) − d(x, L)) on the
/// quantized metric, so the potential is consistent; `.infinity` means the landmarks prove no endpoint reachable.
struct LandmarkPotential {
    struct Endpoint {
        var node: NodeID
        /// Weight between the node and the endpoint's position (≥ 0).
        var offset: Double
    }

    /// One landmark's part of the bound: `max(fromBase − q·d[fromColumn], q·d[toColumn] − toBase)`.
    private struct Term {
        var fromColumn: Int
        var toColumn: Int
        /// min over endpoints x reachable from the landmark of q·d(L, x) + offset; `.infinity` when the landmark
        /// reaches none, so a node it reaches reaches none either.
        var fromBase: Double
        /// max over endpoints of q·d(x, L) − offset when every endpoint reaches the landmark, else `.infinity`
        /// (no bound from this side).
        var toBase: Double
        /// Every endpoint reaches the landmark: a node that does not reach it reaches no endpoint.
        var toProvesUnreachable: Bool
    }

    private let rows: [UInt32]
    private let stride: Int
    private let quantum: Double
    private let terms: [Term]
    /// The smallest endpoint offset: a bound that holds without any landmark.
    private let floor: Double
    /// ≤ 1: shrinks the bound when traffic may make edges faster than free flow.
    private let scale: Double

    /// - Parameters:
    ///   - landmarks: indices into `table.landmarks` to use (see `bestLandmarks`).
    ///   - reversed: bound the weight *from* the endpoints to a node instead of from a node to the endpoints.
    init(table: LandmarkIndex.Table, endpoints: [Endpoint], landmarks: [Int], reversed: Bool, scale: Double) {
        rows = table.distances
        stride = 2 * table.landmarks.count
        quantum = table.quantum
        self.scale = scale
        floor = endpoints.map(\.offset).min() ?? 0
        terms = landmarks.map { Self.term(table: table, endpoints: endpoints, landmark: $0, reversed: reversed) }
    }

    private static func term(table: LandmarkIndex.Table, endpoints: [Endpoint], landmark l: Int, reversed: Bool) -> Term {
        let k = table.landmarks.count
        let unreachable = LandmarkIndex.Table.unreachable
        // In the reversed graph, distances from a landmark are the original distances to it and vice versa.
        let (fromColumn, toColumn) = reversed ? (k + l, l) : (l, k + l)
        var fromBase = Double.infinity
        var toBase = -Double.infinity
        var everyEndpointReaches = !endpoints.isEmpty
        for x in endpoints {
            let a = table.distances[Int(x.node) * 2 * k + fromColumn]
            if a != unreachable { fromBase = min(fromBase, table.quantum * Double(a) + x.offset) }
            let b = table.distances[Int(x.node) * 2 * k + toColumn]
            if b != unreachable { toBase = max(toBase, table.quantum * Double(b) - x.offset) } else {
                everyEndpointReaches = false
            }
        }
        return Term(fromColumn: fromColumn, toColumn: toColumn, fromBase: fromBase,
                    toBase: everyEndpointReaches ? toBase : .infinity, toProvesUnreachable: everyEndpointReaches)
    }

    /// One landmark's bound at the node whose row starts at `base`: `.infinity` when it proves the node off every
    /// path, `-.infinity` when it knows nothing.
    @inline(__always) private static func bound(
        _ term: Term, _ rows: UnsafeBufferPointer<UInt32>, _ base: Int, _ q: Double
    ) -> Double {
        let unreachable = LandmarkIndex.Table.unreachable
        var bound = -Double.infinity
        let fromV = rows[base + term.fromColumn]
        if fromV != unreachable {
            // The landmark reaches the node: the node reaches an endpoint only if the landmark does.
            if term.fromBase == .infinity { return .infinity }
            bound = term.fromBase - q * Double(fromV)
        }
        let toV = rows[base + term.toColumn]
        if toV != unreachable {
            bound = max(bound, q * Double(toV) - term.toBase)
        } else if term.toProvesUnreachable {
            return .infinity
        }
        return bound
    }

    /// Lower bound on the weight between `node` and the closest endpoint; `.infinity` when the landmarks prove
    /// there is no path.
    @inline(__always) func value(at node: NodeID) -> Double {
        let base = Int(node) * stride
        let q = quantum
        return rows.withUnsafeBufferPointer { rows in
            terms.withUnsafeBufferPointer { terms in
                var bound = floor
                for term in terms {
                    bound = max(bound, Self.bound(term, rows, base, q))
                    if bound == .infinity { return .infinity }
                }
                return bound * scale
            }
        }
    }

    /// The `count` landmarks whose bounds between the given sources and targets are largest (Goldberg & Harrelson's
    /// per-query landmark selection): a query then evaluates `count` terms per node instead of all of them.
    static func bestLandmarks(
        table: LandmarkIndex.Table, sources: [Endpoint], targets: [Endpoint], count: Int
    ) -> [Int] {
        let k = table.landmarks.count
        guard count < k else { return Array(0..<k) }
        var scored: [(bound: Double, landmark: Int)] = []
        scored.reserveCapacity(k)
        table.distances.withUnsafeBufferPointer { rows in
            for l in 0..<k {
                let term = Self.term(table: table, endpoints: targets, landmark: l, reversed: false)
                var best = Double.infinity
                for s in sources { best = min(best, Self.bound(term, rows, Int(s.node) * 2 * k, table.quantum) + s.offset) }
                scored.append((best, l))
            }
        }
        // Ties keep the landmark order, so a query's choice is deterministic.
        scored.sort { $0.bound > $1.bound || ($0.bound == $1.bound && $0.landmark < $1.landmark) }
        return scored.prefix(count).map(\.landmark)
    }
}

/// The average potential of bidirectional ALT: p(v) = (π_t(v) − π_s(v)) / 2 for the forward search and −p(v) for
/// the backward one. With consistent π_t and π_s both are feasible, so each direction runs Dijkstra on
/// non-negative reduced costs. `.infinity` marks a node either bound proves off every source–target path.
struct AveragePotential {
    /// Bounds the weight from a node to the nearest target position.
    let towardTargets: LandmarkPotential
    /// Bounds the weight from the nearest source position to a node.
    let fromSources: LandmarkPotential

    @inline(__always) func value(at node: NodeID) -> Double {
        let t = towardTargets.value(at: node)
        if t == .infinity { return .infinity }
        let s = fromSources.value(at: node)
        if s == .infinity { return .infinity }
        return (t - s) * 0.5
    }
}
