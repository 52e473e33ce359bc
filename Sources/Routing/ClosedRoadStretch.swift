import RoadGraph

/// A leg's first or last stretch on a road its tags close to the travel mode (motor_vehicle=no, access=no, a
/// pedestrian street: `RoadGraph.motorModesClosedByTags`), for a waypoint or a vehicle on such a road.
///
/// Delivery vehicles drive pedestrian zones, farmers drive farm roads, and a traffic simulator may ignore the
/// tags: a vehicle really there must be routed from where it is, and a waypoint there reached where it is. The
/// stretch is searched apart from the main search, along closed roads only, from the waypoint to every node where
/// an open road can be taken (departing) or from every such node to the waypoint (arriving); the main search then
/// starts or ends at those nodes, each carrying its stretch's weight (`PathEndpoint.approachWeight`). The main
/// search never enters a closed road, so a closed road is never a short cut between open ones.
struct ClosedRoadStretch {
    let graph: RoadGraph
    let model: EdgeCostModel
    let configuration: RouterConfiguration

    /// The best way along closed roads to each closed edge reached, keyed by edge.
    struct Label {
        /// Departing: weight from the waypoint to the end of the edge; arriving: from the start of the edge to the
        /// waypoint.
        var weight: Double
        /// Closed road driven so far, metres.
        var meters: Double
        /// Departing: the edge before; arriving: the edge after (nil at the waypoint's own edge).
        var link: EdgeID?
    }

    /// One way onto or off the open network: a search endpoint on a closed edge (its end when departing, its
    /// start when arriving) with the stretch's weight, and the stretch's edges in driving order.
    struct Junction {
        var endpoint: PathEndpoint
        var edges: [EdgeID]
    }

    /// True when `e` is closed to the mode by its tags (and so not usable) although a car could drive it, and
    /// not of a kind the request avoids.
    func isClosed(_ e: EdgeID) -> Bool {
        !model.isUsable(e) && graph.motorModesClosedByTags(of: e).contains(model.modeMask)
            && graph.flags(of: e).isDisjoint(with: model.excludedFlags)
    }

    /// Free-flow time on a closed edge: the graph's motor speed for the road when it stores one, else
    /// `RouterConfiguration.closedRoadSpeedKph`.
    func durationSeconds(_ e: EdgeID) -> Double {
        let stored = graph.freeFlowSpeedKph(of: e, mode: model.mode)
        let kph = stored > 0 ? stored : configuration.closedRoadSpeedKph
        return graph.lengthMeters(of: e) * 3.6 / max(kph, 1)
    }

    /// The search weight of a whole closed edge: its time (`.best`) or length (`.shorter`) times
    /// `RouterConfiguration.closedRoadCostFactor`.
    func weight(_ e: EdgeID) -> Double {
        let base = model.strategy == .best ? durationSeconds(e) : graph.lengthMeters(of: e)
        return base * max(1, configuration.closedRoadCostFactor)
    }

    /// Dijkstra along closed edges from `endpoint` (forward when `departing`, against the driving direction
    /// otherwise), up to `RouterConfiguration.maximumClosedStretchMeters` of closed road.
    func explore(from endpoint: PathEndpoint, departing: Bool) -> [EdgeID: Label] {
        let portion = departing ? 1 - endpoint.fraction : endpoint.fraction
        var labels: [EdgeID: Label] = [
            endpoint.edge: Label(weight: weight(endpoint.edge) * portion,
                                 meters: graph.lengthMeters(of: endpoint.edge) * portion, link: nil)
        ]
        var settled: Set<EdgeID> = []
        var heap = MinHeap()
        heap.push(labels[endpoint.edge]!.weight, endpoint.edge)
        while !heap.isEmpty {
            let (key, e) = heap.popMin()
            guard let label = labels[e], key <= label.weight, settled.insert(e).inserted else { continue }
            if label.meters >= configuration.maximumClosedStretchMeters { continue }
            let node = departing ? graph.target(of: e) : graph.source(of: e)
            let neighbours: [EdgeID] = departing ? Array(graph.outgoingEdges(of: node)) : Array(graph.incomingEdges(of: node))
            let twin = graph.reverseEdge(of: e)
            // Turning back onto the twin only at a dead end: a U-turn on a closed road is no way out of it.
            let deadEnd = !neighbours.contains { $0 != twin && isClosed($0) }
            for f in neighbours where isClosed(f) && (f != twin || deadEnd) {
                let allowed = departing
                    ? graph.isTurnAllowed(from: e, to: f, mode: model.mode)
                    : graph.isTurnAllowed(from: f, to: e, mode: model.mode)
                guard allowed else { continue }
                let candidate = Label(weight: label.weight + weight(f), meters: label.meters + graph.lengthMeters(of: f),
                                      link: e)
                if candidate.weight < labels[f]?.weight ?? .infinity {
                    labels[f] = candidate
                    heap.push(candidate.weight, f)
                }
            }
        }
        return labels
    }

    /// The labelled edges where an open road can be taken: departing, those whose target node has an outgoing
    /// usable edge; arriving, those whose source node has an incoming one.
    func junctions(_ labels: [EdgeID: Label], departing: Bool) -> [Junction] {
        var found: [Junction] = []
        for (e, label) in labels {
            let joinsOpenRoad = departing
                ? graph.outgoingEdges(of: graph.target(of: e)).contains { model.isUsable($0) }
                : graph.incomingEdges(of: graph.source(of: e)).contains { model.isUsable($0) }
            guard joinsOpenRoad else { continue }
            found.append(Junction(
                endpoint: PathEndpoint(edge: e, fraction: departing ? 1 : 0, approachWeight: label.weight),
                edges: stretch(to: e, labels, departing: departing)))
        }
        // Dictionary order is random per process: sort so that equal-weight ties resolve the same way every run.
        return found.sorted { ($0.endpoint.approachWeight, $0.endpoint.edge) < ($1.endpoint.approachWeight, $1.endpoint.edge) }
    }

    /// The stretch's edges in driving order, from the waypoint's edge to `e` (departing) or from `e` to it.
    func stretch(to e: EdgeID, _ labels: [EdgeID: Label], departing: Bool) -> [EdgeID] {
        var edges: [EdgeID] = [e]
        var current = e
        while let next = labels[current]?.link {
            edges.append(next)
            current = next
        }
        return departing ? edges.reversed() : edges
    }

    /// The best path on closed roads alone from a departing to an arriving waypoint (both on closed roads):
    /// through a turn from an edge reached departing onto one reached arriving, or along the same edge.
    func directPath(
        from source: PathEndpoint, _ departures: [EdgeID: Label], to target: PathEndpoint, _ arrivals: [EdgeID: Label]
    ) -> (weight: Double, edges: [EdgeID])? {
        var best: (weight: Double, edges: [EdgeID])?
        if source.edge == target.edge && target.fraction >= source.fraction {
            best = (weight(source.edge) * (target.fraction - source.fraction), [source.edge])
        }
        for (e, label) in departures {
            for f in graph.outgoingEdges(of: graph.target(of: e)) {
                guard let arrival = arrivals[f], graph.isTurnAllowed(from: e, to: f, mode: model.mode) else { continue }
                let total = label.weight + arrival.weight
                if total < best?.weight ?? .infinity {
                    best = (total, stretch(to: e, departures, departing: true) + stretch(to: f, arrivals, departing: false))
                }
            }
        }
        return best
    }
}
