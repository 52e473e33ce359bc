import RoadGraph

/// A caller-supplied change to edge travel times (live traffic). The router asks it for the duration of every
/// edge it relaxes, so implementations must be cheap (an array or dictionary lookup).
///
/// Exactness with ALT landmarks: landmark lower bounds are computed on free-flow times. They stay valid when every
/// adjusted time is at least `lowerBoundFactor` × the free-flow time; the router scales its heuristic by that
/// factor and clamps any smaller answer up to it, so routes stay exact without rebuilding the landmarks.
public protocol EdgeTravelTimeAdjusting: Sendable {
    /// Travel time of `edge` for `mode`, seconds, given its free-flow time.
    func durationSeconds(of edge: EdgeID, mode: TravelMode, freeFlowSeconds: Double) -> Double
    /// The smallest ratio adjusted ÷ free-flow time this adjuster ever returns (1 when traffic only slows down).
    var lowerBoundFactor: Double { get }
}

/// Traffic as per-edge speed overrides and duration multipliers (e.g. from a traffic feed), for one travel mode.
public struct TrafficOverlay: EdgeTravelTimeAdjusting {
    /// Ratio free-flow speed ÷ current speed per edge with a speed override.
    private let slowdownByEdge: [EdgeID: Double]
    /// Multiplier on the duration per edge; 2 means twice as slow.
    private let multiplierByEdge: [EdgeID: Double]
    public let lowerBoundFactor: Double

    /// - Parameters:
    ///   - speedKphByEdge: current speed per edge, km/h (> 0), replacing the edge's free-flow speed for `mode`.
    ///   - durationMultiplierByEdge: multiplier (> 0) applied on top, per edge.
    /// Non-positive values are ignored.
    public init(
        graph: RoadGraph, mode: TravelMode = .driving, speedKphByEdge: [EdgeID: Double] = [:],
        durationMultiplierByEdge: [EdgeID: Double] = [:]
    ) {
        var slowdown: [EdgeID: Double] = [:]
        for (edge, speed) in speedKphByEdge where speed > 0 && Int(edge) < graph.edgeCount {
            let freeFlow = graph.freeFlowSpeedKph(of: edge, mode: mode)
            if freeFlow > 0 { slowdown[edge] = freeFlow / speed }
        }
        let multipliers = durationMultiplierByEdge.filter { $0.value > 0 }
        var factor = 1.0
        for (edge, ratio) in slowdown { factor = min(factor, ratio * (multipliers[edge] ?? 1)) }
        for (edge, multiplier) in multipliers where slowdown[edge] == nil { factor = min(factor, multiplier) }
        slowdownByEdge = slowdown
        multiplierByEdge = multipliers
        lowerBoundFactor = factor
    }

    public func durationSeconds(of edge: EdgeID, mode: TravelMode, freeFlowSeconds: Double) -> Double {
        freeFlowSeconds * (slowdownByEdge[edge] ?? 1) * (multiplierByEdge[edge] ?? 1)
    }
}
