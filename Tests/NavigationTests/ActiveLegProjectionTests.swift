import Foundation
import Geo
import Navigation
import RoadGraph
import Testing

/// `ActiveLeg.project` compares the segments in one planar frame around the point and projects only the winner
/// exactly: its answer must be the leg's nearest point, as a haversine projection onto every segment finds it.
@Suite struct ActiveLegProjectionTests {
    @Test func theProjectionIsTheNearestPointOfTheLeg() throws {
        // A leg that turns three times (A → B → C → D → E), 10 m grid.
        let roads = try DrawnRoads("""
            A---------B
                      |
                      |
                      C-----------D
                                  |
                                  E
            """, ways: [.init("AB"), .init("BC"), .init("CD"), .init("DE")])
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        #expect(nav.setDestinations([NavigationWaypoint(coordinate: roads["E"], title: "E")], at: t0).status == .ok)
        let leg = try #require(nav.activeLeg)
        var state: UInt64 = 7  // a seeded sequence keeps the test repeatable
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        for _ in 0..<500 {
            let p = LocalProjection(origin: roads["A"]).unproject(x: -40 + 300 * next(), y: -90 + 130 * next())
            let match = try #require(leg.project(p))
            var nearest = Double.infinity
            for s in 0..<(leg.points.count - 1) {
                nearest = min(nearest, PolylineGeometry.project(p, ontoSegment: leg.points[s], leg.points[s + 1]).distanceMeters)
            }
            #expect(abs(match.distanceFromRouteMeters - nearest) < 0.01)
            #expect(abs(Geodesy.distanceMeters(p, match.point) - match.distanceFromRouteMeters) < 0.001)
        }
    }
}
