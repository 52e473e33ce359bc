import RoadGraph

/// A place part-way along a directed edge where a path starts or ends (a phantom node).
struct PathEndpoint: Hashable {
    var edge: EdgeID
    /// Position along the edge from its source, 0...1 of its length (and of its weight: costs are uniform along
    /// an edge).
    var fraction: Double
}

/// An optimal path between one of several sources and one of several targets.
struct EdgePath {
    /// The optimised cost from the source's position to the target's position.
    var weight: Double
    /// Directed edges in order: the first is the source edge, the last the target edge (the same edge for a path
    /// that stays on one edge).
    var edges: [EdgeID]
    var sourceIndex: Int
    var targetIndex: Int
}

/// Labels of one search direction, reused between queries. Entries are valid only when their stamp equals the
/// current query's, so nothing is cleared between queries.
///
/// Search states are directed edges (edge-based search, so turn restrictions are exact). A forward label of edge
/// `e` is the cost of reaching the source node of `e` having decided to enter `e`; a backward label is the cost
/// from entering `e` to the target.
final class SearchLabels {
    let count: Int
    /// Raw buffers rather than arrays: the search touches them on every relaxation, and arrays stored in a class
    /// pay a bounds check and a dynamic exclusivity check on each access. Indices are edge ids (< count), checked
    /// by the graph's accessors before they get here.
    private let stamp: UnsafeMutablePointer<UInt32>
    let cost: UnsafeMutablePointer<Double>
    /// Forward: the predecessor edge; backward: the successor edge. `≥ edgeCount` marks a source (forward) or
    /// target (backward) endpoint with index `parent - edgeCount`.
    let parent: UnsafeMutablePointer<UInt32>
    /// ALT potential of the edge's source node for this query (forward A* only).
    let potential: UnsafeMutablePointer<Double>
    private var current: UInt32 = 0
    var heap = MinHeap()

    /// `withPotentials` is false for the backward direction, which never uses `potential` (its buffer then has
    /// one entry).
    init(edgeCount: Int, withPotentials: Bool = true) {
        count = edgeCount
        stamp = .allocate(capacity: max(edgeCount, 1))
        stamp.initialize(repeating: 0, count: max(edgeCount, 1))
        cost = .allocate(capacity: max(edgeCount, 1))
        cost.initialize(repeating: 0, count: max(edgeCount, 1))
        parent = .allocate(capacity: max(edgeCount, 1))
        parent.initialize(repeating: 0, count: max(edgeCount, 1))
        let potentialCount = withPotentials ? max(edgeCount, 1) : 1
        potential = .allocate(capacity: potentialCount)
        potential.initialize(repeating: 0, count: potentialCount)
    }

    deinit {
        stamp.deallocate()
        cost.deallocate()
        parent.deallocate()
        potential.deallocate()
    }

    func reset() {
        heap.removeAll()
        if current == UInt32.max {
            stamp.update(repeating: 0, count: max(count, 1))
            current = 0
        }
        current += 1
    }

    @inline(__always) func isLabelled(_ edge: EdgeID) -> Bool { stamp[Int(edge)] == current }

    @inline(__always) func label(_ edge: EdgeID, cost value: Double, parent from: UInt32) {
        let i = Int(edge)
        stamp[i] = current
        cost[i] = value
        parent[i] = from
    }
}

/// Per-node cache of the ALT potential for the current query: all outgoing edges of a node share it.
final class NodePotentialCache {
    private let count: Int
    private let stamp: UnsafeMutablePointer<UInt32>
    private let value: UnsafeMutablePointer<Double>
    private var current: UInt32 = 0

    init(nodeCount: Int) {
        count = max(nodeCount, 1)
        stamp = .allocate(capacity: count)
        stamp.initialize(repeating: 0, count: count)
        value = .allocate(capacity: count)
        value.initialize(repeating: 0, count: count)
    }

    deinit {
        stamp.deallocate()
        value.deallocate()
    }

