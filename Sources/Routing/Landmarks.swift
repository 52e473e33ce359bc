import RoadGraph

/// ALT landmark distances (Goldberg & Harrelson, "Computing the shortest path: A* search meets graph theory",
/// 2005) for each (travel mode, strategy) pair it was built for.
///
/// Distances are node-to-node on free-flow weights over every edge the mode may use, ignoring turn restrictions and
/// avoid options. Restrictions and avoid options only remove paths and traffic (above `lowerBoundFactor`) only
/// raises weights, so the bounds stay admissible for every query without a rebuild.
public struct LandmarkIndex: Sendable {
    public struct Key: Hashable, Sendable {
        public var mode: TravelMode
        public var strategy: RoutingStrategy
        public init(mode: TravelMode, strategy: RoutingStrategy) {
            self.mode = mode
            self.strategy = strategy
        }
    }

    /// Distances of one metric: `fromLandmark[node * count + l]` = d(landmark l → node) and
    /// `toLandmark[node * count + l]` = d(node → landmark l); `.infinity` when unreachable. Stored as Float to
    /// halve memory; the potential subtracts the rounding error so bounds stay admissible.
    struct Table: Sendable {
        var landmarks: [NodeID]
        var fromLandmark: [Float]
        var toLandmark: [Float]
    }

    let nodeCount: Int
    let edgeCount: Int
    let tables: [Key: Table]

    /// Landmarks of each table.
    public func landmarks(for key: Key) -> [NodeID]? { tables[key]?.landmarks }
    public var keys: [Key] { Array(tables.keys) }
    /// Bytes held by the distance arrays.
    public var memoryBytes: Int { tables.values.reduce(0) { $0 + ($1.fromLandmark.count + $1.toLandmark.count) * 4 } }

