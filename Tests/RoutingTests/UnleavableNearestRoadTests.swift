import Geo
import RoadGraph
import Testing

@testable import Routing

/// The origin's side of `UnreachableNearestRoadTests`: the vehicle's nearest road is on the main network (strongly
/// connected ignoring turns) but no route leaves it: every turn out of it is forbidden. A fix is metres off, so the
/// vehicle is as likely on the road beside it. SUMO Helsinki seed 1 probe11 and seed 3 probe23 (positions only):
/// no route from the first fix, guidance began only at the retry 5 s later.
@Suite struct UnleavableNearestRoadTests {
    /// a–b–c east (two-way, y = 0); a oneway from c north to t, west to s and south to b. No turn from s>b onto
    /// b>a or b>c: s>b, the road nearest the origin (5 m), is in the network's one component yet cannot be left.
    private func map() throws -> BuiltFixture {
        var map = FixtureMap()
        for (name, x, y) in [("a", 0.0, 0.0), ("b", 200, 0), ("c", 400, 0), ("s", 200, 60), ("t", 400, 60)] {
            map.node(name, x: x, y: y)
        }
        map.road(["a", "b", "c"])
        map.road(["c", "t", "s", "b"], oneway: true)
        map.restrict("s>b", "b>a", .no)
        map.restrict("s>b", "b>c", .no)
        return try map.build()
    }

    private func route(_ configuration: RouterConfiguration) throws -> RouteResponse {
        var configuration = configuration
        configuration.islandNodeLimit = 3  // the five nodes are the main network here
        let fixture = try map()
        let request = RouteRequest(
            origin: Waypoint(fixture.at(205, 40)), destinations: [Waypoint(fixture.at(100, 0))], travelMode: .driving)
        return fixture.router(configuration: configuration).route(request)
    }

    @Test func theNextNearestRoadThatCanBeLeftTakesTheOrigin() throws {
        let response = try route(RouterConfiguration())
        #expect(response.status == .ok)
        let leg = try #require(response.route?.legs.first)
        // From a–b–c, 40 m south of the origin, west to the destination: 105 m.
        #expect(abs(leg.distanceMeters - 105) < 1)
    }

    @Test func withoutItThereIsNoRoute() throws {
        var configuration = RouterConfiguration()
        configuration.nextRoadCandidateLimit = 0
        #expect(try route(configuration).status == .noRouteFound)
    }
}
