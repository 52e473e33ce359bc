import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph
import Testing

/// The navigator over the HMM matcher on drawn maps: the same transcripts as with the baseline snapper.
@Suite struct MapMatcherSnapperTests {
    private func loop() throws -> DrawnRoads {
        try DrawnRoads(
            """
            A-------B-------C
                    |       |
                    |       |
                    D-------E
            """, gridMeters: 25, ways: [.init("ABC"), .init("BDE"), .init("EC")])
    }

    private func navigator(_ roads: DrawnRoads) -> NavigatorCore {
        let nav = NavigatorCore(
            graph: roads.graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: roads.graph)))
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["C"], title: "C")], at: t0)
        return nav
    }

    private func routeAndArrival(_ events: [NavigationEvent]) -> [String] {
        transcript(events).filter { $0.hasPrefix("route(") || $0.hasPrefix("arrival(") }
    }

    @Test func followingTheRoute() throws {
        let roads = try loop()
        let nav = navigator(roads)
        let events = nav.process(drive(roads.path("ABC"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 5))
        #expect(routeAndArrival(events) == ["arrival(0 'C' left=0)"])
        let located = events.compactMap { if case .location(let l) = $0 { l } else { nil } }
        #expect(located.allSatisfy { $0.osmWayID == 1 && $0.isOnRoute })
    }

    @Test func leavingAndRerouting() throws {
        let roads = try loop()
        let nav = navigator(roads)
        let events = nav.process(drive(roads.path("ABDEC"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 5))
        #expect(routeAndArrival(events) == ["route(offRoute ok leg=0 legs=1)", "arrival(0 'C' left=0)"])
    }

    @Test func outliersDoNotReroute() throws {
        let roads = try loop()
        let nav = navigator(roads)
        var fixes = drive(roads.path("ABC"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 5)
        for i in [5, 15, 16] { fixes[i].coordinate = offset(fixes[i].coordinate, east: 0, north: 100) }
        #expect(routeAndArrival(nav.process(fixes)) == ["arrival(0 'C' left=0)"])
    }
}
