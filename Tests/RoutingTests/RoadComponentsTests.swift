import Geo
import RoadGraph
import Testing

@testable import Routing

/// The ladder of `RouterScenarioTests` (six junctions, two-way roads) plus an island above it: the road x–y is
/// open to cars but joined to the ladder only by a path x–a for walking and cycling.
///
///     x(0,300) ── y(200,300)          (island for cars)
///     ┆ path
///     a(0,200) ── b(200,200) ── c(400,200)
///     │             │              │
///     d(0,0) ──── e(200,0) ──── f(400,0)
private func ladderWithIsland() throws -> BuiltFixture {
    var map = FixtureMap()
    for (name, x, y) in [("a", 0.0, 200.0), ("b", 200, 200), ("c", 400, 200), ("d", 0, 0), ("e", 200, 0), ("f", 400, 0),
                         ("x", 0, 300), ("y", 200, 300)] {
        map.node(name, x: x, y: y)
    }
    map.road(["a", "b", "c"])
    map.road(["d", "e", "f"])
    map.road(["a", "d"])
    map.road(["c", "f"])
    map.road(["b", "e"])
    map.road(["x", "y"])
    map.road(["x", "a"], access: [.walking, .cycling])
    return try map.build()
}

/// Islands count as such below 5 nodes here (the ladder has 6); the default is 1000.
private func islandRouter(_ f: BuiltFixture, radiusMeters: Double = 1000) -> Router {
    var configuration = RouterConfiguration()
    configuration.islandNodeLimit = 5
    configuration.islandSnapRadiusMeters = radiusMeters
    return f.router(configuration: configuration)
}

@Suite struct RoadComponentsTests {
    @Test func stronglyConnectedComponentsFollowOneWaysAndAccess() throws {
        var map = FixtureMap()
        for (name, x) in [("a", 0.0), ("b", 100), ("c", 200), ("d", 300), ("e", 400)] { map.node(name, x: x, y: 0) }
        map.road(["a", "b", "c"], oneway: true)
        map.road(["c", "a"], oneway: true)  // a → b → c → a: one component of three
        map.road(["d", "a"], oneway: true)  // d only leaves: a component of its own
        map.road(["d", "e"], access: [.walking])  // joins e to d for walking only
        let f = try map.build()
        let driving = RoadComponents(graph: f.graph, mode: .driving)
        #expect(driving.nodeCount(ofComponentOf: f.nodes["a"]!) == 3)
        #expect(driving.nodeCount(ofComponentOf: f.nodes["c"]!) == 3)
        #expect(driving.nodeCount(ofComponentOf: f.nodes["d"]!) == 1)
        #expect(driving.nodeCount(ofComponentOf: f.nodes["e"]!) == 1)
        #expect(driving.isOnLargeComponent(f.edge("a>b"), graph: f.graph, minimumNodes: 3))
        #expect(!driving.isOnLargeComponent(f.edge("a>b"), graph: f.graph, minimumNodes: 4))
        #expect(!driving.isOnLargeComponent(f.edge("d>a"), graph: f.graph, minimumNodes: 1))  // ends in two components
        let walking = RoadComponents(graph: f.graph, mode: .walking)
        #expect(walking.nodeCount(ofComponentOf: f.nodes["e"]!) == 2)
    }

    @Test func waypointOnAnIslandLeavesFromTheNearestMainRoad() throws {
        let f = try ladderWithIsland()
        let request = RouteRequest(origin: Waypoint(f.at(100, 300)), destinations: [Waypoint(f.at(400, 100))],
                                   strategy: .shorter)
        // The reference: the same trip started on the top row, 100 m south of the island waypoint.
        let fromMainRoad = RouteRequest(origin: Waypoint(f.at(100, 200)), destinations: [Waypoint(f.at(400, 100))],
                                        strategy: .shorter)
        let router = islandRouter(f)
        let expected = try #require(router.route(fromMainRoad).route)
        for algorithm in SearchAlgorithm.allCases {
            let route = try #require(router.route(request, algorithm: algorithm).route, "\(algorithm)")
            #expect(["a>b", "b>a"].contains(f.names(route.legs[0]).first ?? ""), "\(algorithm)")
            #expect(nearlyEqual(route.weight, expected.weight), "\(algorithm): \(route.weight) vs \(expected.weight)")
        }
        // Arriving on the island works the same way.
        let back = RouteRequest(origin: Waypoint(f.at(400, 100)), destinations: [Waypoint(f.at(100, 300))],
                                strategy: .shorter)
        let arrival = try #require(router.route(back).route)
        #expect(["a>b", "b>a"].contains(f.names(arrival.legs[0]).last ?? ""))
    }

    @Test func islandRoutesStayOnTheIslandWhenTheyExist() throws {
        let f = try ladderWithIsland()
        let router = islandRouter(f)
        let onIsland = RouteRequest(origin: Waypoint(f.at(50, 300)), destinations: [Waypoint(f.at(150, 300))],
                                    strategy: .shorter)
        let route = try #require(router.route(onIsland).route)
        #expect(f.names(route.legs[0]) == ["x>y"])
        #expect(abs(route.distanceMeters - 100) < 0.5)
        // Walking may use the path, so the island is no island for walking: the route starts on x–y.
        let walk = RouteRequest(origin: Waypoint(f.at(100, 300)), destinations: [Waypoint(f.at(400, 100))],
                                travelMode: .walking, strategy: .shorter)
        let walked = try #require(router.route(walk).route)
        #expect(["x>y", "y>x"].contains(f.names(walked.legs[0]).first ?? ""))
    }

    @Test func islandTooFarFromTheMainNetworkHasNoRoute() throws {
        let f = try ladderWithIsland()
        let request = RouteRequest(origin: Waypoint(f.at(100, 300)), destinations: [Waypoint(f.at(400, 100))])
        #expect(islandRouter(f, radiusMeters: 50).route(request).status == .noRouteFound)
        // And with the default island size every part of this small map is an island: nothing to fall back on.
        #expect(f.router().route(request).status == .noRouteFound)
    }
}
