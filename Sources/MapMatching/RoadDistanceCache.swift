import RoadGraph

/// Shortest road distances (metres) from one node to every node within a bound: the result of one bounded
/// Dijkstra search, kept in a small open-addressing table so that it can be cached and queried in O(1).
final class DistanceTree {
    private(set) var source: NodeID = 0
    /// Every node closer than this is in the table, metres.
    private(set) var bound: Double = 0
    /// Open addressing in manually managed buffers, reached through a constant pointer: no exclusivity or
    /// uniqueness checks on the hot path (the transitions look up a node a hundred times per fix).
    private struct Table {
        var keys: UnsafeMutablePointer<UInt32>  // node + 1; 0 = empty
        var distances: UnsafeMutablePointer<Double>
        var parents: UnsafeMutablePointer<UInt32>  // edge into the node on the shortest path; .max at the source
        var capacity: Int
        var mask: Int
        /// Nodes in the table.
        var count = 0
    }
    private let table: UnsafeMutablePointer<Table>
    /// Where an early-stopped search left off, so that a later request from the same source for farther targets
    /// continues it instead of settling every node again: the search's heap entries as they were (key, node, and
    /// the edge into the node on its best path so far), in heap order. `frontierCount` < 0: not resumable.
    private struct Frontier {
        var keys: UnsafeMutablePointer<Double>
        var nodes: UnsafeMutablePointer<UInt32>
        var parents: UnsafeMutablePointer<UInt32>
        var capacity: Int
        var count: Int
    }
    private let frontier: UnsafeMutablePointer<Frontier>
    /// Most heap entries kept for resuming (beyond that the tree is searched afresh when it does not answer): a
    /// fleet agent holds up to 64 trees per vehicle.
    static let maximumFrontier = 64
    /// Step at which the tree was last used (for eviction).
    var lastUsed = 0

    init() {
        table = .allocate(capacity: 1)
        // One empty slot (answers nothing): the first search sizes the table (`reset`), so a new tree does not
        // allocate a table only to replace it at once.
        table.initialize(to: Self.makeTable(capacity: 1))
        frontier = .allocate(capacity: 1)
        frontier.initialize(to: Frontier(keys: .allocate(capacity: 0), nodes: .allocate(capacity: 0),
                                         parents: .allocate(capacity: 0), capacity: 0, count: -1))
    }

    deinit {
        Self.free(table.pointee)
        table.deinitialize(count: 1)
        table.deallocate()
        frontier.pointee.keys.deallocate()
        frontier.pointee.nodes.deallocate()
        frontier.pointee.parents.deallocate()
        frontier.deinitialize(count: 1)
        frontier.deallocate()
    }

    /// True when a search from `source` stopped early here and kept its heap (`resume`).
    var isResumable: Bool { frontier.pointee.count >= 0 }

    /// Keeps the heap of the search that filled this tree (nil or too large: not resumable).
    func saveFrontier(_ heap: NodeHeap?, scratch: RoadSearchScratch) {
        guard let heap, heap.count <= Self.maximumFrontier else {
            frontier.pointee.count = -1
            return
        }
        let n = heap.count
        if n > frontier.pointee.capacity {
            var c = 16
            while c < n { c <<= 1 }
            frontier.pointee.keys.deallocate()
            frontier.pointee.nodes.deallocate()
            frontier.pointee.parents.deallocate()
            frontier.pointee.keys = .allocate(capacity: c)
            frontier.pointee.nodes = .allocate(capacity: c)
            frontier.pointee.parents = .allocate(capacity: c)
            frontier.pointee.capacity = c
        }
        let f = frontier.pointee
        heap.copy(keys: f.keys, nodes: f.nodes)
        for i in 0..<n { f.parents[i] = scratch.parent[Int(f.nodes[i])] }
        frontier.pointee.count = n
    }

