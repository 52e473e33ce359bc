import RoadGraph

/// The graph's adjacency copied into flat buffers owned by the router, so the search's inner loop reads plain
/// memory instead of calling `RoadGraph` accessors across the module boundary (each with its own range check).
/// Built once per router: O(nodes + edges), 16 bytes per edge and 8 per node.
final class SearchTopology {
    let nodeCount: Int
    let edgeCount: Int
    /// Edge id → source / target node; `reverse` is the twin or `UInt32.max`.
    let source: UnsafeMutablePointer<UInt32>
    let target: UnsafeMutablePointer<UInt32>
    let reverse: UnsafeMutablePointer<UInt32>
    /// CSR offsets: outgoing edges of v are `firstOut[v]..<firstOut[v + 1]` (edges are sorted by source); incoming
    /// edges are `inEdges[firstIn[v]..<firstIn[v + 1]]`.
    let firstOut: UnsafeMutablePointer<UInt32>
    let firstIn: UnsafeMutablePointer<UInt32>
    let inEdges: UnsafeMutablePointer<UInt32>
    /// Edges that are the `from` of at least one stored turn restriction (any mode).
    let hasRestrictions: UnsafeMutablePointer<Bool>

    init(graph: RoadGraph) {
        let n = graph.nodeCount, e = graph.edgeCount
        nodeCount = n
        edgeCount = e
        source = .allocate(capacity: max(e, 1))
        target = .allocate(capacity: max(e, 1))
        reverse = .allocate(capacity: max(e, 1))
        inEdges = .allocate(capacity: max(e, 1))
        hasRestrictions = .allocate(capacity: max(e, 1))
        firstOut = .allocate(capacity: n + 1)
        firstIn = .allocate(capacity: n + 1)
        for i in 0..<e {
            let id = EdgeID(i)
            source[i] = graph.source(of: id)
            target[i] = graph.target(of: id)
            reverse[i] = graph.reverseEdge(of: id) ?? UInt32.max
            hasRestrictions[i] = false
        }
        var inCount = 0
        for v in 0..<n {
            let node = NodeID(v)
            firstOut[v] = graph.outgoingEdges(of: node).lowerBound
            firstIn[v] = UInt32(inCount)
            for edge in graph.incomingEdges(of: node) {
                inEdges[inCount] = edge
                inCount += 1
            }
        }
        firstOut[n] = UInt32(e)
        firstIn[n] = UInt32(inCount)
        for restriction in graph.turnRestrictions { hasRestrictions[Int(restriction.from)] = true }
    }

    deinit {
        source.deallocate()
        target.deallocate()
        reverse.deallocate()
        inEdges.deallocate()
        hasRestrictions.deallocate()
        firstOut.deallocate()
        firstIn.deallocate()
    }
}

/// Per-edge free-flow weights and usability of one (mode, strategy, avoid) combination, computed once by
/// `EdgeCostModel` so relaxing an edge does no profile arithmetic. The weights are exactly `EdgeCostModel.weight`
/// without traffic (same expression, same doubles).
final class EdgeCostTable {
    struct Key: Hashable {
        var mode: TravelMode
        var strategy: RoutingStrategy
        var excludedFlags: UInt16
    }

    static let usable: UInt8 = 1
    /// Turns out of this edge need the full `RoadGraph.isTurnAllowed` (the edge starts a turn restriction, or its
    /// target node blocks the mode). Other turns are allowed except the U-turn onto the twin, which is checked too.
    static let checkTurns: UInt8 = 2
    /// Without `checkTurns`: the U-turn onto the twin is allowed (the target node is a dead end for the mode).
    /// Precomputed with `RoadGraph.isTurnAllowed` itself, which without restrictions or a barrier depends only on
    /// the graph and the mode.
    static let uTurnAllowed: UInt8 = 4

    let weight: UnsafeMutablePointer<Double>
    let info: UnsafeMutablePointer<UInt8>
    private let count: Int

    init(model: EdgeCostModel, topology: SearchTopology) {
        precondition(model.traffic == nil, "cost tables hold free-flow weights")
        let graph = model.graph
        count = max(graph.edgeCount, 1)
        weight = .allocate(capacity: count)
        info = .allocate(capacity: count)
        var passable = [Bool](repeating: true, count: graph.nodeCount)
        for v in 0..<graph.nodeCount { passable[v] = graph.isPassable(node: NodeID(v), mode: model.mode) }
        for i in 0..<graph.edgeCount {
            let e = EdgeID(i)
            var bits: UInt8 = 0
            if model.isUsable(e) { bits |= Self.usable }
            if topology.hasRestrictions[i] || !passable[Int(topology.target[i])] {
                bits |= Self.checkTurns
            } else if topology.reverse[i] != UInt32.max,
                graph.isTurnAllowed(from: e, to: topology.reverse[i], mode: model.mode)
            {
                bits |= Self.uTurnAllowed
            }
            info[i] = bits
            weight[i] = model.weight(e)
        }
    }

    deinit {
        weight.deallocate()
        info.deallocate()
    }
}
