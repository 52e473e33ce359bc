import Foundation
import Geo
import OSMImport
import RoadGraph
import Testing
import TestKit

@testable import Routing

/// Legs that start or end on a road closed to cars by its tags (`RouterConfiguration.closedRoadSnapMarginMeters`):
/// the closed road is driven from the waypoint to the open network and no farther, never as a short cut.
///
/// Grid 20 m. Main (A–B–C) is open; the Lane (B–D–E, motor_vehicle=no) runs 120 m south from B, split at D by a
/// footway to H; the Loop (C–F–G–E) joins C to the Lane's far end E by open roads.
///
///     A---------B---------C
///               |         |
///               |         |
///               D---H     |
///               |         |
///               |         |
///               E---------F
private let drawing = """
    A---------B---------C
              |         |
              |         |
              D---H     |
              |         |
              |         |
              E---------F
    """

private struct ClosedRoadFixture {
    let fixture: ASCIIMapFixture
    let graph: RoadGraph
    let landmarks: LandmarkIndex

    init(lane: [String: String] = ["highway": "residential", "motor_vehicle": "no"]) throws {
        let open = ["highway": "residential"]
        fixture = ASCIIMapFixture(drawing, gridMeters: 20, ways: [
            "ABC": open, "BDE": lane, "DH": ["highway": "footway"], "CF": open, "FE": open,
        ])
        let url = try fixture.writeTemporaryFile(name: "closed-road-routing")
        defer { try? FileManager.default.removeItem(at: url) }
        graph = try GraphImporter.buildGraph(input: url).0
        landmarks = LandmarkIndex.build(graph: graph, modes: [.driving])
    }

    /// The legs of `request` by every search method, which must agree on weights and edges.
    func legs(_ request: RouteRequest, configuration: RouterConfiguration = RouterConfiguration()) throws -> [RouteLeg] {
        let router = Router(graph: graph, landmarks: landmarks, configuration: configuration)
        var answers: [[RouteLeg]] = []
        for algorithm in SearchAlgorithm.allCases {
            let response = router.route(request, algorithm: algorithm)
            try #require(response.status == .ok, "\(algorithm): \(response.status) \(response.message)")
            answers.append(response.route!.legs)
        }
        for other in answers.dropFirst() {
            #expect(other.map(\.weight).elementsEqual(answers[0].map(\.weight), by: nearlyEqual))
            #expect(other.map(\.edges) == answers[0].map(\.edges))
        }
        return answers[0]
    }

    func leg(from: Coordinate, to: Coordinate, heading: Double? = nil,
             configuration: RouterConfiguration = RouterConfiguration()) throws -> RouteLeg {
        let request = RouteRequest(origin: Waypoint(from, preferredHeadingDegrees: heading), destinations: [Waypoint(to)])
        return try legs(request, configuration: configuration)[0]
    }

    var lane: Int64 { fixture.wayID("BDE") }
    var main: Int64 { fixture.wayID("ABC") }
    func isLaneEdge(_ e: EdgeID) -> Bool { graph.osmWayID(of: e) == lane }
}

private let closedRoadsOff: RouterConfiguration = {
    var c = RouterConfiguration()
    c.closedRoadSnapMarginMeters = .infinity
    return c
}()

@Suite struct ClosedRoadRoutingTests {
    @Test func aDestinationOnAClosedRoadIsReachedThere() throws {
        let f = try ClosedRoadFixture()
        let a = f.fixture.map["A"], b = f.fixture.map["B"]
        let destination = f.fixture.map.point("D", "E", fraction: 0.5)  // 90 m down the lane, 90 m from Main
        let leg = try f.leg(from: f.fixture.map.point("A", "B", fraction: 0.5), to: destination)
        #expect(leg.osmWayIDs == [f.main, f.lane])
        #expect(f.isLaneEdge(leg.end.edge))
        #expect(Geodesy.distanceMeters(leg.end.point, destination) < 1)
        // Both lane edges (B–D and D–E: the footway splits it at D) are driven, from B down to the destination.
        #expect(leg.edges.suffix(2).allSatisfy(f.isLaneEdge))
        let expected = Geodesy.distanceMeters(a, b) / 2 + Geodesy.distanceMeters(b, destination)
        #expect(abs(leg.distanceMeters - expected) < 1, "\(leg.distanceMeters) m, expected \(expected)")
        // The lane has no motor speed of its own: 90 m at the default 20 km/h plus 100 m of Main.
        #expect(leg.durationSeconds > 90 * 3.6 / 20)

        // Control: without closed roads the leg ends on the nearest open road (E–F, 30 m away).
        let without = try f.leg(from: f.fixture.map.point("A", "B", fraction: 0.5), to: destination,
                                configuration: closedRoadsOff)
        #expect(without.osmWayIDs.last == f.fixture.wayID("FE"))
        #expect(!without.osmWayIDs.contains(f.lane))
    }

