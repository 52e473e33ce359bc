import RoadGraph

/// What a vehicle meets at the traffic-signal nodes along a route. OSM tags each approach, carriageway and
/// crossing of one signalised junction (Helsinki puts 2–4 signal nodes on one crossing, often at the stop lines a
/// few metres before the junction node), and signals between junctions are pedestrian crossings: a vehicle waits
/// once per junction, and rarely at a crossing. The navigator's junction delays and the drive simulator's stops
/// both read the route this way, so they agree on what a signal is.
public struct SignalJunctions: Sendable, Hashable {
    /// How the node at the end of a route edge counts.
    public enum Kind: Sendable, Hashable {
        /// No signal there, and not part of a signalised junction just passed.
        case none
        /// The first signal node of a signalised junction: where the vehicle may wait.
        case junction
        /// A further node of a junction already met (another signal node, or the junction node just past its
        /// stop-line signal): signal-controlled, no wait of its own.
        case sameJunction
        /// A signal at a node with no junction within `stopLineReachMeters` ahead and none just passed: a
        /// pedestrian crossing.
        case crossing
    }

    /// Signal nodes closer than this along the route to the last junction signal, and junction nodes closer than
    /// this after it, belong to the same junction, metres. Default 40: the far side of a dual carriageway or a large
    /// crossing, not the next junction of a city block (Helsinki's blocks are 60–150 m).
    public var clusterMeters: Double = 40
    /// A signal node that is no junction belongs to the first junction at most this far ahead on the route (its stop
    /// line), metres. Default 25.
    public var stopLineReachMeters: Double = 25

    public init() {}

    /// The kind of the node at the end of each edge of `edges` (a route; the last entry is `.none`).
    /// `portionsMeters[i]` is the length of edge i the route uses; a piece shorter than 1 m at either end of the
    /// route means the route starts or ends at the node, which then counts as `.none`.
    public func kinds(along edges: [EdgeID], portionsMeters: [Double], graph: RoadGraph) -> [Kind] {
        var out = Array(repeating: Kind.none, count: edges.count)
        var sinceJunctionSignal = Double.infinity  // metres driven since the last junction signal
        for i in 0..<max(0, edges.count - 1) {
            sinceJunctionSignal += portionsMeters[i]
            guard portionsMeters[i] >= 1 && portionsMeters[i + 1] >= 1 else { continue }
            if graph.flags(of: edges[i]).contains(.trafficSignalsAtTarget) {
                if sinceJunctionSignal < clusterMeters {
                    out[i] = .sameJunction  // another approach, carriageway or exit crossing of the junction
                } else if !junctionAhead(of: i, along: edges, portionsMeters: portionsMeters, graph: graph) {
                    out[i] = .crossing
                } else {
                    out[i] = .junction
                    sinceJunctionSignal = 0
                }
            } else if sinceJunctionSignal < clusterMeters && Self.branchCount(at: edges[i], graph: graph) >= 2 {
                out[i] = .sameJunction  // the junction node just past its stop-line signal
            }
        }
        return out
    }

    /// Whether the end node of `edges[i]` is a junction, or one lies within `stopLineReachMeters` after it on the
    /// route (before the route's last node).
    private func junctionAhead(of i: Int, along edges: [EdgeID], portionsMeters: [Double], graph: RoadGraph) -> Bool {
        var j = i
        var ahead = 0.0
        while j < edges.count - 1 && ahead <= stopLineReachMeters {
            if Self.branchCount(at: edges[j], graph: graph) >= 2 { return true }
            j += 1
            ahead += portionsMeters[j]
        }
        return false
    }

    /// Other roads meeting at the end node of `edge` (either direction) that `modes` may use, not counting the one
    /// it came from: two or more make the node a junction. The default counts roads for motor vehicles: a footway
    /// or cycleway crossing the street is a crossing, not a junction.
    public static func branchCount(at edge: EdgeID, graph: RoadGraph, usableBy modes: ModeMask = .motorized) -> Int {
        branches(at: edge, graph: graph, usableBy: modes).count
    }

    /// The edges of those other roads at the end node of `edge` (one per neighbouring node, outgoing if there is
    /// one, else incoming).
    public static func branches(at edge: EdgeID, graph: RoadGraph, usableBy modes: ModeMask = .motorized) -> [EdgeID] {
        let node = graph.target(of: edge)
        let cameFrom = graph.source(of: edge)
        var neighbours: [NodeID] = []
        var edges: [EdgeID] = []
        for e in graph.outgoingEdges(of: node) where !graph.access(of: e).isDisjoint(with: modes) {
            let n = graph.target(of: e)
            if n != cameFrom && !neighbours.contains(n) { neighbours.append(n); edges.append(e) }
        }
        for e in graph.incomingEdges(of: node) where !graph.access(of: e).isDisjoint(with: modes) {
            let n = graph.source(of: e)
            if n != cameFrom && !neighbours.contains(n) { neighbours.append(n); edges.append(e) }
        }
        return edges
    }

    /// Going straight on from `from` into `to` along a road more important than every other road at the node (a main
    /// road past side streets): the side streets give way. Between roads of one class, or onto a major road, the
    /// vehicle yields or slows.
    public static func hasPriority(
        _ from: EdgeID, continuingTo to: EdgeID, graph: RoadGraph, usableBy modes: ModeMask = .motorized
    ) -> Bool {
        let own = importance(graph.highwayClass(of: from))
        let next = graph.target(of: to)
        return branches(at: from, graph: graph, usableBy: modes).allSatisfy { e in
            graph.source(of: e) == next || graph.target(of: e) == next || importance(graph.highwayClass(of: e)) > own
        }
    }

    /// Road importance for right of way, 0 most important (links rank with their road).
    public static func importance(_ c: HighwayClass) -> Int {
        switch c {
        case .motorway, .motorwayLink: 0
        case .trunk, .trunkLink: 1
        case .primary, .primaryLink: 2
        case .secondary, .secondaryLink: 3
        case .tertiary, .tertiaryLink: 4
        case .unclassified, .road: 5
        case .residential, .busway: 6
        case .livingStreet: 7
        case .service, .track: 8
        default: 9
        }
    }
}
