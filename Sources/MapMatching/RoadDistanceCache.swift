import RoadGraph

/// Shortest road distances (metres) from one node to every node within a bound: the result of one bounded
/// Dijkstra search, kept in a small open-addressing table so that it can be cached and queried in O(1).
final class DistanceTree {
    private(set) var source: NodeID = 0
    /// Every node closer than this is in the table, metres.
    private(set) var bound: Double = 0
    private var keys: [UInt32] = []  // node + 1; 0 = empty
    private var distances: [Double] = []
    private var parents: [UInt32] = []  // edge into the node on the shortest path; .max at the source
    private var mask = 0
    /// Step at which the tree was last used (for eviction).
    var lastUsed = 0

    func reset(source: NodeID, bound: Double, expectedCount: Int) {
        self.source = source
        self.bound = bound
        var capacity = 16
        while capacity < expectedCount * 2 { capacity <<= 1 }
        if keys.count != capacity {
            keys = [UInt32](repeating: 0, count: capacity)
            distances = [Double](repeating: 0, count: capacity)
            parents = [UInt32](repeating: 0, count: capacity)
        } else {
            for i in keys.indices { keys[i] = 0 }
        }
        mask = capacity - 1
    }

    @inline(__always) private func slot(_ node: NodeID) -> Int {
        Int((node &* 0x9E37_79B1) >> 7) & mask
    }

    func insert(_ node: NodeID, distance: Double, parent: UInt32) {
        var i = slot(node)
        while keys[i] != 0 && keys[i] != node &+ 1 { i = (i + 1) & mask }
        keys[i] = node &+ 1
        distances[i] = distance
        parents[i] = parent
    }

    /// Road distance from `source` to `node`, metres; infinity when farther than `bound` or unreachable.
    @inline(__always) func distance(to node: NodeID) -> Double {
        guard mask > 0 else { return .infinity }
        var i = slot(node)
        while true {
            let k = keys[i]
            if k == 0 { return .infinity }
            if k == node &+ 1 { return distances[i] }
            i = (i + 1) & mask
        }
    }

    /// The edge entering `node` on its shortest path from `source`; nil at the source or when not reached.
    func parentEdge(of node: NodeID) -> EdgeID? {
        guard mask > 0 else { return nil }
        var i = slot(node)
        while true {
            let k = keys[i]
            if k == 0 { return nil }
            if k == node &+ 1 { return parents[i] == .max ? nil : parents[i] }
            i = (i + 1) & mask
        }
    }
}

/// Bounded Dijkstra searches over the nodes of the road graph for one travel mode, with a cache of recent search
/// trees keyed by source node. Consecutive fixes on the same road ask from the same nodes, so most transitions
/// are answered from the cache. Turn restrictions are not applied (map matching follows what the vehicle did);
/// barrier nodes that block the mode end the search there.
final class RoadDistanceCache {
    let index: RoadGeometryIndex
    let mode: TravelMode
    private let mask: ModeMask
    private var stamp: [UInt32]
    private var cost: [Double]
    private var parent: [UInt32]
    private var currentStamp: UInt32 = 0
    private var heapKeys: [Double] = []
    private var heapNodes: [UInt32] = []
    private var settled: [UInt32] = []
    private var trees: [DistanceTree] = []
    private var treeOfNode: [NodeID: Int] = [:]
    /// The current step (trees used in it are not evicted).
    var step = 0
    /// Maximum number of cached trees.
    let capacity: Int
    /// Number of searches run (for tests and benchmarks).
    private(set) var searchCount = 0

    init(index: RoadGeometryIndex, mode: TravelMode, capacity: Int = 64) {
        self.index = index
        self.mode = mode
        mask = ModeMask(mode)
        let n = index.graph.nodeCount
        stamp = [UInt32](repeating: 0, count: n)
        cost = [Double](repeating: 0, count: n)
        parent = [UInt32](repeating: 0, count: n)
        self.capacity = capacity
        treeOfNode.reserveCapacity(capacity * 2)
    }

