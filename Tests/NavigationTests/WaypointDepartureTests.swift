import Foundation
import Geo
import Navigation
import RoadGraph
import Routing
import Testing

/// A waypoint whose next leg the router starts elsewhere: the waypoint D lies at the end of a one-way spur C→D with
/// no way out, so the router leaves it from the nearest road of the main network (C, 60 m away), as OSRM does. On
/// the Helsinki drives this was every false reroute left after the position-jump rule (BENCHMARKS.md, "Navigation").
@Suite struct WaypointDepartureTests {
    /// A–B–C west to east, 400 m (two-way, the main network), one-way spur C→D 60 m south of C.
    private func spur() throws -> DrawnRoads {
        try DrawnRoads(
            """
            A-----------------------------------B---C
                                                    |
                                                    |
                                                    |
                                                    |
                                                    |
                                                    D
            """, gridMeters: 10, ways: [.init("ABC"), .init("CD", oneway: true)])
    }

    /// Drives A→D (arrival at D), stands `standSeconds` at D, continues to the next destination, then drives
    /// D→C→A.
    /// Returns the route changes and arrivals after the first arrival, and the next leg's start.
    private func departure(standSeconds: Double) throws -> (
        events: [String], legStart: Coordinate, progressAfterStanding: Double
    ) {
        let roads = try spur()
        var routing = RouterConfiguration()
        routing.islandNodeLimit = 3  // the drawn main network is the three nodes A, B, C
        let nav = NavigatorCore(
            graph: roads.graph, router: Router(graph: roads.graph, configuration: routing),
            snapper: NearestRoadSnapper(graph: roads.graph))
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        let set = nav.setDestinations(
            [
                NavigationWaypoint(coordinate: roads["D"], title: "D"),
                NavigationWaypoint(coordinate: roads["A"], title: "A"),
            ], at: t0)
        #expect(set.status == .ok)
        let arriving = drive(roads.path("ABCD"), speed: 8, from: t0.addingTimeInterval(1))
        var events: [NavigationEvent] = []
        var arrivedAt: Date?
        for fix in arriving {
            let out = nav.process(fix)
            if arrivedAt == nil, !out.arrivals.isEmpty {
                arrivedAt = fix.timestamp
                events += nav.continueToNextDestination(at: fix.timestamp).events
            } else if arrivedAt != nil {
                events += out
            }
        }
        let arrival = try #require(arrivedAt)
        let legStart = try #require(nav.currentRouteLeg?.geometry.first)
        // Standing at D: fixes with speed 0.
        var t = (arriving.last?.timestamp ?? arrival).addingTimeInterval(1)
        let standEnd = t.addingTimeInterval(standSeconds)
        while t < standEnd {
            events += nav.process(RawFix(coordinate: roads["D"], timestamp: t, speedMetersPerSecond: 0))
            t = t.addingTimeInterval(1)
        }
        let progressAfterStanding = try #require(nav.activeLeg).progressMeters
        events += nav.process(drive(roads.path("DCBA"), speed: 8, from: t, stopSeconds: 5))
        return (
            transcript(events).filter { $0.hasPrefix("route(") || $0.hasPrefix("arrival(") }, legStart,
            progressAfterStanding
        )
    }

    @Test func theLegIsKeptAndLeavingTheWaypointForItsStartIsNotOffRoute() throws {
        // Arriving at D still rolling, the plan stands (no re-routing from where the vehicle happens to be); the
        // 60 m from D back to the leg's start at C are neither off the route (within 40 m of the waypoint the leg
        // was kept at, then within 40 m of the leg's start) nor progress. Before: rerouted off route on the way to C.
        let roads = try spur()
        let (events, legStart, _) = try departure(standSeconds: 5)
        #expect(Geodesy.distanceMeters(legStart, roads["C"]) < 1)
        #expect(events == ["route(nextDestination ok leg=1 legs=1)", "arrival(1 'A' left=0)"])
    }

    @Test func standingAtTheWaypointDoesNotCarryTheProgressAway() throws {
        // 40 s standing at D off the new leg: before, the progress prediction kept the arrival speed and ran ahead
        // along the leg (on the Helsinki drive to where the leg passed the waypoint again, which then matched
        // better than its start: "off route").
        let (events, _, progress) = try departure(standSeconds: 40)
        #expect(progress < 1)
        #expect(events == ["route(nextDestination ok leg=1 legs=1)", "arrival(1 'A' left=0)"])
    }
}
