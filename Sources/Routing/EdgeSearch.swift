import RoadGraph

/// A place part-way along a directed edge where a path starts or ends (a phantom node).
struct PathEndpoint: Hashable {
    var edge: EdgeID
    /// Position along the edge from its source, 0...1 of its length (and of its weight: costs are uniform along
    /// an edge).
    var fraction: Double
    /// Weight paid before a source's edge ends or after a target's edge starts, outside this search: the stretch on
    /// a road closed to the mode that joins a waypoint there to the open network (`ClosedRoadStretch`; such an
    /// endpoint is at its edge's end, fraction 1, as a source and at its start, fraction 0, as a target). 0
    /// otherwise.
    var approachWeight: Double = 0

    /// Weight from this source's position to the end of its edge, approach included. An edge the mode may not
    /// use weighs infinity, and then only the approach counts (a closed stretch's source sits at its edge's end).
    @inline(__always) func exitWeight(_ edgeWeight: Double) -> Double {
        (fraction >= 1 ? 0 : edgeWeight * (1 - fraction)) + approachWeight
    }

    /// Weight from the start of this target's edge to its position, approach included (see `exitWeight`).
    @inline(__always) func entryWeight(_ edgeWeight: Double) -> Double {
        (fraction <= 0 ? 0 : edgeWeight * fraction) + approachWeight
    }
}

/// The best complete path a bidirectional search has found so far: its weight and the edge where the two
/// searches met (nil: none yet, or only the direct path).
struct Meeting {
    var weight: Double
    var edge: EdgeID?
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
    /// pay a bounds check and a dynamic exclusivity check on each access. Indices are edge ids (< count) taken
    /// from the graph's own adjacency (`SearchTopology`) or checked by its accessors.
    let stamp: UnsafeMutablePointer<UInt32>
    let cost: UnsafeMutablePointer<Double>
    /// Forward: the predecessor edge; backward: the successor edge. `≥ edgeCount` marks a source (forward) or
    /// target (backward) endpoint with index `parent - edgeCount`.
    let parent: UnsafeMutablePointer<UInt32>
    /// ALT potential of the edge's source node for this query (forward A* only).
    let potential: UnsafeMutablePointer<Double>
    private(set) var current: UInt32 = 0
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
}

/// Per-node cache of the ALT potential for the current query: all outgoing edges of a node share it.
final class NodePotentialCache {
    private let count: Int
    let stamp: UnsafeMutablePointer<UInt32>
    let value: UnsafeMutablePointer<Double>
    private(set) var current: UInt32 = 0

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
}

/// The three exact shortest-path methods on directed edges.
///
/// The inner loops read the router's flat `SearchTopology` and the query's `EdgeCostTable` (free-flow weights and
/// usability precomputed per mode, strategy and avoid options) and fall back to `RoadGraph.isTurnAllowed` only for
/// turns out of edges that start a turn restriction or end at a node that blocks the mode.
struct EdgeSearch {
    let model: EdgeCostModel
    let topology: SearchTopology
    let costs: EdgeCostTable
    let forward: SearchLabels
    let backward: SearchLabels
    let potentials: NodePotentialCache

    private var graph: RoadGraph { model.graph }
    private var edgeCount: UInt32 { UInt32(topology.edgeCount) }

    /// The optimised cost of the whole edge: the table's free-flow weight, or the model's when traffic applies.
    @inline(__always) private func weight(_ e: EdgeID) -> Double {
        model.hasTraffic ? model.weight(e) : costs.weight[Int(e)]
    }

    @inline(__always) private func isUsable(_ e: EdgeID) -> Bool {
        costs.info[Int(e)] & EdgeCostTable.usable != 0
    }

    /// `RoadGraph.isTurnAllowed(from:to:mode:)` for `to` among the outgoing edges of `target(from)`, answered
    /// without the call when neither a restriction nor a barrier is involved: then rules 2–4 pass and rule 5 (the
    /// U-turn) is the table's precomputed answer.
    @inline(__always) private func isTurnAllowed(from: EdgeID, to: EdgeID) -> Bool {
        let bits = costs.info[Int(from)]
        if bits & EdgeCostTable.checkTurns == 0 {
            return topology.reverse[Int(from)] != to || bits & EdgeCostTable.uTurnAllowed != 0
        }
        return graph.isTurnAllowed(from: from, to: to, mode: model.mode)
    }