    /// A tree from `node` that holds every node within `bound` metres.
    func tree(from node: NodeID, bound: Double) -> DistanceTree {
        if let i = treeOfNode[node], trees[i].bound >= bound {
            trees[i].lastUsed = step
            return trees[i]
        }
        let tree: DistanceTree
        if let i = treeOfNode[node] {
            tree = trees[i]
        } else if trees.count < capacity {
            tree = DistanceTree()
            treeOfNode[node] = trees.count
            trees.append(tree)
        } else {
            var victim = -1
            for (i, t) in trees.enumerated() where t.lastUsed != step {
                if victim < 0 || t.lastUsed < trees[victim].lastUsed { victim = i }
            }
            if victim < 0 {
                tree = DistanceTree()
                treeOfNode[node] = trees.count
                trees.append(tree)
            } else {
                tree = trees[victim]
                treeOfNode[tree.source] = nil
                treeOfNode[node] = victim
            }
        }
        search(from: node, bound: bound, into: tree)
        tree.lastUsed = step
        return tree
    }

    func removeAll() {
        trees.removeAll()
        treeOfNode.removeAll(keepingCapacity: true)
    }

    private func search(from source: NodeID, bound: Double, into tree: DistanceTree) {
        searchCount += 1
        let graph = index.graph
        if currentStamp == .max {
            for i in stamp.indices { stamp[i] = 0 }
            currentStamp = 0
        }
        currentStamp += 1
        heapKeys.removeAll(keepingCapacity: true)
        heapNodes.removeAll(keepingCapacity: true)
        settled.removeAll(keepingCapacity: true)
        stamp[Int(source)] = currentStamp
        cost[Int(source)] = 0
        parent[Int(source)] = .max
        push(0, source)
        while !heapKeys.isEmpty {
            let (d, u) = popMin()
            if d > cost[Int(u)] { continue }
            if d > bound { break }
            settled.append(u)
            if u != source && !graph.isPassable(node: u, mode: mode) { continue }
            for e in graph.outgoingEdges(of: u) where graph.access(of: e).contains(mask) {
                let v = graph.target(of: e)
                let nd = d + index.length(of: e)
                let vi = Int(v)
                if stamp[vi] == currentStamp && cost[vi] <= nd { continue }
                stamp[vi] = currentStamp
                cost[vi] = nd
                parent[vi] = e
                push(nd, v)
            }
        }
        tree.reset(source: source, bound: bound, expectedCount: settled.count)
        for u in settled { tree.insert(u, distance: cost[Int(u)], parent: parent[Int(u)]) }
    }

    private func push(_ key: Double, _ node: UInt32) {
        heapKeys.append(key)
        heapNodes.append(node)
        var child = heapKeys.count - 1
        while child > 0 {
            let p = (child - 1) >> 1
            if heapKeys[p] <= key { break }
            heapKeys[child] = heapKeys[p]
            heapNodes[child] = heapNodes[p]
            child = p
        }
        heapKeys[child] = key
        heapNodes[child] = node
    }

    private func popMin() -> (Double, UInt32) {
        let top = (heapKeys[0], heapNodes[0])
        let lastKey = heapKeys.removeLast()
        let lastNode = heapNodes.removeLast()
        let count = heapKeys.count
        if count > 0 {
            var i = 0
            while true {
                var c = 2 * i + 1
                if c >= count { break }
                if c + 1 < count && heapKeys[c + 1] < heapKeys[c] { c += 1 }
                if heapKeys[c] >= lastKey { break }
                heapKeys[i] = heapKeys[c]
                heapNodes[i] = heapNodes[c]
                i = c
            }
            heapKeys[i] = lastKey
            heapNodes[i] = lastNode
        }
        return top
    }

    /// Edges from the end of edge `from` to the start of edge `to` along the shortest road path (empty when
    /// `to` starts where `from` ends), or nil when no path lies within `bound` metres.
    func connectingEdges(from: EdgeID, to: EdgeID, bound: Double) -> [EdgeID]? {
        let graph = index.graph
        let start = graph.target(of: from), goal = graph.source(of: to)
        if start == goal { return [] }
        let t = tree(from: start, bound: bound)
        guard t.distance(to: goal).isFinite else { return nil }
        var edges: [EdgeID] = []
        var node = goal
        while node != start, let e = t.parentEdge(of: node) {
            edges.append(e)
            node = graph.source(of: e)
            if edges.count > 100_000 { return nil }
        }
        return edges.reversed()
    }
}
