import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph
import Routing
import TestKit
import Testing

/// Leaving the route seen within three fixes (BENCHMARKS.md "Session 11: leaving the route within 3 fixes"):
/// `NavigatorConfiguration.offRouteHoldLogOdds` (a fix back in the corridor the matcher puts on another road does not
/// reset the count).
@Suite struct LeavingWithinThreeFixesTests {
    /// A–B–C straight east (400 m), at B a road turns south to D (400 m).
    private func crossing() throws -> DrawnRoads {
        try DrawnRoads(
            """
            A-------------------B-------------------C
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                |
                                D
            """, gridMeters: 20, ways: [.init("ABC"), .init("BD")])
    }

    /// `offRouteHoldLogOdds` 2: a fix back in the corridor that the matcher puts on another road at 12 : 1
    /// (log-odds −2.5) does not reset the count (SUMO Helsinki probe24 with speed and course: off the route, then a
    /// fix 16 m from it at −2.3, then off again; the reset cost a fix). The matcher's odds are scripted here, the
    /// geometry is not: the nearest-road snapper decides the corridor (25 m).
    @Test func aCorridorFixTheMatcherDoubtsDoesNotResetTheCount() throws {
        /// 1 s fixes at 10 m/s along A–B–C with the route to C; fixes 10–14 lie 30 m north of the road (off the
        /// corridor), but fix 11 only 15 m (within it). Returns the fix of the first reroute.
        func rerouteAt(_ configuration: NavigatorConfiguration) throws -> Int? {
            let roads = try crossing()
            let odds: [Int: Double] = [10: -1, 11: -2.5, 12: -1, 13: -1, 14: -1]
            let snapper = ScriptedOddsSnapper(NearestRoadSnapper(graph: roads.graph))
            let nav = NavigatorCore(graph: roads.graph, snapper: snapper, configuration: configuration)
            _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
            _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["C"], title: "C")], at: t0)
            var fixes = drive(roads.path("ABC"), speed: 10, from: t0.addingTimeInterval(1), accuracy: 10)
            for i in fixes.indices { fixes[i].courseDegrees = nil }
            for i in [10, 12, 13, 14] { fixes[i].coordinate = offset(fixes[i].coordinate, east: 0, north: 30) }
            fixes[11].coordinate = offset(fixes[11].coordinate, east: 0, north: 15)
            for (i, fix) in fixes.enumerated() {
                snapper.logOdds = odds[i] ?? 3
                if nav.process(fix).routeChanges.contains(where: { $0.reason == .offRoute }) { return i }
            }
            return nil
        }
        var before = NavigatorConfiguration()
        before.offRouteHoldLogOdds = 3
        #expect(try rerouteAt(NavigatorConfiguration()) == 13)  // counts 1 (fix 10), held, 2, 3
        #expect(try rerouteAt(before) == 14)  // 1, reset by fix 11, 1, 2, 3
    }
}

/// A snapper whose log-odds for the route are set per fix (the geometry is the wrapped snapper's).
private final class ScriptedOddsSnapper: RoadSnappingProvider {
    let base: any RoadSnappingProvider
    var logOdds = 0.0
    init(_ base: any RoadSnappingProvider) { self.base = base }
    func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
        var snapped = base.snap(fix, activeLeg: activeLeg)
        snapped.routeLogOdds = logOdds
        return snapped
    }
    func reset() { base.reset() }
}
