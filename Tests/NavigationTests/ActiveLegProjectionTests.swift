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

    /// A leg that comes back beside itself (A → B east 300 m, 20 m south to C, back west to D): a point 8 m south of
    /// A–B lies 12 m from the pass back. With the hint on the pass back (520 m along) and a tolerance wide on both
    /// sides (after a long gap the ahead slack widens it), the nearer first pass wins; with the tolerance behind the
    /// hint kept at 50 m (`nearBehindToleranceMeters`, what `locate` uses when the window reaches back after a gap)
    /// the pass at the hint does.
    @Test func aToleranceBehindTheHintKeepsAnEarlierPassFromWinning() throws {
        let roads = try DrawnRoads("""
            A-----------------------------B
                                          |
            D-----------------------------C
            """, ways: [.init("AB"), .init("BC"), .init("CD")])
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        #expect(nav.setDestinations([NavigationWaypoint(coordinate: roads["D"], title: "D")], at: t0).status == .ok)
        let leg = try #require(nav.activeLeg)
        let point = offset(PolylineGeometry.point(along: roads.path("AB"), offsetMeters: 100)!, east: 0, north: -8)
        let wide = try #require(leg.project(point, near: 520, nearToleranceMeters: 450))
        #expect(wide.distanceAlongLegMeters < 150)
        let behindKept = try #require(
            leg.project(point, near: 520, nearToleranceMeters: 450, nearBehindToleranceMeters: 50))
        #expect(behindKept.distanceAlongLegMeters > 450)
    }
}