    func reset() {
        if current == UInt32.max {
            stamp.update(repeating: 0, count: count)
            current = 0
        }
        current += 1
    }

    @inline(__always) func potential(of node: NodeID, _ compute: (NodeID) -> Double) -> Double {
        let i = Int(node)
        if stamp[i] == current { return value[i] }
        let v = compute(node)
        stamp[i] = current
        value[i] = v
        return v
    }
}

/// The three exact shortest-path methods on directed edges.
struct EdgeSearch {
    let model: EdgeCostModel
    let forward: SearchLabels
    let backward: SearchLabels
    let potentials: NodePotentialCache

    private var graph: RoadGraph { model.graph }
    private var edgeCount: UInt32 { UInt32(model.graph.edgeCount) }

    /// Best path that stays on one edge: source and target on the same edge, target not behind the source.
    private func directPath(_ sources: [PathEndpoint], _ targets: [PathEndpoint]) -> EdgePath? {
        var best: EdgePath?
        for (si, s) in sources.enumerated() {
            for (ti, t) in targets.enumerated() where s.edge == t.edge && t.fraction >= s.fraction {
                let weight = model.weight(s.edge) * (t.fraction - s.fraction)
                if weight < best?.weight ?? .infinity {
                    best = EdgePath(weight: weight, edges: [s.edge], sourceIndex: si, targetIndex: ti)
                }
            }
        }
        return best
    }

    /// Forward chain from `edge` back to its source endpoint: returns the edges in driving order (source edge
    /// first) and the source index.
    private func forwardChain(to edge: EdgeID, sources: [PathEndpoint]) -> ([EdgeID], Int) {
        var chain: [EdgeID] = []
        var e = edge
        while true {
            chain.append(e)
            let p = forward.parent[Int(e)]
            if p >= edgeCount {
                let si = Int(p - edgeCount)
                chain.append(sources[si].edge)
                return (chain.reversed(), si)
            }
            e = p
        }
    }

    /// A* (ALT potential) or, with `potential == nil`, plain Dijkstra, from the sources forward. With an admissible
    /// potential the search is exact: improved labels are reopened and the search stops only when the smallest key
    /// cannot beat the best complete path.
    func unidirectional(
        from sources: [PathEndpoint], to targets: [PathEndpoint], potential: LandmarkPotential? = nil
    ) -> EdgePath? {
        forward.reset()
        potentials.reset()
        var best = directPath(sources, targets)
        var bestWeight = best?.weight ?? .infinity
        var bestEnd: (edge: EdgeID, target: Int)?

        @inline(__always) func relax(_ f: EdgeID, _ g: Double, _ from: UInt32) {
            let i = Int(f)
            if forward.isLabelled(f) {
                if g >= forward.cost[i] { return }
                forward.cost[i] = g
                forward.parent[i] = from
            } else {
                forward.label(f, cost: g, parent: from)
                if let potential {
                    forward.potential[i] = potentials.potential(of: graph.source(of: f)) { potential.value(at: $0) }
                } else {
                    forward.potential[i] = 0
                }
            }
            let pi = forward.potential[i]
            if pi.isFinite { forward.heap.push(g + pi, f) }
        }

        for (si, s) in sources.enumerated() {
            let exit = model.weight(s.edge) * (1 - s.fraction)
            for f in graph.outgoingEdges(of: graph.target(of: s.edge))
            where model.isUsable(f) && graph.isTurnAllowed(from: s.edge, to: f, mode: model.mode) {
                relax(f, exit, edgeCount + UInt32(si))
            }
        }
        while !forward.heap.isEmpty {
            let (key, e) = forward.heap.popMin()
            if key >= bestWeight { break }
            let i = Int(e)
            let g = forward.cost[i]
            if key > g + forward.potential[i] { continue }  // stale entry
            let w = model.weight(e)
            for (ti, t) in targets.enumerated() where t.edge == e {
                let total = g + w * t.fraction
                if total < bestWeight {
                    bestWeight = total
                    bestEnd = (e, ti)
                }
            }
            let next = g + w
            for f in graph.outgoingEdges(of: graph.target(of: e))
            where model.isUsable(f) && graph.isTurnAllowed(from: e, to: f, mode: model.mode) {
                relax(f, next, e)
            }
        }
        if let bestEnd {
            let (edges, si) = forwardChain(to: bestEnd.edge, sources: sources)
            best = EdgePath(weight: bestWeight, edges: edges, sourceIndex: si, targetIndex: bestEnd.target)
        }
        return best
    }

