import RoadGraph

/// Which edges a query may use and what each costs, fixed for one query.
struct EdgeCostModel {
    let graph: RoadGraph
    let mode: TravelMode
    let modeMask: ModeMask
    let excludedFlags: EdgeFlags
    let strategy: RoutingStrategy
    let traffic: (any EdgeTravelTimeAdjusting)?
    /// `traffic != nil`, read on every edge: testing the existential itself copies it each time.
    let hasTraffic: Bool
    /// Adjusted durations never fall below this × free flow (the traffic adjuster's declared lower bound, ≤ 1).
    let trafficFloor: Double

    init(graph: RoadGraph, mode: TravelMode, strategy: RoutingStrategy, avoid: AvoidOptions,
         traffic: (any EdgeTravelTimeAdjusting)?) {
        self.graph = graph
        self.mode = mode
        self.modeMask = ModeMask(mode)
        self.excludedFlags = avoid.excludedFlags
        self.strategy = strategy
        self.traffic = traffic
        hasTraffic = traffic != nil
        if let traffic {
            let declared = traffic.lowerBoundFactor
            trafficFloor = declared.isFinite ? min(1, max(1e-3, declared)) : 1
        } else {
            trafficFloor = 1
        }
    }

    @inline(__always) func isUsable(_ edge: EdgeID) -> Bool {
        graph.access(of: edge).contains(modeMask) && graph.flags(of: edge).isDisjoint(with: excludedFlags)
    }

    @inline(__always) func durationSeconds(_ edge: EdgeID) -> Double {
        let freeFlow = graph.durationSeconds(of: edge, mode: mode)
        guard hasTraffic, let traffic else { return freeFlow }
        return max(traffic.durationSeconds(of: edge, mode: mode, freeFlowSeconds: freeFlow), freeFlow * trafficFloor)
    }

    /// The optimised cost of traversing the whole edge: seconds for `.best`, metres for `.shorter`.
    @inline(__always) func weight(_ edge: EdgeID) -> Double {
        switch strategy {
        case .best: durationSeconds(edge)
        case .shorter: graph.lengthMeters(of: edge)
        }
    }

    /// Landmark bounds are on free-flow weights; traffic may lower weights down to `trafficFloor` × free flow.
    var heuristicScale: Double { strategy == .best ? trafficFloor : 1 }
}
