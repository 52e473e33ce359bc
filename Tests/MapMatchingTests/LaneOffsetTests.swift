import Geo
import RoadGraph
import Testing
import TraceSimulation

@testable import MapMatching

/// Vehicles in lanes, not on the centre line (`halfLaneWidthMeters`): a car in the outer lane of a wide primary
/// road is metres nearer a side street drawn beside it than the primary's centre line suggests.
@Suite struct LaneOffsetTests {
    /// A two-way primary A–B (two lanes each way) and, 8 m south of it (a frontage road) (to the right of eastbound traffic), a
    /// residential street C–D, joined at both ends.
    static let map = """
        A------------------------------------------------------------B
        |                                                            |
        C------------------------------------------------------------D
        """

    @Test func aCarInTheOuterLaneOfAPrimaryStaysOnThePrimary() throws {
        let f = try MatchingFixture(Self.map, gridMeters: 4, roads: [
            FixtureRoad(nodes: "AB", name: "Primary", highwayClass: .primary),
            FixtureRoad(nodes: "CD", name: "Side street", speedLimitKph: 30),
            FixtureRoad(nodes: "AC", name: "West link"), FixtureRoad(nodes: "BD", name: "East link"),
        ])
        var centreLine = MapMatchingConfiguration()
        centreLine.halfLaneWidthMeters = 0
        var wrongWithLanes = 0, wrongCentreLine = 0, total = 0
        for seed: UInt64 in 1...12 {
            var lanes = LaneModel()
            lanes.laneChangeProbabilityPerEdge = 0
            let drive = f.drive("AB", margin: 30) {
                $0.seed = seed
                $0.lanes = lanes
                $0.outlierProbability = 0
                // A good receiver (σ 2 m): the fixes say clearly where the car is, and it is nearer the side
                // street's centre line than the primary's.
                $0.positionSigmaMeters = 2
                $0.reportedAccuracyMeters = 3
            }
            let out = matchAll(f, drive.fixes)
            let control = matchAll(f, drive.fixes, configuration: centreLine)
            // Only drives in the outer lane (4.8 m right of the centre line, 3.2 m from the side street).
            guard let lane = drive.truth.first?.laneOffsetMeters, lane > 4 else { continue }
            total += out.count
            wrongWithLanes += out.filter { $0.osmWayID != f.way("Primary") }.count
            wrongCentreLine += control.filter { $0.osmWayID != f.way("Primary") }.count
        }
        #expect(total > 0)
        // Measured: none of 200 fixes off the primary, against all 200 on the side street without the tolerance.
        #expect(wrongWithLanes <= total / 10, "\(wrongWithLanes) of \(total) off the primary")
        #expect(wrongCentreLine >= total / 2, "\(wrongCentreLine) of \(total) off the primary without the tolerance")
    }

    @Test func theToleranceGrowsWithTheRoadClass() {
        let c = MapMatchingConfiguration()
        #expect(c.laneToleranceMeters(for: .residential) == 0)
        #expect(c.laneToleranceMeters(for: .secondary) < c.laneToleranceMeters(for: .primary))
        #expect(c.laneToleranceMeters(for: .primary) < c.laneToleranceMeters(for: .motorway))
    }
}