    /// Bidirectional Dijkstra on directed edges; stops when the two smallest keys together reach the best
    /// meeting cost.
    func bidirectional(from sources: [PathEndpoint], to targets: [PathEndpoint]) -> EdgePath? {
        forward.reset()
        backward.reset()
        let direct = directPath(sources, targets)
        var bestWeight = direct?.weight ?? .infinity
        var meeting: EdgeID?

        @inline(__always) func relaxForward(_ f: EdgeID, _ g: Double, _ from: UInt32) {
            let i = Int(f)
            if forward.isLabelled(f) {
                if g >= forward.cost[i] { return }
                forward.cost[i] = g
                forward.parent[i] = from
            } else {
                forward.label(f, cost: g, parent: from)
            }
            forward.heap.push(g, f)
            if backward.isLabelled(f), g + backward.cost[i] < bestWeight {
                bestWeight = g + backward.cost[i]
                meeting = f
            }
        }
        @inline(__always) func relaxBackward(_ e: EdgeID, _ h: Double, _ to: UInt32) {
            let i = Int(e)
            if backward.isLabelled(e) {
                if h >= backward.cost[i] { return }
                backward.cost[i] = h
                backward.parent[i] = to
            } else {
                backward.label(e, cost: h, parent: to)
            }
            backward.heap.push(h, e)
            if forward.isLabelled(e), h + forward.cost[i] < bestWeight {
                bestWeight = h + forward.cost[i]
                meeting = e
            }
        }

        for (si, s) in sources.enumerated() {
            let exit = model.weight(s.edge) * (1 - s.fraction)
            for f in graph.outgoingEdges(of: graph.target(of: s.edge))
            where model.isUsable(f) && graph.isTurnAllowed(from: s.edge, to: f, mode: model.mode) {
                relaxForward(f, exit, edgeCount + UInt32(si))
            }
        }
        for (ti, t) in targets.enumerated() {
            relaxBackward(t.edge, model.weight(t.edge) * t.fraction, edgeCount + UInt32(ti))
        }

        while !forward.heap.isEmpty && !backward.heap.isEmpty {
            if forward.heap.minKey + backward.heap.minKey >= bestWeight { break }
            if forward.heap.minKey <= backward.heap.minKey {
                let (key, e) = forward.heap.popMin()
                if key > forward.cost[Int(e)] { continue }
                let next = key + model.weight(e)
                for f in graph.outgoingEdges(of: graph.target(of: e))
                where model.isUsable(f) && graph.isTurnAllowed(from: e, to: f, mode: model.mode) {
                    relaxForward(f, next, e)
                }
            } else {
                let (key, f) = backward.heap.popMin()
                if key > backward.cost[Int(f)] { continue }
                for e in graph.incomingEdges(of: graph.source(of: f))
                where model.isUsable(e) && graph.isTurnAllowed(from: e, to: f, mode: model.mode) {
                    relaxBackward(e, key + model.weight(e), f)
                }
            }
        }

        guard let meeting else { return direct }
        var (edges, si) = forwardChain(to: meeting, sources: sources)
        var e = meeting
        var ti = 0
        while true {
            let next = backward.parent[Int(e)]
            if next >= edgeCount {
                ti = Int(next - edgeCount)
                break
            }
            edges.append(next)
            e = next
        }
        return EdgePath(weight: bestWeight, edges: edges, sourceIndex: si, targetIndex: ti)
    }
}
