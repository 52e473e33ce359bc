import Geo
import RoadGraph
import Testing

@testable import Routing

/// Nearest roads on the main network (strongly connected ignoring turns) that no route joins, because every turn into
/// or out of them is forbidden: the router tries the next nearest roads round both ends, fewest metres off first.
/// Both maps: a–b–c east (two-way, y = 0) and a one-way loop through s (200, 60) and t (400, 60).
private func route(loop: [String], restrictions: [(String, String)], from origin: (Double, Double),
                   to destination: (Double, Double), _ configuration: RouterConfiguration = RouterConfiguration())
    throws -> RouteResponse
{
    var map = FixtureMap()
    for (name, x, y) in [("a", 0.0, 0.0), ("b", 200, 0), ("c", 400, 0), ("s", 200, 60), ("t", 400, 60)] {
        map.node(name, x: x, y: y)
    }
    map.road(["a", "b", "c"])
    map.road(loop, oneway: true)
    for (from, to) in restrictions { map.restrict(from, to, .no) }
    let fixture = try map.build()
    var configuration = configuration
    configuration.islandNodeLimit = 3  // the five nodes are the main network here
    let request = RouteRequest(origin: Waypoint(fixture.at(origin.0, origin.1)),
                               destinations: [Waypoint(fixture.at(destination.0, destination.1))], travelMode: .driving)
    return fixture.router(configuration: configuration).route(request)
}

private var noNextRoads: RouterConfiguration {
    var configuration = RouterConfiguration()
    configuration.nextRoadCandidateLimit = 0
    return configuration
}

/// A destination whose nearest road no route can enter. SUMO Helsinki seed 3 probe12's end, beside a junction, had
/// no route from anywhere, so the navigator never guided the trip (0 of 2 arrivals at 1 s and 5 s).
@Suite struct UnreachableNearestRoadTests {
    /// b>s>t>c one-way, no turn from a>b or c>b into b>s: b>s, 5 m from the destination, cannot be entered.
    private func route(_ configuration: RouterConfiguration = RouterConfiguration()) throws -> RouteResponse {
        try RoutingTests.route(loop: ["b", "s", "t", "c"], restrictions: [("a>b", "b>s"), ("c>b", "b>s")],
                               from: (100, 0), to: (205, 40), configuration)
    }

    @Test func theNextNearestReachableRoadTakesTheDestination() throws {
        let leg = try #require(try route().route?.legs.first)
        // On a–b–c, 40 m south of the destination: 100 m from the origin to below it.
        #expect(abs(leg.distanceMeters - 105) < 1)
    }

    @Test func withoutItThereIsNoRoute() throws {
        #expect(try route(noNextRoads).status == .noRouteFound)
    }
}

/// The vehicle's nearest road cannot be left. A fix is metres off, so the vehicle is as likely on the road beside
/// it. SUMO Helsinki seed 1 probe11 and seed 3 probe23 (positions only): no route from the first fix, guidance began
/// only at the retry 5 s later.
@Suite struct UnleavableNearestRoadTests {
    /// c>t>s>b one-way, no turn from s>b onto b>a or b>c: s>b, 5 m from the origin, cannot be left.
    private func route(_ configuration: RouterConfiguration = RouterConfiguration()) throws -> RouteResponse {
        try RoutingTests.route(loop: ["c", "t", "s", "b"], restrictions: [("s>b", "b>a"), ("s>b", "b>c")],
                               from: (205, 40), to: (100, 0), configuration)
    }

    @Test func theNextNearestRoadThatCanBeLeftTakesTheOrigin() throws {
        let leg = try #require(try route().route?.legs.first)
        // From a–b–c, 40 m south of the origin, west to the destination: 105 m (the destination's next roads alone
        // settled for the stub itself: a 40 m route ending on it).
        #expect(abs(leg.distanceMeters - 105) < 1)
    }

    @Test func withoutItThereIsNoRoute() throws {
        #expect(try route(noNextRoads).status == .noRouteFound)
    }
}
