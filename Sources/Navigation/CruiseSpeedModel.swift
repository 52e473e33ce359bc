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
/// on residential and unclassified roads with no known limit at `minorRoadWithoutLimitKph`, on major roads with no
/// known limit at `majorRoadWithoutLimitKph`; elsewhere, and for cycling and walking, at the router's free-flow
/// speed. Never slower than the free-flow speed.
public struct CruiseSpeedModel: Sendable, Hashable {
    /// Cruise at the known speed limit (see above). Default true; false gives the router's free-flow speeds.
    public var cruisesAtSpeedLimit = true
    /// Residential and unclassified roads without a known limit, km/h. Default 50: the common urban default limit,
    /// and what simulators give such roads (SUMO's OSM type map: 13.89 m/s).
    public var minorRoadWithoutLimitKph: Double = 50
    /// Major roads without a known limit, km/h by class; classes not listed keep the router's free-flow speed.
    /// Default trunk, primary and secondary 100, tertiary 80: the rural default limits such roads have where nobody
    /// tagged one, and what SUMO's OSM type map gives them. Why: the router's class speeds (50–70 km/h, a city
    /// street's guess) made the plan 1.26 × SUMO's drive time on Kouvola, a town with one tagged limit, and its
    /// mid-leg ETA 32–40 % long; with these 0.97 × and 7–8 % (`Benchmarks/sumo/eta_study.py`, BENCHMARKS.md). Where
    /// the guess is too fast (an untagged city avenue) the trip's own pace corrects it as it drives.
    public var majorRoadWithoutLimitKph: [HighwayClass: Double] = [.trunk: 100, .primary: 100, .secondary: 100, .tertiary: 80]

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
        let highwayClass = graph.highwayClass(of: edge)
        switch highwayClass {
        case .residential, .unclassified: return max(freeFlow, minorRoadWithoutLimitKph)
        default: return max(freeFlow, majorRoadWithoutLimitKph[highwayClass] ?? 0)
        }
    }
}