    @Test func aDestinationOnAPedestrianStreetIsReachedOnTheNearestOpenRoad() throws {
        let f = try ClosedRoadFixture(lane: ["highway": "pedestrian"])
        let destination = f.fixture.map.point("D", "E", fraction: 0.5)  // 90 m into the zone, 30 m from E–F
        let leg = try f.leg(from: f.fixture.map.point("A", "B", fraction: 0.5), to: destination)
        #expect(leg.osmWayIDs.last == f.fixture.wayID("FE"))
        #expect(!leg.osmWayIDs.contains(f.lane))

        // Control: with pedestrian streets allowed as destinations the leg goes into the zone to the waypoint.
        var allowed = RouterConfiguration()
        allowed.closedRoadDestinationsOnPedestrianStreets = true
        let inside = try f.leg(from: f.fixture.map.point("A", "B", fraction: 0.5), to: destination,
                               configuration: allowed)
        #expect(f.isLaneEdge(inside.end.edge))
        #expect(Geodesy.distanceMeters(inside.end.point, destination) < 1)
        // A vehicle in the zone still leaves from where it is.
        let out = try f.leg(from: destination, to: f.fixture.map.point("C", "F", fraction: 0.5))
        #expect(f.isLaneEdge(out.start.edge))
    }

    @Test func aStartOnAClosedRoadLeavesByItsNearestOpenEnd() throws {
        let f = try ClosedRoadFixture()
        // 30 m up the lane from E, 90 m from B, to the middle of C–F: out at E (30 m of lane, then 200 + 60 m of the
        // Loop), not up the lane to B (90 m of lane, then 200 + 60 m of Main and C–F).
        let start = f.fixture.map.point("D", "E", fraction: 0.5)
        let leg = try f.leg(from: start, to: f.fixture.map.point("C", "F", fraction: 0.5))
        #expect(leg.osmWayIDs == [f.lane, f.fixture.wayID("FE"), f.fixture.wayID("CF")])
        #expect(abs(leg.distanceMeters - (30 + 200 + 60)) < 2, "\(leg.distanceMeters) m")
        #expect(f.isLaneEdge(leg.start.edge))
        #expect(Geodesy.distanceMeters(leg.start.point, start) < 1)
        // The lane only first, then open roads to the end.
        let firstOpen = try #require(leg.edges.firstIndex { !f.isLaneEdge($0) })
        #expect(firstOpen > 0)
        #expect(!leg.edges[firstOpen...].contains(where: f.isLaneEdge))

        // Control: without closed roads the leg starts on the nearest open road instead.
        let without = try f.leg(from: start, to: f.fixture.map.point("C", "F", fraction: 0.5), configuration: closedRoadsOff)
        #expect(!without.edges.contains(where: f.isLaneEdge))
    }

    @Test func aHeadingOnAClosedRoadPicksItsDirection() throws {
        let f = try ClosedRoadFixture()
        let start = f.fixture.map.point("B", "D", fraction: 0.5)  // 30 m down the lane
        let destination = f.fixture.map.point("E", "F", fraction: 0.5)
        // Heading south: on down the lane and out at E (no turning on the lane).
        let south = try f.leg(from: start, to: destination, heading: 180)
        #expect(south.osmWayIDs.first == f.lane)
        #expect(south.osmWayIDs.count == 2)
        #expect(abs(south.distanceMeters - (90 + 100)) < 2, "\(south.distanceMeters) m")
        // Heading north: up to B first, onto Main and round by C and F.
        let north = try f.leg(from: start, to: destination, heading: 0)
        #expect(north.osmWayIDs.first == f.lane)
        #expect(north.osmWayIDs.contains(f.main))
        #expect(abs(north.distanceMeters - (30 + 200 + 120 + 100)) < 2, "\(north.distanceMeters) m")
    }

