import Geo
import RoadGraph
import Testing

@testable import Routing

/// A destination whose nearest road is on the main network (strongly connected ignoring turns) but that no route can
/// enter: every turn into it is forbidden. SUMO Helsinki seed 3 probe12's end, beside a junction, had no route from
/// anywhere, so the navigator never guided the trip (0 of 2 arrivals at 1 s and 5 s).
@Suite struct UnreachableNearestRoadTests {
    /// a–b–c east (two-way, y = 0); from b a oneway north to s, then east to t and south to c. No turn from a>b or
    /// c>b into b>s: b>s, the road nearest the destination (5 m), is in the network's one component yet unreachable.
    private func map() throws -> BuiltFixture {
        var map = FixtureMap()
        for (name, x, y) in [("a", 0.0, 0.0), ("b", 200, 0), ("c", 400, 0), ("s", 200, 60), ("t", 400, 60)] {
            map.node(name, x: x, y: y)
        }
        map.road(["a", "b", "c"])
        map.road(["b", "s", "t", "c"], oneway: true)
        map.restrict("a>b", "b>s", .no)
        map.restrict("c>b", "b>s", .no)
        return try map.build()
    }

    private func route(_ configuration: RouterConfiguration) throws -> RouteResponse {
        var configuration = configuration
        configuration.islandNodeLimit = 3  // the five nodes are the main network here
        let fixture = try map()
        let request = RouteRequest(
            origin: Waypoint(fixture.at(100, 0)), destinations: [Waypoint(fixture.at(205, 40))], travelMode: .driving)
        return fixture.router(configuration: configuration).route(request)
    }

    @Test func theNextNearestReachableRoadTakesTheDestination() throws {
        let response = try route(RouterConfiguration())
        #expect(response.status == .ok)
        let leg = try #require(response.route?.legs.first)
        // On a–b–c, 40 m south of the destination: 100 m from the origin to below it.
        #expect(abs(leg.distanceMeters - 105) < 1)
    }

    @Test func withoutItThereIsNoRoute() throws {
        var configuration = RouterConfiguration()
        configuration.nextRoadCandidateLimit = 0
        #expect(try route(configuration).status == .noRouteFound)
    }
}