    /// Puts the labels of this tree's search back into `scratch` under stamp `current` (settled nodes with their
    /// final distance, frontier nodes with their best distance so far) and its heap into `heap`, exactly as the
    /// search left them: continuing settles the same nodes in the same order as one search that had not stopped.
    func restore(into scratch: RoadSearchScratch, stamp current: UInt32, heap: NodeHeap) {
        let t = table.pointee
        let stamp = scratch.stamp, cost = scratch.cost, parent = scratch.parent
        for i in 0..<t.capacity where t.keys[i] != 0 {
            let v = Int(t.keys[i] - 1)
            stamp[v] = current
            cost[v] = t.distances[i]
            parent[v] = t.parents[i]
        }
        let f = frontier.pointee
        for i in 0..<max(0, f.count) {
            let v = Int(f.nodes[i])
            // A node's newest heap entry holds its label (the smallest key); older ones and settled nodes' are stale.
            if stamp[v] != current || f.keys[i] < cost[v] {
                stamp[v] = current
                cost[v] = f.keys[i]
                parent[v] = f.parents[i]
            }
        }
        heap.load(keys: f.keys, nodes: f.nodes, count: max(0, f.count))
    }

    /// Adds `nodes` (labelled in `scratch`) to the table after a resumed search, growing it as needed.
    func append(_ nodes: UnsafeBufferPointer<UInt32>, scratch: RoadSearchScratch, bound: Double) {
        self.bound = max(self.bound, bound)
        let total = table.pointee.count + nodes.count
        if total * 2 > table.pointee.capacity {
            var wanted = 16
            while wanted < total * 2 { wanted <<= 1 }
            let old = table.pointee
            table.pointee = Self.makeTable(capacity: wanted)
            for i in 0..<old.capacity where old.keys[i] != 0 {
                insert(old.keys[i] - 1, distance: old.distances[i], parent: old.parents[i])
            }
            Self.free(old)
        }
        for u in nodes { insert(u, distance: scratch.cost[Int(u)], parent: scratch.parent[Int(u)]) }
    }

    private static func makeTable(capacity: Int) -> Table {
        let keys = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
        // Distances and parents are read only where a key is set (trivial types: nothing to initialise first).
        let distances = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        let parents = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        return Table(keys: keys, distances: distances, parents: parents, capacity: capacity, mask: capacity - 1)
    }

    private static func free(_ t: Table) {
        t.keys.deallocate()
        t.distances.deallocate()
        t.parents.deallocate()
    }

    func reset(source: NodeID, bound: Double, expectedCount: Int) {
        self.source = source
        self.bound = bound
        var wanted = 16
        while wanted < expectedCount * 2 { wanted <<= 1 }
        // Reallocate to grow, or to shrink a table far larger than needed (clearing it costs its size).
        let capacity = table.pointee.capacity
        if wanted > capacity || wanted * 8 < capacity {
            Self.free(table.pointee)
            table.pointee = Self.makeTable(capacity: wanted)
        } else {
            table.pointee.keys.update(repeating: 0, count: capacity)
            table.pointee.count = 0
        }
        frontier.pointee.count = -1
    }

    @inline(__always) private func slot(_ node: NodeID, _ mask: Int) -> Int {
        Int((node &* 0x9E37_79B1) >> 7) & mask
    }

    func insert(_ node: NodeID, distance: Double, parent: UInt32) {
        let t = table.pointee
        var i = slot(node, t.mask)
        while t.keys[i] != 0 && t.keys[i] != node &+ 1 { i = (i + 1) & t.mask }
        if t.keys[i] == 0 { table.pointee.count += 1 }
        t.keys[i] = node &+ 1
        t.distances[i] = distance
        t.parents[i] = parent
    }

    /// Road distance from `source` to `node`, metres; infinity when farther than `bound` or unreachable.
    @inline(__always) func distance(to node: NodeID) -> Double {
        let t = table.pointee
        var i = slot(node, t.mask)
        while true {
            let k = t.keys[i]
            if k == 0 { return .infinity }
            if k == node &+ 1 { return t.distances[i] }
            i = (i + 1) & t.mask
        }
    }

    /// True when this tree answers like a full search to `bound` for these targets (every node when nil): it went
    /// that far, or it holds each target that lies within the target's limit.
    func answers(bound wanted: Double, targets: ArraySlice<(node: NodeID, withinMeters: Double)>?) -> Bool {
        if bound >= wanted { return true }
        guard let targets else { return false }
        for t in targets where min(t.withinMeters, wanted) > bound && !distance(to: t.node).isFinite { return false }
        return true
    }

