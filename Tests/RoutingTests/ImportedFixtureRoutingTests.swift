import Foundation
import Geo
import OSMImport
import RoadGraph
import Testing
import TestKit
@testable import Routing

/// Routing on ASCII-art OSM fixtures read by the real importer, so tags and relations are interpreted exactly as
/// for a real extract. Every character step is 20 m.
///
///     A-----B-----C
///           |     |
///           D-----E
private let drawing = """
    A-----B-----C
          |     |
          D-----E
    """

private func route(
    _ fixture: ASCIIMapFixture, from: Coordinate, to: Coordinate, mode: TravelMode = .driving
) throws -> RouteLeg {
    let url = try fixture.writeTemporaryFile(name: "routing")
    defer { try? FileManager.default.removeItem(at: url) }
    let (graph, _) = try GraphImporter.buildGraph(input: url)
    let router = Router(graph: graph, landmarks: LandmarkIndex.build(graph: graph, modes: [mode]))
    let request = RouteRequest(origin: Waypoint(from), destinations: [Waypoint(to)], travelMode: mode, strategy: .shorter)
    var legs: [RouteLeg] = []
    for algorithm in SearchAlgorithm.allCases {
        let response = router.route(request, algorithm: algorithm)
        try #require(response.status == .ok, "\(algorithm): \(response.status) \(response.message)")
        legs.append(response.route!.legs[0])
    }
    for leg in legs.dropFirst() { #expect(nearlyEqual(leg.weight, legs[0].weight)) }
    return legs[0]
}

@Suite struct ImportedFixtureRoutingTests {
    private let residential = ["highway": "residential"]

    @Test func plainMapTakesTheShortCut() throws {
        let fixture = ASCIIMapFixture(drawing, gridMeters: 20, ways: [
            "AB": residential, "BC": residential, "BD": residential, "DE": residential, "CE": residential,
        ])
        let leg = try route(fixture, from: fixture.map.point("A", "B", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5))
        #expect(leg.osmWayIDs == [fixture.wayID("AB"), fixture.wayID("BD"), fixture.wayID("DE")])
        #expect(abs(leg.distanceMeters - (60 + 40 + 60)) < 1)
    }

    @Test func noRightTurnRelationForcesTheLongWay() throws {
        let fixture = ASCIIMapFixture(drawing, gridMeters: 20, ways: [
            "AB": residential, "BC": residential, "BD": residential, "DE": residential, "CE": residential,
        ], relations: [.restriction("no_right_turn", from: "AB", via: "B", to: "BD")])
        let leg = try route(fixture, from: fixture.map.point("A", "B", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5))
        #expect(!leg.osmWayIDs.contains(fixture.wayID("BD")))
        #expect(abs(leg.distanceMeters - (60 + 120 + 40 + 60)) < 1)
    }

    @Test func onlyStraightOnRelationForbidsTheTurn() throws {
        let fixture = ASCIIMapFixture(drawing, gridMeters: 20, ways: [
            "AB": residential, "BC": residential, "BD": residential, "DE": residential, "CE": residential,
        ], relations: [.restriction("only_straight_on", from: "AB", via: "B", to: "BC")])
        let leg = try route(fixture, from: fixture.map.point("A", "B", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5))
        #expect(leg.osmWayIDs.first == fixture.wayID("AB"))
        #expect(leg.osmWayIDs.dropFirst().first == fixture.wayID("BC"))
    }

    @Test func onewayTagIsHonoured() throws {
        var bd = residential
        bd["oneway"] = "-1"  // drawn B→D, open only D→B
        let fixture = ASCIIMapFixture(drawing, gridMeters: 20, ways: [
            "AB": residential, "BC": residential, "BD": bd, "DE": residential, "CE": residential,
        ])
        let leg = try route(fixture, from: fixture.map.point("A", "B", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5))
        #expect(!leg.osmWayIDs.contains(fixture.wayID("BD")))
        let back = try route(fixture, from: fixture.map.point("D", "E", fraction: 0.5), to: fixture.map.point("A", "B", fraction: 0.5))
        #expect(back.osmWayIDs.contains(fixture.wayID("BD")))
    }

    @Test func destinationOnlyCyclewayIsNoShortcutForCars() throws {
        let fixture = ASCIIMapFixture(drawing, gridMeters: 20, ways: [
            "AB": residential, "BC": residential, "BD": ["highway": "cycleway", "motorcar": "destination"],
            "DE": residential, "CE": residential,
        ])
        let drive = try route(fixture, from: fixture.map.point("A", "B", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5))
        #expect(!drive.osmWayIDs.contains(fixture.wayID("BD")))
        let ride = try route(fixture, from: fixture.map.point("A", "B", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5),
                             mode: .cycling)
        #expect(ride.osmWayIDs.contains(fixture.wayID("BD")))
    }

    @Test func bollardBlocksCarsOnly() throws {
        let fixture = ASCIIMapFixture(drawing, gridMeters: 20, ways: [
            "AB": residential, "BC": residential, "BD": residential, "DE": residential, "CE": residential,
        ], nodes: ["D": ["barrier": "bollard"]])
        // Through D by car is impossible: from the B–D road to E one must go round by C.
        let drive = try route(fixture, from: fixture.map.point("B", "D", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5))
        #expect(drive.osmWayIDs.contains(fixture.wayID("CE")))
        let walk = try route(fixture, from: fixture.map.point("B", "D", fraction: 0.5), to: fixture.map.point("D", "E", fraction: 0.5),
                             mode: .walking)
        #expect(abs(walk.distanceMeters - (20 + 60)) < 1)
    }
}
