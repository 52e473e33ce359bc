import Geo
import RoadGraph
import Testing

@testable import Navigation

/// Turn delays at a junction (`JunctionDelayModel`): a turn to the kerb side costs `kerbSideTurnSeconds`, one across
/// the oncoming lane `crossingTurnSeconds`, and which side is the kerb follows the map's driving side.
///
///         C
///         |
///     A---B---E
///         |
///         D
@Suite struct JunctionDelayTests {
    func roads(country: String?) throws -> DrawnRoads {
        try DrawnRoads("""
                    C
                    |
                A---B---E
                    |
                    D
                """, gridMeters: 20, ways: [.init("ABE"), .init("CBD")], country: country)
    }

    /// Seconds charged at B for A→B then B→`next` (driving east, C is to the left, D to the right).
    func turnSeconds(_ roads: DrawnRoads, to next: String, model: JunctionDelayModel = JunctionDelayModel()) -> Double {
        let edges = [roads.edges["AB"]!, roads.edges[next]!]
        let portions = edges.map { roads.graph.lengthMeters(of: $0) }
        return model.delays(along: edges, portionsMeters: portions, graph: roads.graph, mode: .driving)[0].seconds
    }

    @Test func theKerbSideFollowsTheMapsDrivingSide() throws {
        let model = JunctionDelayModel()
        let right = try roads(country: "FI")
        #expect(turnSeconds(right, to: "BD") == model.kerbSideTurnSeconds)
        #expect(turnSeconds(right, to: "BC") == model.crossingTurnSeconds)
        let left = try roads(country: "GB")
        #expect(turnSeconds(left, to: "BC") == model.kerbSideTurnSeconds)
        #expect(turnSeconds(left, to: "BD") == model.crossingTurnSeconds)
        // No country: right-hand traffic, as before the map could say.
        #expect(turnSeconds(try roads(country: nil), to: "BD") == model.kerbSideTurnSeconds)
        // A configured side wins over the map's.
        var configured = JunctionDelayModel()
        configured.rightHandTraffic = true
        #expect(turnSeconds(left, to: "BD", model: configured) == model.kerbSideTurnSeconds)
        #expect(model.kerbSideTurnSeconds != model.crossingTurnSeconds)
    }
}