    /// `distance(to:)` and the edge entering `node` on its shortest path (`UInt32.max` at the source or when not
    /// reached), in one probe of the table.
    @inline(__always) func label(of node: NodeID) -> (distance: Double, parent: UInt32) {
        let t = table.pointee
        var i = slot(node, t.mask)
        while true {
            let k = t.keys[i]
            if k == 0 { return (.infinity, .max) }
            if k == node &+ 1 { return (t.distances[i], t.parents[i]) }
            i = (i + 1) & t.mask
        }
    }

    /// The edge entering `node` on its shortest path from `source`; nil at the source or when not reached.
    func parentEdge(of node: NodeID) -> EdgeID? {
        let t = table.pointee
        var i = slot(node, t.mask)
        while true {
            let k = t.keys[i]
            if k == 0 { return nil }
            if k == node &+ 1 { return t.parents[i] == .max ? nil : t.parents[i] }
            i = (i + 1) & t.mask
        }
    }
}

/// The per-node labels of a bounded Dijkstra search (16 bytes per graph node). A search copies what it found into a
/// `DistanceTree` before it returns, so matchers that run on the same thread one at a time can share one scratch:
/// a fleet agent gives every vehicle's matcher the map's scratch instead of 16 bytes × nodes each.
/// Not thread-safe: share it only among matchers used from one thread (or one serial queue).
public final class RoadSearchScratch {
    let nodeCount: Int
    let stamp: UnsafeMutablePointer<UInt32>
    let cost: UnsafeMutablePointer<Double>
    let parent: UnsafeMutablePointer<UInt32>
    var currentStamp: UInt32 = 0
    let heap = NodeHeap()
    /// The nodes one search settles, in order, and the targets it has still to settle: in manually managed buffers
    /// (an array's append checked its buffer's uniqueness, a runtime call per settled node).
    let settled = ScratchBuffer<UInt32>()
    let pending = ScratchBuffer<(node: NodeID, withinMeters: Double)>()

    public init(graph: RoadGraph) {
        let n = max(1, graph.nodeCount)
        nodeCount = n
        stamp = .allocate(capacity: n)
        stamp.initialize(repeating: 0, count: n)
        cost = .allocate(capacity: n)
        cost.initialize(repeating: 0, count: n)
        parent = .allocate(capacity: n)
        parent.initialize(repeating: 0, count: n)
    }

    deinit {
        stamp.deallocate()
        cost.deallocate()
        parent.deallocate()
    }

    /// Bytes held for the labels.
    public var byteCount: Int { nodeCount * 16 }
}

/// Bounded Dijkstra searches over the nodes of the road graph for one travel mode, with a cache of recent search
/// trees keyed by source node. Consecutive fixes on the same road ask from the same nodes, so most transitions
/// are answered from the cache. Turn restrictions are not applied (map matching follows what the vehicle did).
/// Without a `closedRoadLengthFactor`, barrier nodes that block the mode end the search there. With one, roads
/// closed to the mode by their tags (`RoadGeometryIndex.closedRoadModes`) are searched too, their lengths counted
/// that many times, and so is the road beyond a blocking barrier (a bollard, a block: a traffic simulator drives
/// through them, a vehicle sometimes may, and a map is sometimes wrong): the distances are then costs in metres,
/// not lengths, wherever a path crosses a closed road or a barrier.
final class RoadDistanceCache {
    let index: RoadGeometryIndex
    let mode: TravelMode
    private let mask: ModeMask
    /// A closed road's length counts this many times; nil: closed roads are not searched.
    let closedRoadLengthFactor: Double?
    /// Search labels, this cache's own or shared with other caches on the same thread.
    private let scratch: RoadSearchScratch
    /// Unchecked: read several times per transition row; the cache belongs to one matcher on one thread (see
    /// `LatticeStep`).
    @exclusivity(unchecked) private var trees: [DistanceTree] = []
    @exclusivity(unchecked) private var treeOfNode = NodeSlotMap()
    /// The current step (trees used in it are not evicted). Unchecked, as `trees`.
    @exclusivity(unchecked) var step = 0
    /// Maximum number of cached trees.
    let capacity: Int
    /// Number of searches run (for tests and benchmarks).
    private(set) var searchCount = 0
    /// How many of them continued an earlier search from the same node (`DistanceTree.restore`).
    private(set) var resumedSearchCount = 0

