import RoadGraph

/// The speed the remaining time assumes on an edge between its junctions, km/h; what is lost at the junctions
/// themselves is `JunctionDelayModel`'s.
///
/// Why not the router's free-flow speed: the importer caps a limit at 1.3 × the road class's typical speed
/// (`TravelProfiles`: a residential street with a 50 km/h limit is routed at 39 km/h) because a routing cost
/// should hold the slowing at junctions; the ETA charges those slow-downs per junction, so using the capped speed
/// too counted them twice. On traffic-simulated drives (SUMO, whose vehicles keep the lane's limit × a speed factor
/// around 1.0 and slow down only for junctions, turns and queues) the capped speeds made the planned legs 8–23 %
/// too long with no vehicle standing at all (Liechtenstein, BENCHMARKS.md "Remaining time on SUMO drives").
/// So: where a limit is known (tagged, or the country default for the road class) a motor vehicle cruises at it;
/// on residential and unclassified roads with no known limit at `minorRoadWithoutLimitKph`; elsewhere, and for
/// cycling and walking, at the router's free-flow speed. Never slower than the free-flow speed.
public struct CruiseSpeedModel: Sendable, Hashable {
    /// Cruise at the known speed limit (see above). Default true; false gives the router's free-flow speeds.
    public var cruisesAtSpeedLimit = true
    /// Residential and unclassified roads without a known limit, km/h. Default 50: the common urban default limit,
    /// and what simulators give such roads (SUMO's OSM type map: 13.89 m/s).
    public var minorRoadWithoutLimitKph: Double = 50

    public init() {}

    /// km/h for `mode` on `edge`; 0 where the mode has no free-flow speed (the edge is not for it).
    public func speedKph(of edge: EdgeID, graph: RoadGraph, mode: TravelMode) -> Double {
        let freeFlow = graph.freeFlowSpeedKph(of: edge, mode: mode)
        guard cruisesAtSpeedLimit, freeFlow > 0 else { return freeFlow }
        switch mode {
        case .driving, .taxi, .twoWheeler: break
        case .cycling, .walking: return freeFlow
        }
        if let limit = graph.speedLimitKph(of: edge) { return max(freeFlow, limit) }
        switch graph.highwayClass(of: edge) {
        case .residential, .unclassified: return max(freeFlow, minorRoadWithoutLimitKph)
        default: return freeFlow
        }
    }
}