    @Test func aClosedRoadIsNoShortCutBetweenOpenRoads() throws {
        let f = try ClosedRoadFixture()
        // From Main to the Loop's south side: the lane would save 220 m, but both ends are on open roads.
        let from = f.fixture.map.point("A", "B", fraction: 0.5), to = f.fixture.map.point("E", "F", fraction: 0.5)
        let leg = try f.leg(from: from, to: to)
        #expect(!leg.edges.contains(where: f.isLaneEdge))
        // Control: the same map with the lane open to cars does take it.
        let open = try ClosedRoadFixture(lane: ["highway": "residential"])
        #expect(try open.leg(from: from, to: to).osmWayIDs.contains(open.lane))
    }

    @Test func aWaypointOnAClosedRoadEndsOneLegAndStartsTheNext() throws {
        let f = try ClosedRoadFixture()
        let waypoint = f.fixture.map.point("B", "D", fraction: 0.5)
        let request = RouteRequest(
            origin: Waypoint(f.fixture.map.point("A", "B", fraction: 0.5)),
            destinations: [Waypoint(waypoint), Waypoint(f.fixture.map.point("E", "F", fraction: 0.5))])
        let legs = try f.legs(request)
        #expect(legs.count == 2)
        #expect(f.isLaneEdge(legs[0].end.edge) && f.isLaneEdge(legs[1].start.edge))
        #expect(legs[0].end == legs[1].start)
        // On south down the lane (the direction it arrived in) and out at E: 90 + 100 m.
        #expect(abs(legs[1].distanceMeters - 190) < 2, "\(legs[1].distanceMeters) m")
        let firstOpen = try #require(legs[1].edges.firstIndex { !f.isLaneEdge($0) })
        #expect(!legs[1].edges[firstOpen...].contains(where: f.isLaneEdge))
    }

    @Test func anOpenRoadWithinTheMarginWins() throws {
        let f = try ClosedRoadFixture()
        // 4 m from the lane, 12 m from Main: not nearer by the 10 m margin, so Main.
        let projection = LocalProjection(origin: f.fixture.map["B"])
        let nearBoth = projection.unproject(x: 4, y: -12)
        let leg = try f.leg(from: f.fixture.map["A"], to: nearBoth)
        #expect(leg.osmWayIDs == [f.main])
        // 4 m from the lane and 30 m from Main: the lane.
        let nearLane = projection.unproject(x: 4, y: -30)
        #expect(try f.leg(from: f.fixture.map["A"], to: nearLane).osmWayIDs == [f.main, f.lane])
    }

    @Test func anOriginOnAClosedRoadNeedsOnlyASmallMargin() throws {
        // The navigator's origin is the matched position: on the lane, 6 m from Main, it starts on the lane (a
        // destination there goes to Main, within the 10 m margin).
        let f = try ClosedRoadFixture()
        let onLane = LocalProjection(origin: f.fixture.map["B"]).unproject(x: 0, y: -6)
        let destination = f.fixture.map.point("E", "F", fraction: 0.5)
        let leg = try f.leg(from: onLane, to: destination, heading: 180)
        #expect(f.isLaneEdge(leg.start.edge))
        #expect(leg.osmWayIDs.first == f.lane)
        #expect(try f.leg(from: f.fixture.map["A"], to: onLane).osmWayIDs == [f.main])
        // Control: with the destination's margin for the origin too, it starts on an open road (the nearest one
        // heading south, C–F, as the heading is honoured within the snap radius).
        var sameMargin = RouterConfiguration()
        sameMargin.closedRoadOriginMarginMeters = sameMargin.closedRoadSnapMarginMeters
        let without = try f.leg(from: onLane, to: destination, heading: 180, configuration: sameMargin)
        #expect(!f.isLaneEdge(without.start.edge) && !without.osmWayIDs.contains(f.lane))
    }