    init(index: RoadGeometryIndex, mode: TravelMode, capacity: Int = 64, scratch: RoadSearchScratch? = nil,
         closedRoadLengthFactor: Double? = nil) {
        self.index = index
        self.mode = mode
        mask = ModeMask(mode)
        self.closedRoadLengthFactor = closedRoadLengthFactor
        self.scratch = scratch ?? RoadSearchScratch(graph: index.graph)
        precondition(self.scratch.nodeCount == max(1, index.graph.nodeCount), "search scratch of another graph")
        self.capacity = capacity
        treeOfNode.reserveCapacity(capacity)
    }

    /// A tree from `node` that holds every node within `bound` metres.
    func tree(from node: NodeID, bound: Double) -> DistanceTree {
        tree(from: node, bound: bound, targets: ArraySlice<(node: NodeID, withinMeters: Double)>?.none)
    }

    /// `tree(from:bound:targets:)` for targets in an array.
    func tree(from node: NodeID, bound: Double, targets: [(node: NodeID, withinMeters: Double)]) -> DistanceTree {
        tree(from: node, bound: bound, targets: targets[...])
    }

    /// A tree from `node` that answers `distance(to:)` exactly for every target whose road distance is at most its
    /// `withinMeters` (and at most `bound`), and with infinity for the others. The search stops once every target is
    /// settled or lies beyond its own limit, plus `targetSlackMeters` (so that the next fixes' targets, a little
    /// farther along, are still answered from the cache): the searches between fixes ask for a dozen candidate
    /// nodes within a few dozen metres, and a search to the full bound settled several times as many nodes.
    /// The answers are those of a full search to `bound`: Dijkstra settles nodes in the same order either way.
    /// The targets come as a slice: the transitions fill a reused buffer's prefix (no array rebuilt per search).
    func tree(from node: NodeID, bound: Double, targets: ArraySlice<(node: NodeID, withinMeters: Double)>?) -> DistanceTree {
        let cached = treeOfNode.value(of: node)
        if let i = cached {
            let t = trees[i]
            if t.answers(bound: bound, targets: targets) {
                t.lastUsed = step
                return t
            }
        }
        let tree: DistanceTree
        if let i = cached {
            tree = trees[i]
        } else if trees.count < capacity {
            tree = DistanceTree()
            treeOfNode.set(node, trees.count)
            trees.append(tree)
        } else {
            // The least recently used tree (the first of them on ties), not one used in this step.
            var victim = -1
            var oldest = Int.max
            for i in trees.indices {
                let used = trees[i].lastUsed
                if used != step && used < oldest {
                    oldest = used
                    victim = i
                }
            }
            if victim < 0 {
                tree = DistanceTree()
                treeOfNode.set(node, trees.count)
                trees.append(tree)
            } else {
                tree = trees[victim]
                treeOfNode.remove(tree.source)
                treeOfNode.set(node, victim)
            }
        }
        search(from: node, bound: bound, targets: targets, into: tree,
               resuming: cached != nil && tree.source == node && tree.isResumable)
        tree.lastUsed = step
        return tree
    }

    /// Settled distance past the last target's that an early-stopped search still covers, metres.
    let targetSlackMeters = 40.0

    func removeAll() {
        trees.removeAll()
        treeOfNode.removeAll()
    }