    /// Builds tables for every (mode, strategy) pair. `landmarkCount` landmarks are chosen by the farthest
    /// heuristic (each new landmark is the node farthest from those already chosen), starting from a node picked
    /// deterministically from `seed`. Cost: 3 × `landmarkCount` Dijkstra runs per pair.
    public static func build(
        graph: RoadGraph, modes: [TravelMode] = [.driving], strategies: [RoutingStrategy] = RoutingStrategy.allCases,
        landmarkCount: Int = 8, seed: UInt64 = 1
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

/// Node-based free-flow weights of one (mode, strategy), for landmark preprocessing.
private struct NodeMetric {
    let graph: RoadGraph
    let mode: TravelMode
    let mask: ModeMask
    let strategy: RoutingStrategy

    init(graph: RoadGraph, mode: TravelMode, strategy: RoutingStrategy) {
        self.graph = graph
        self.mode = mode
        self.mask = ModeMask(mode)
        self.strategy = strategy
    }

    func weight(_ e: EdgeID) -> Double {
        strategy == .best ? graph.durationSeconds(of: e, mode: mode) : graph.lengthMeters(of: e)
    }

    /// Single- or multi-source Dijkstra over nodes; `reverse` follows edges backwards (distances *to* the sources).
    func distances(from sources: [NodeID], reverse: Bool) -> [Double] {
        var dist = [Double](repeating: .infinity, count: graph.nodeCount)
        var heap = MinHeap()
        for s in sources {
            dist[Int(s)] = 0
            heap.push(0, s)
        }
        while !heap.isEmpty {
            let (d, v) = heap.popMin()
            if d > dist[Int(v)] { continue }
            if reverse {
                for e in graph.incomingEdges(of: v) where graph.access(of: e).contains(mask) {
                    let u = graph.source(of: e)
                    let nd = d + weight(e)
                    if nd < dist[Int(u)] {
                        dist[Int(u)] = nd
                        heap.push(nd, u)
                    }
                }
            } else {
                for e in graph.outgoingEdges(of: v) where graph.access(of: e).contains(mask) {
                    let w = graph.target(of: e)
                    let nd = d + weight(e)
                    if nd < dist[Int(w)] {
                        dist[Int(w)] = nd
                        heap.push(nd, w)
                    }
                }
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
        var landmarks: [NodeID] = []
        if !usable.isEmpty && landmarkCount > 0 {
            // SplitMix64 step: a deterministic start node without global random state.
            var z = seed &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            var anchor = [usable[Int(z % UInt64(usable.count))]]
            while landmarks.count < min(landmarkCount, usable.count) {
                let dist = distances(from: anchor, reverse: false)
                var farthest: NodeID?
                var farthestDistance = -1.0
                for v in usable where dist[Int(v)].isFinite && dist[Int(v)] > farthestDistance
                    && !landmarks.contains(v) {
                    farthest = v
                    farthestDistance = dist[Int(v)]
                }
                // Everything reachable is taken: continue in a part of the graph the landmarks cannot reach.
                if farthest == nil || farthestDistance == 0 {
                    farthest = usable.first { dist[Int($0)].isInfinite && !landmarks.contains($0) } ?? farthest
                }
                guard let chosen = farthest, !landmarks.contains(chosen) else { break }
                landmarks.append(chosen)
                anchor = landmarks
            }
        }
        let k = landmarks.count
        var from = [Float](repeating: .infinity, count: n * k)
        var to = [Float](repeating: .infinity, count: n * k)
        for (l, landmark) in landmarks.enumerated() {
            let forward = distances(from: [landmark], reverse: false)
            let backward = distances(from: [landmark], reverse: true)
            for v in 0..<n {
                from[v * k + l] = Float(forward[v])
                to[v * k + l] = Float(backward[v])
            }
        }
        return LandmarkIndex.Table(landmarks: landmarks, fromLandmark: from, toLandmark: to)
    }
}

/// The ALT potential of one query: a lower bound on the weight from a node to the nearest target position.
struct LandmarkPotential {
    private let table: LandmarkIndex.Table
    private let count: Int
    /// Per target, flattened: k distances from the landmarks, k distances to the landmarks, the weight from the
    /// target edge's source node to the target position, and that node's id.
    private let targets: [Double]
    private let targetNodes: [NodeID]
    /// ≤ 1: shrinks the bound when traffic may make edges faster than free flow.
    private let scale: Double

    /// Relative rounding error of a Float distance is ≤ 2⁻²⁴; two of them enter each difference.
    private static let floatMargin = 1.2e-7

    init(table: LandmarkIndex.Table, targets: [(node: NodeID, offsetWeight: Double)], scale: Double) {
        self.table = table
        let k = table.landmarks.count
        self.count = k
        self.scale = scale
        var flat: [Double] = []
        flat.reserveCapacity(targets.count * (2 * k + 1))
        for t in targets {
            let base = Int(t.node) * k
            for l in 0..<k { flat.append(Double(table.fromLandmark[base + l])) }
            for l in 0..<k { flat.append(Double(table.toLandmark[base + l])) }
            flat.append(t.offsetWeight)
        }
        self.targets = flat
        self.targetNodes = targets.map(\.node)
    }

    /// Lower bound on the weight from `node` to the closest target; `.infinity` when the landmarks prove no
    /// target is reachable.
    func value(at node: NodeID) -> Double {
        let k = count
        let base = Int(node) * k
        let stride = 2 * k + 1
        return table.fromLandmark.withUnsafeBufferPointer { fromTable in
            table.toLandmark.withUnsafeBufferPointer { toTable in
                targets.withUnsafeBufferPointer { t in
                    var best = Double.infinity
                    for (index, targetNode) in targetNodes.enumerated() {
                        let row = index * stride
                        var bound = 0.0
                        if node != targetNode {
                            for l in 0..<k {
                                let fromV = Double(fromTable[base + l])
                                let toV = Double(toTable[base + l])
                                // d(v, x) ≥ d(L, x) − d(L, v)
                                let a = t[row + l]
                                if a.isInfinite {
                                    // L reaches v but not x: so v cannot reach x.
                                    if fromV.isFinite { bound = .infinity; break }
                                } else if fromV.isFinite {
                                    bound = max(bound, a - fromV - Self.floatMargin * (a + fromV))
                                }
                                // d(v, x) ≥ d(v, L) − d(x, L)
                                let b = t[row + k + l]
                                if toV.isInfinite {
                                    // x reaches L but v does not: v cannot reach x.
                                    if b.isFinite { bound = .infinity; break }
                                } else if b.isFinite {
                                    bound = max(bound, toV - b - Self.floatMargin * (toV + b))
                                }
                            }
                        }
                        best = min(best, bound + t[row + 2 * k])
                    }
                    return best * scale
                }
            }
        }
    }
}