    /// Best path that stays on one edge: source and target on the same edge, target not behind the source.
    private func directPath(_ sources: [PathEndpoint], _ targets: [PathEndpoint]) -> EdgePath? {
        var best: EdgePath?
        for (si, s) in sources.enumerated() {
            for (ti, t) in targets.enumerated() where s.edge == t.edge && t.fraction >= s.fraction {
                let weight = weight(s.edge) * (t.fraction - s.fraction) + s.approachWeight + t.approachWeight
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
        // The heap lives in a local while searching: a class-stored heap pays exclusivity checks on every push/pop.
        var heap = MinHeap()
        swap(&heap, &forward.heap)
        let firstOut = topology.firstOut, targetNode = topology.target, sourceNode = topology.source
        let cost = forward.cost, parent = forward.parent, pot = forward.potential
        // Stamps read once: reading a class's `var` in the loop costs a dynamic exclusivity check each time.
        let stamp = forward.stamp, now = forward.current
        let nodeStamp = potentials.stamp, nodeValue = potentials.value, nodeNow = potentials.current
        var best = directPath(sources, targets)
        var bestWeight = best?.weight ?? .infinity
        var bestEnd: (edge: EdgeID, target: Int)?
        // A target on a road closed to the mode (a closed stretch's start) is entered although unusable, and never
        // left: the search must not drive through a closed road.
        let closedTargets = targets.filter { !isUsable($0.edge) }.map(\.edge)

        // `heap` goes in as inout rather than being captured: a captured var gets dynamic exclusivity checks.
        @inline(__always) func relax(_ heap: inout MinHeap, _ f: EdgeID, _ g: Double, _ from: UInt32) {
            let i = Int(f)
            if stamp[i] == now {
                if g >= cost[i] { return }
                cost[i] = g
                parent[i] = from
            } else {
                stamp[i] = now
                cost[i] = g
                parent[i] = from
                if let potential {
                    // All outgoing edges of a node share its potential: cache it per node for this query.
                    let v = Int(sourceNode[i])
                    if nodeStamp[v] == nodeNow {
                        pot[i] = nodeValue[v]
                    } else {
                        let value = potential.value(at: NodeID(v))
                        nodeStamp[v] = nodeNow
                        nodeValue[v] = value
                        pot[i] = value
                    }
                } else {
                    pot[i] = 0
                }
            }
            let pi = pot[i]
            if pi.isFinite { heap.push(g + pi, f) }
        }

        for (si, s) in sources.enumerated() {
            let exit = s.exitWeight(weight(s.edge))
            let v = Int(targetNode[Int(s.edge)])
            for f in firstOut[v]..<firstOut[v + 1]
            where (isUsable(f) || (!closedTargets.isEmpty && closedTargets.contains(f))) && isTurnAllowed(from: s.edge, to: f) {
                relax(&heap, f, exit, edgeCount + UInt32(si))
            }
        }
        while !heap.isEmpty {
            let (key, e) = heap.popMin()
            if key >= bestWeight { break }
            let i = Int(e)
            let g = cost[i]
            if key > g + pot[i] { continue }  // stale entry
            let w = weight(e)
            for (ti, t) in targets.enumerated() where t.edge == e {
                let total = g + t.entryWeight(w)
                if total < bestWeight {
                    bestWeight = total
                    bestEnd = (e, ti)
                }
            }
            if !closedTargets.isEmpty && !isUsable(e) { continue }
            let next = g + w
            let v = Int(targetNode[i])
            for f in firstOut[v]..<firstOut[v + 1]
            where (isUsable(f) || (!closedTargets.isEmpty && closedTargets.contains(f))) && isTurnAllowed(from: e, to: f) {
                relax(&heap, f, next, e)
            }
        }
        if let bestEnd {
            let (edges, si) = forwardChain(to: bestEnd.edge, sources: sources)
            best = EdgePath(weight: bestWeight, edges: edges, sourceIndex: si, targetIndex: bestEnd.target)
        }
        swap(&heap, &forward.heap)
        return best
    }

    /// Bidirectional Dijkstra on directed edges; stops when the two smallest keys together reach the best
    /// meeting cost.
    func bidirectional(from sources: [PathEndpoint], to targets: [PathEndpoint]) -> EdgePath? {
        bidirectional(from: sources, to: targets, potential: nil)
    }

    /// Bidirectional A* with the average potential of Ikeda et al. (as in Goldberg & Harrelson's bidirectional
    /// ALT): p(v) = (π_t(v) − π_s(v)) / 2 forward and −p(v) backward, where π_t bounds the weight from v to the
    /// targets and π_s the weight from the sources to v. Both bounds are consistent, so p is a feasible potential
    /// and the search is bidirectional Dijkstra on reduced costs: it stops when the two smallest keys together
    /// reach the best meeting cost (the constants p(source) and p(target) cancel). Nodes either bound proves
    /// unreachable are pruned in both directions; they lie on no source–target path.
    func bidirectional(
        from sources: [PathEndpoint], to targets: [PathEndpoint], potential: AveragePotential?
    ) -> EdgePath? {
        forward.reset()
        backward.reset()
        potentials.reset()
        var forwardHeap = MinHeap(), backwardHeap = MinHeap()
        swap(&forwardHeap, &forward.heap)
        swap(&backwardHeap, &backward.heap)
        let firstOut = topology.firstOut, firstIn = topology.firstIn, inEdges = topology.inEdges
        let targetNode = topology.target, sourceNode = topology.source
        let forwardCost = forward.cost, backwardCost = backward.cost
        let forwardParent = forward.parent, backwardParent = backward.parent
        let forwardStamp = forward.stamp, forwardNow = forward.current
        let backwardStamp = backward.stamp, backwardNow = backward.current
        let nodeStamp = potentials.stamp, nodeValue = potentials.value, nodeNow = potentials.current
        let direct = directPath(sources, targets)
        // Mutable search state goes into the nested functions as inout arguments: captured vars would get dynamic
        // exclusivity checks on every access.
        var best = Meeting(weight: direct?.weight ?? .infinity, edge: nil)
        // As in `unidirectional`: the forward search may enter a target on a closed road, never leave one.
        let closedTargets = targets.filter { !isUsable($0.edge) }.map(\.edge)

        /// The forward potential of the node where edge state `i` is labelled (its source node), cached per node
        /// for this query; `.infinity` marks a pruned node. The backward potential is its negation.
        @inline(__always) func nodePotential(_ i: Int) -> Double {
            guard let potential else { return 0 }
            let v = Int(sourceNode[i])
            if nodeStamp[v] == nodeNow { return nodeValue[v] }
            let value = potential.value(at: NodeID(v))
            nodeStamp[v] = nodeNow
            nodeValue[v] = value
            return value
        }
        @inline(__always) func relaxForward(
            _ forwardHeap: inout MinHeap, _ best: inout Meeting, _ f: EdgeID, _ g: Double, _ from: UInt32
        ) {
            let i = Int(f)
            if forwardStamp[i] == forwardNow {
                if g >= forwardCost[i] { return }
            }
            let p = nodePotential(i)
            if p == .infinity { return }
            forwardStamp[i] = forwardNow
            forwardCost[i] = g
            forwardParent[i] = from
            forwardHeap.push(g + p, f)
            if backwardStamp[i] == backwardNow, g + backwardCost[i] < best.weight {
                best = Meeting(weight: g + backwardCost[i], edge: f)
            }
        }
        @inline(__always) func relaxBackward(
            _ backwardHeap: inout MinHeap, _ best: inout Meeting, _ e: EdgeID, _ h: Double, _ to: UInt32
        ) {
            let i = Int(e)
            if backwardStamp[i] == backwardNow {
                if h >= backwardCost[i] { return }
            }
            let p = nodePotential(i)
            if p == .infinity { return }
            backwardStamp[i] = backwardNow
            backwardCost[i] = h
            backwardParent[i] = to
            backwardHeap.push(h - p, e)
            if forwardStamp[i] == forwardNow, h + forwardCost[i] < best.weight {
                best = Meeting(weight: h + forwardCost[i], edge: e)
            }
        }

        for (si, s) in sources.enumerated() {
            let exit = s.exitWeight(weight(s.edge))
            let v = Int(targetNode[Int(s.edge)])
            for f in firstOut[v]..<firstOut[v + 1]
            where (isUsable(f) || (!closedTargets.isEmpty && closedTargets.contains(f))) && isTurnAllowed(from: s.edge, to: f) {
                relaxForward(&forwardHeap, &best, f, exit, edgeCount + UInt32(si))
            }
        }
        for (ti, t) in targets.enumerated() {
            relaxBackward(&backwardHeap, &best, t.edge, t.entryWeight(weight(t.edge)), edgeCount + UInt32(ti))
        }

        while !forwardHeap.isEmpty && !backwardHeap.isEmpty {
            if forwardHeap.minKey + backwardHeap.minKey >= best.weight { break }
            if forwardHeap.minKey <= backwardHeap.minKey {
                let (key, e) = forwardHeap.popMin()
                let g = forwardCost[Int(e)]
                if key > g + nodePotential(Int(e)) { continue }  // stale entry
                if !closedTargets.isEmpty && !isUsable(e) { continue }
                let next = g + weight(e)
                let v = Int(targetNode[Int(e)])
                for f in firstOut[v]..<firstOut[v + 1]
                where (isUsable(f) || (!closedTargets.isEmpty && closedTargets.contains(f))) && isTurnAllowed(from: e, to: f) {
                    relaxForward(&forwardHeap, &best, f, next, e)
                }
            } else {
                let (key, f) = backwardHeap.popMin()
                let h = backwardCost[Int(f)]
                if key > h - nodePotential(Int(f)) { continue }  // stale entry
                let u = Int(sourceNode[Int(f)])
                for j in Int(firstIn[u])..<Int(firstIn[u + 1]) {
                    let e = inEdges[j]
                    if isUsable(e) && isTurnAllowed(from: e, to: f) {
                        relaxBackward(&backwardHeap, &best, e, h + weight(e), f)
                    }
                }
            }
        }

        swap(&forwardHeap, &forward.heap)
        swap(&backwardHeap, &backward.heap)
        guard let meeting = best.edge else { return direct }
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
        return EdgePath(weight: best.weight, edges: edges, sourceIndex: si, targetIndex: ti)
    }
}