    private func search(from source: NodeID, bound: Double, targets: ArraySlice<(node: NodeID, withinMeters: Double)>?,
                        into tree: DistanceTree, resuming: Bool = false) {
        searchCount += 1
        let modeBits = mask.rawValue
        let closedBits: UInt8 = closedRoadLengthFactor == nil ? 0 : modeBits
        let closedFactor = closedRoadLengthFactor ?? 1
        let scratch = self.scratch
        let stamp = scratch.stamp, cost = scratch.cost, parent = scratch.parent
        if scratch.currentStamp == .max {
            stamp.update(repeating: 0, count: scratch.nodeCount)
            scratch.currentStamp = 0
        }
        scratch.currentStamp += 1
        let current = scratch.currentStamp
        let heap = scratch.heap, settled = scratch.settled
        heap.removeAll()
        settled.removeAll()
        if resuming {
            resumedSearchCount += 1
            // Continue where the tree's search stopped (`settled` then holds only the nodes settled now).
            tree.restore(into: scratch, stamp: current, heap: heap)
        } else {
            stamp[Int(source)] = current
            cost[Int(source)] = 0
            parent[Int(source)] = .max
            heap.push(0, source)
        }
        // Early stop: the search may end at `limit`, the farthest distance an unsettled target still needs (plus
        // the slack); the tree then answers exactly up to where it stopped.
        // The targets still to settle, in the scratch's buffer (no allocation per search).
        let pending = scratch.pending
        pending.removeAll()
        if let targets {
            for t in targets where !(resuming && tree.distance(to: t.node).isFinite) { pending.append(t) }
        }
        var limit = targets == nil ? bound : min(bound, pendingLimit(pending))
        // One bit per target node (node mod 64): most settled nodes are no target, and this tells without a scan.
        var pendingBits: UInt64 = 0
        for t in pending.elements { pendingBits |= 1 << UInt64(t.node & 63) }
        var reached = bound
        // The index's arrays through buffer pointers: no bounds checks per edge looked at.
        index.withSearchArrays { g in
            let firstOut = g.firstOutEdge, edgeTargets = g.edgeTarget, access = g.edgeAccess
            let passable = g.nodePassable, lengths = g.edgeLength, closedRoads = g.closedRoadModes
            while !heap.isEmpty {
                // Looked at before it is taken: the entry that ends the search stays in the heap for a resumed search.
                let (d, u) = heap.peekMin()
                if d > cost[Int(u)] {
                    heap.removeMin()
                    continue
                }
                if d > limit {
                    if limit < bound { reached = d.nextDown }
                    break
                }
                heap.removeMin()
                settled.append(u)
                let node = Int(u)
                if !pending.isEmpty && (pendingBits >> UInt64(u & 63)) & 1 != 0 {
                    var removed = false
                    var i = 0
                    while i < pending.count {
                        if pending[i].node == u {
                            pending.swapRemove(at: i)
                            removed = true
                        } else {
                            i += 1
                        }
                    }
                    if removed { limit = min(bound, max(d + targetSlackMeters, pendingLimit(pending))) }
                }
                // A barrier that blocks the mode: the search ends there, or, with closed roads searched, goes on
                // with every road beyond it counted as closed up to its next node.
                let barred = u != source && passable[node] & modeBits == 0
                if barred && closedBits == 0 { continue }
                for e in Int(firstOut[node])..<Int(firstOut[node + 1]) {
                    let allowed = access[e] & modeBits != 0
                    if !allowed && closedRoads[e] & closedBits == 0 { continue }
                    let v = edgeTargets[e]
                    let nd = d + (allowed && !barred ? lengths[e] : lengths[e] * closedFactor)
                    let vi = Int(v)
                    if stamp[vi] == current && cost[vi] <= nd { continue }
                    stamp[vi] = current
                    cost[vi] = nd
                    parent[vi] = UInt32(e)
                    heap.push(nd, v)
                }
            }
        }
        let nodes = settled.elements
        if resuming {
            tree.append(nodes, scratch: scratch, bound: reached)
        } else {
            tree.reset(source: source, bound: reached, expectedCount: nodes.count)
            for u in nodes { tree.insert(u, distance: cost[Int(u)], parent: parent[Int(u)]) }
        }
        tree.saveFrontier(heap, scratch: scratch)
    }

    /// The farthest distance an unsettled target still needs, metres (-infinity when none).
    @inline(__always)
    private func pendingLimit(_ pending: ScratchBuffer<(node: NodeID, withinMeters: Double)>) -> Double {
        var limit = -Double.infinity
        for t in pending.elements where t.withinMeters > limit { limit = t.withinMeters }
        return limit
    }

