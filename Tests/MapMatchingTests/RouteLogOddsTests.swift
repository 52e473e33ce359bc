import Geo
@testable import MapMatching
import RoadGraph
import Testing

/// `MatchUpdate.routeLogOdds`: what the navigator's off-route decision reads from the matcher.
@Suite struct RouteLogOddsTests {
    private func fork() throws -> MatchingFixture {
        try MatchingFixture("""
            A----------------------B---------------------------------C
                                     \\
                                       \\
                                         D-----------------------E
            """, roads: [
                FixtureRoad(nodes: "ABC", name: "Straight on"), FixtureRoad(nodes: "BDE", name: "Fork right"),
            ])
    }

    private func logOdds(_ f: MatchingFixture, _ letters: String, route: [EdgeID]?) -> [Double?] {
        let drive = f.drive(letters) { $0.positionSigmaMeters = 5; $0.outlierProbability = 0; $0.seed = 2 }
        let matcher = MapMatcher(index: f.index)
        if let route { matcher.setRoute(edges: route) }
        return drive.fixes.map { matcher.update($0).routeLogOdds }
    }

    @Test func positiveWhileFollowingTheRouteNegativeAfterLeavingIt() throws {
        let f = try fork()
        let route = f.path("ABDE")
        let following = logOdds(f, "ABDE", route: route).compactMap { $0 }
        #expect(following.count > 20)
        // Mostly clearly positive; near the fork both roads explain the fixes about equally.
        #expect(following.filter { $0 > 5 }.count >= following.count * 3 / 4)
        #expect(following.allSatisfy { $0 > -2 })
        // Straight on at B: a few fixes past the fork the best path off the route is decisively better.
        let leaving = logOdds(f, "ABC", route: route).compactMap { $0 }
        #expect(leaving.prefix(10).allSatisfy { $0 > 0 })
        #expect(leaving.suffix(10).allSatisfy { $0 < -5 })
    }

    @Test func nilWithoutARoute() throws {
        let f = try fork()
        #expect(logOdds(f, "ABC", route: nil).allSatisfy { $0 == nil })
    }
}
