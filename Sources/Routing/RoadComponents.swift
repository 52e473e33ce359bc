import RoadGraph

/// Strongly connected components of the road network of one travel mode (nodes joined by edges the mode may use,
/// ignoring turn restrictions, barriers and avoid options), so the router can tell a waypoint snapped onto a small
/// island — a driveway whose only link is a track closed to cars, a car park behind a barrier — from one on the
/// main network. Built once per mode: O(nodes + edges), iterative Tarjan.
struct RoadComponents {
    /// Component of each node.
    private let component: [UInt32]
    /// Node count of each component.
    private let size: [Int]

    init(graph: RoadGraph, mode: TravelMode) {
        let mask = ModeMask(mode)
        let n = graph.nodeCount
        let unvisited = UInt32.max
        var index = [UInt32](repeating: unvisited, count: n)
        var lowLink = [UInt32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var component = [UInt32](repeating: 0, count: n)
        var size: [Int] = []
        var stack: [NodeID] = []
        var counter: UInt32 = 0
        // Call frames of the depth-first search: a node and the next of its outgoing edges to look at.
        var frames: [(node: NodeID, next: EdgeID)] = []
        for root in 0..<n where index[root] == unvisited {
            frames.append((NodeID(root), graph.outgoingEdges(of: NodeID(root)).lowerBound))
            index[root] = counter
            lowLink[root] = counter
            counter += 1
            stack.append(NodeID(root))
            onStack[root] = true
            while let frame = frames.last {
                let v = Int(frame.node)
                let edges = graph.outgoingEdges(of: frame.node)
                var e = frame.next
                var descended = false
                while e < edges.upperBound {
                    defer { e += 1 }
                    guard graph.access(of: e).contains(mask) else { continue }
                    let w = Int(graph.target(of: e))
                    if index[w] == unvisited {
                        frames[frames.count - 1].next = e + 1
                        index[w] = counter
                        lowLink[w] = counter
                        counter += 1
                        stack.append(NodeID(w))
                        onStack[w] = true
                        frames.append((NodeID(w), graph.outgoingEdges(of: NodeID(w)).lowerBound))
                        descended = true
                        break
                    } else if onStack[w] {
                        lowLink[v] = min(lowLink[v], index[w])
                    }
                }
                if descended { continue }
                frames.removeLast()
                if let parent = frames.last { lowLink[Int(parent.node)] = min(lowLink[Int(parent.node)], lowLink[v]) }
                if lowLink[v] == index[v] {
                    let id = UInt32(size.count)
                    var count = 0
                    while let w = stack.popLast() {
                        onStack[Int(w)] = false
                        component[Int(w)] = id
                        count += 1
                        if Int(w) == v { break }
                    }
                    size.append(count)
                }
            }
        }
        self.component = component
        self.size = size
    }

    /// Nodes in the component of `node`.
    func nodeCount(ofComponentOf node: NodeID) -> Int { size[Int(component[Int(node)])] }

    /// Whether both ends of `edge` lie in one component of at least `minimumNodes` nodes: the edge can be left
    /// and reached from everywhere in it.
    func isOnLargeComponent(_ edge: EdgeID, graph: RoadGraph, minimumNodes: Int) -> Bool {
        let (u, v) = (Int(graph.source(of: edge)), Int(graph.target(of: edge)))
        return component[u] == component[v] && size[Int(component[u])] >= minimumNodes
    }
}