    /// Edges from the end of edge `from` to the start of edge `to` along the shortest road path (empty when
    /// `to` starts where `from` ends), or nil when no path lies within `bound` metres.
    func connectingEdges(from: EdgeID, to: EdgeID, bound: Double) -> [EdgeID]? {
        let graph = index.graph
        let start = graph.target(of: from), goal = graph.source(of: to)
        if start == goal { return [] }
        let t = tree(from: start, bound: bound, targets: [(goal, bound)])
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

/// A growable buffer of trivial values in manually managed memory, reused from search to search: appends without the
/// uniqueness check of an array's (a runtime call each). Owns its memory; one per search scratch and use.
final class ScratchBuffer<Element> {
    // Unchecked exclusivity (a runtime check per access of a class's stored property otherwise): a scratch is used
    // from one thread, and no access overlaps another.
    @exclusivity(unchecked) private(set) var base: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// The values appended since `removeAll`.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always) subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "index out of range")
        return base[i]
    }

    @inline(__always) func append(_ value: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: value)
        count += 1
    }

    /// Removes element `i`, moving the last one into its place.
    @inline(__always) func swapRemove(at i: Int) {
        precondition(i >= 0 && i < count, "index out of range")
        count -= 1
        base[i] = base[count]
    }

    func removeAll() { count = 0 }

    private func grow() {
        let wanted = capacity * 2
        let new = UnsafeMutablePointer<Element>.allocate(capacity: wanted)
        new.moveInitialize(from: base, count: count)
        base.deallocate()
        base = new
        capacity = wanted
    }
}

/// A binary min-heap of (distance, node) with lazy deletion, in manually managed buffers (the searches between
/// fixes push and pop a few dozen nodes each, several times per fix: array uniqueness checks cost as much as the
/// heap work). Owns its buffers; one per search scratch.
final class NodeHeap {
    private struct Storage {
        var keys: UnsafeMutablePointer<Double>
        var nodes: UnsafeMutablePointer<UInt32>
        var capacity: Int
        var count: Int
    }
    /// Reached through a constant pointer: no exclusivity checks in push and pop.
    private let storage: UnsafeMutablePointer<Storage>

    init(capacity: Int = 64) {
        let c = max(1, capacity)
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage(keys: .allocate(capacity: c), nodes: .allocate(capacity: c), capacity: c, count: 0))
    }

    deinit {
        storage.pointee.keys.deallocate()
        storage.pointee.nodes.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    var isEmpty: Bool { storage.pointee.count == 0 }

    var count: Int { storage.pointee.count }

    /// Copies the entries, in heap order, to `keys` and `nodes` (room for `count` each).
    func copy(keys: UnsafeMutablePointer<Double>, nodes: UnsafeMutablePointer<UInt32>) {
        keys.update(from: storage.pointee.keys, count: storage.pointee.count)
        nodes.update(from: storage.pointee.nodes, count: storage.pointee.count)
    }

    /// Replaces the entries with `count` entries in heap order (as `copy` left them).
    func load(keys: UnsafePointer<Double>, nodes: UnsafePointer<UInt32>, count: Int) {
        while storage.pointee.capacity < count { grow() }
        storage.pointee.keys.update(from: keys, count: count)
        storage.pointee.nodes.update(from: nodes, count: count)
        storage.pointee.count = count
    }

    /// The smallest key and its node, left in the heap. The heap must not be empty.
    @inline(__always) func peekMin() -> (Double, UInt32) {
        precondition(storage.pointee.count > 0, "peekMin on an empty heap")
        return (storage.pointee.keys[0], storage.pointee.nodes[0])
    }

    /// Removes the smallest entry (as `popMin`).
    @inline(__always) func removeMin() { _ = popMin() }

    func removeAll() { storage.pointee.count = 0 }

    private func grow() {
        let s = storage.pointee
        let wanted = s.capacity * 2
        let newKeys = UnsafeMutablePointer<Double>.allocate(capacity: wanted)
        let newNodes = UnsafeMutablePointer<UInt32>.allocate(capacity: wanted)
        newKeys.update(from: s.keys, count: s.count)
        newNodes.update(from: s.nodes, count: s.count)
        s.keys.deallocate()
        s.nodes.deallocate()
        storage.pointee = Storage(keys: newKeys, nodes: newNodes, capacity: wanted, count: s.count)
    }

    func push(_ key: Double, _ node: UInt32) {
        if storage.pointee.count == storage.pointee.capacity { grow() }
        let keys = storage.pointee.keys, nodes = storage.pointee.nodes
        var child = storage.pointee.count
        storage.pointee.count = child + 1
        while child > 0 {
            let p = (child - 1) >> 1
            if keys[p] <= key { break }
            keys[child] = keys[p]
            nodes[child] = nodes[p]
            child = p
        }
        keys[child] = key
        nodes[child] = node
    }

    /// Removes and returns the smallest key and its node. The heap must not be empty.
    func popMin() -> (Double, UInt32) {
        let n = storage.pointee.count - 1
        precondition(n >= 0, "popMin on an empty heap")
        storage.pointee.count = n
        let keys = storage.pointee.keys, nodes = storage.pointee.nodes
        let top = (keys[0], nodes[0])
        if n > 0 {
            let lastKey = keys[n], lastNode = nodes[n]
            var i = 0
            while true {
                var c = 2 * i + 1
                if c >= n { break }
                if c + 1 < n && keys[c + 1] < keys[c] { c += 1 }
                if keys[c] >= lastKey { break }
                keys[i] = keys[c]
                nodes[i] = nodes[c]
                i = c
            }
            keys[i] = lastKey
            nodes[i] = lastNode
        }
        return top
    }
}