    @Test func walkingIgnoresTheRule() throws {
        // The lane is open on foot: a walk ends on it whatever the margin, exactly as before.
        let f = try ClosedRoadFixture()
        let destination = f.fixture.map.point("D", "E", fraction: 0.5)
        let request = RouteRequest(origin: Waypoint(f.fixture.map["A"]), destinations: [Waypoint(destination)],
                                   travelMode: .walking)
        let router = Router(graph: f.graph)
        let with = try #require(router.route(request).route?.legs[0])
        let without = try #require(Router(graph: f.graph, configuration: closedRoadsOff).route(request).route?.legs[0])
        #expect(with.edges == without.edges)
        #expect(with.osmWayIDs.last == f.lane)
    }
}

/// Roads closed to every mode (access=private, access=no, no foot or bicycle permission either) are imported as
/// closed roads (`RoadWay.closedRoadForward`) and routed like the motor_vehicle=no lane above: a delivery into a
/// private yard ends at the delivery, never through the yard. SUMO Baltimore seed 7 probe9: its destination lay on
/// an access=private street that was not in the graph at all, the leg ended on the public road 145 m away, and the
/// arrival was announced there.
@Suite struct PrivateRoadRoutingTests {
    static let privateLane = ["highway": "residential", "access": "private"]

    @Test func aPrivateRoadIsInTheGraphWithNoModeAllowed() throws {
        let f = try ClosedRoadFixture(lane: Self.privateLane)
        let laneEdges = (0..<f.graph.edgeCount).map { EdgeID($0) }.filter(f.isLaneEdge)
        #expect(laneEdges.count == 4)  // B–D and D–E, both ways
        #expect(laneEdges.allSatisfy { f.graph.access(of: $0).isEmpty })
        #expect(laneEdges.allSatisfy { f.graph.motorModesClosedByTags(of: $0) == .motorized })
    }

    @Test func aDestinationOnAPrivateRoadIsReachedThere() throws {
        let f = try ClosedRoadFixture(lane: Self.privateLane)
        let destination = f.fixture.map.point("D", "E", fraction: 0.5)  // 90 m down the lane, 30 m from E–F
        let leg = try f.leg(from: f.fixture.map.point("A", "B", fraction: 0.5), to: destination)
        #expect(leg.osmWayIDs == [f.main, f.lane])
        #expect(Geodesy.distanceMeters(leg.end.point, destination) < 1)
        // Control: without closed roads the leg ends on the nearest open road, 30 m from the destination.
        let without = try f.leg(from: f.fixture.map.point("A", "B", fraction: 0.5), to: destination,
                                configuration: closedRoadsOff)
        #expect(without.osmWayIDs.last == f.fixture.wayID("FE"))
    }

    @Test func aPrivateRoadIsNoShortCutBetweenOpenRoads() throws {
        let f = try ClosedRoadFixture(lane: Self.privateLane)
        let leg = try f.leg(from: f.fixture.map.point("A", "B", fraction: 0.5), to: f.fixture.map.point("E", "F", fraction: 0.5))
        #expect(!leg.edges.contains(where: f.isLaneEdge))
    }

    @Test func aOneWayPrivateRoadIsDrivenOnlyItsWay() throws {
        // One way from B towards E: a vehicle standing on it leaves by E, never back up to B.
        var tags = Self.privateLane
        tags["oneway"] = "yes"
        let f = try ClosedRoadFixture(lane: tags)
        let laneEdges = (0..<f.graph.edgeCount).map { EdgeID($0) }.filter(f.isLaneEdge)
        #expect(laneEdges.count == 2)
        let start = f.fixture.map.point("B", "D", fraction: 0.5)
        let leg = try f.leg(from: start, to: f.fixture.map.point("A", "B", fraction: 0.5))
        #expect(leg.osmWayIDs.first == f.lane)
        #expect(leg.osmWayIDs.contains(f.fixture.wayID("FE")))
    }

    @Test func walkingDoesNotUseAPrivateRoad() throws {
        let f = try ClosedRoadFixture(lane: Self.privateLane)
        let destination = f.fixture.map.point("D", "E", fraction: 0.5)
        let request = RouteRequest(origin: Waypoint(f.fixture.map["A"]), destinations: [Waypoint(destination)],
                                   travelMode: .walking)
        let leg = try #require(Router(graph: f.graph).route(request).route?.legs[0])
        #expect(!leg.osmWayIDs.contains(f.lane))
    }
}