/// A map from node to a small index (the cache's tree of each source node): open addressing with linear probing and
/// backward-shift deletion in two arrays. `[NodeID: Int]` hashed every key with SipHash, several lookups per fix.
struct NodeSlotMap {
    /// node + 1 per slot; 0 = empty.
    private var keys = [UInt32](repeating: 0, count: 16)
    private var values = [Int32](repeating: 0, count: 16)
    private(set) var count = 0

    /// Room for `n` entries at most a quarter full.
    mutating func reserveCapacity(_ n: Int) {
        var wanted = keys.count
        while wanted < 4 * n { wanted <<= 1 }
        if wanted > keys.count { rehash(capacity: wanted) }
    }

    @inline(__always) private func home(_ key: UInt32, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The value stored for `node`, nil when none is.
    func value(of node: NodeID) -> Int? {
        let key = node &+ 1
        let mask = keys.count - 1
        var i = home(key, mask)
        while true {
            let k = keys[i]
            if k == key { return Int(values[i]) }
            if k == 0 { return nil }
            i = (i + 1) & mask
        }
    }

    /// Stores `value` for `node` (replacing any).
    mutating func set(_ node: NodeID, _ value: Int) {
        if 4 * (count + 1) > keys.count { rehash(capacity: keys.count * 2) }
        let key = node &+ 1
        let mask = keys.count - 1
        var i = home(key, mask)
        while keys[i] != 0 && keys[i] != key { i = (i + 1) & mask }
        if keys[i] == 0 { count += 1 }
        keys[i] = key
        values[i] = Int32(value)
    }

    /// Removes `node`'s entry, if any (later entries of its probe run move back into the gap).
    mutating func remove(_ node: NodeID) {
        let key = node &+ 1
        let mask = keys.count - 1
        var i = home(key, mask)
        while keys[i] != key {
            if keys[i] == 0 { return }
            i = (i + 1) & mask
        }
        count -= 1
        var gap = i
        var j = i
        while true {
            j = (j + 1) & mask
            let k = keys[j]
            if k == 0 { break }
            // An entry may fill the gap when its home lies cyclically at or before the gap, as seen from j.
            let h = home(k, mask)
            if (j &- h) & mask >= (j &- gap) & mask {
                keys[gap] = k
                values[gap] = values[j]
                gap = j
            }
        }
        keys[gap] = 0
    }

    mutating func removeAll() {
        for i in keys.indices { keys[i] = 0 }
        count = 0
    }

    private mutating func rehash(capacity: Int) {
        let oldKeys = keys, oldValues = values
        keys = [UInt32](repeating: 0, count: capacity)
        values = [Int32](repeating: 0, count: capacity)
        count = 0
        for (k, v) in zip(oldKeys, oldValues) where k != 0 { set(k - 1, Int(v)) }
    }
}
