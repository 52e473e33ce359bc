import Foundation
import Geo
import MapMatching
import Testing

@testable import Navigation

/// At 5 s fixes a drive that reaches its destination without stopping has one fix there; when that one is a position
/// outlier (2 % of fixes), the matcher coasts through it to the waypoint but no rule announced the arrival: the
/// coasting rule took only the last 3 s, the nearest-fix rule needs the fix itself there. SUMO seed 11 (held out):
/// Kouvola probe11 (22.5 then 21.4 m/s, the last good fix 113 m short, the outlier 55 m ahead), Liechtenstein probe17
/// and Helsinki probe3, all three final arrivals lost. Now the coasting rule reckons on at the slower end's speed when
/// the vehicle moved at both ends of the interval (`arrivalCoastingMovingMaximumSeconds`).
@Suite struct SparseOutlierAtTheDestinationTests {
    /// A–B, 400 m, the destination at B, the road's end (so that the matcher, coasting, cannot carry the vehicle past
    /// B and the pass-through rule take it). The HMM matcher (`MapMatcherSnapper`). Fixes every 5 s at 20 m/s, exact,
    /// the last good one 100 m short of B (reported 8 m further back); then the fix at B (or `lastShortMeters` short of
    /// it) displaced 70 m north,
    /// off every road, reporting `lastSpeed`. Returns the fixes that announced an arrival, counted from the last (0 the
    /// last, -1 the one before).
    private func arrivals(
        _ configuration: NavigatorConfiguration = NavigatorConfiguration(), lastShortMeters: Double = 0,
        reportedSpeed: Double = 20, lastSpeed: Double = 20
    ) throws -> [Int] {
        let roads = try DrawnRoads("A---------------B", gridMeters: 50, ways: [.init("AB")])
        let nav = NavigatorCore(
            graph: roads.graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: roads.graph)),
            configuration: configuration)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        #expect(nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0).0 == .ok)
        let path = roads.path("AB")
        let length = PolylineGeometry.lengthMeters(path)
        var fixes = drive(
            path, speed: 20, interval: 5, from: t0.addingTimeInterval(5),
            startOffset: length.truncatingRemainder(dividingBy: 100))
        for i in fixes.indices { fixes[i].speedMetersPerSecond = reportedSpeed }
        #expect(Geodesy.distanceMeters(fixes[fixes.count - 1].coordinate, roads["B"]) < 1)
        #expect(abs(Geodesy.distanceMeters(fixes[fixes.count - 2].coordinate, roads["B"]) - 100) < 1)
        // The fix before lies 8 m back along the road (σ = 8 m noise): the matcher, coasting on from it, stops short
        // of B, as it did 0.2-13 m short in the SUMO drives.
        fixes[fixes.count - 2].coordinate = PolylineGeometry.point(along: path, offsetMeters: length - 108)!
        var last = fixes.removeLast()
        let truth = PolylineGeometry.point(along: path, offsetMeters: length - lastShortMeters)!
        last.coordinate = offset(truth, east: 0, north: 70)
        last.speedMetersPerSecond = lastSpeed
        fixes.append(last)
        var result: [Int] = []
        for (i, fix) in fixes.enumerated() where !nav.process(fix).arrivals.isEmpty { result.append(i) }
        return result.map { $0 - (fixes.count - 1) }
    }

    @Test func theLastFixAnOutlierAtTheDestinationStillArrives() throws {
        #expect(try arrivals() == [0])
    }

    /// Control: with the coasting rule held to 3 s, as before, the drive ends unannounced.
    @Test func withoutCoastingOverTheSparseIntervalTheDriveEndsWithoutArrival() throws {
        var configuration = NavigatorConfiguration()
        configuration.arrivalCoastingMovingMaximumSeconds = 0
        #expect(try arrivals(configuration).isEmpty)
    }

    /// The vehicle braked: the outlier reports 10 m/s, and it is truly 50 m short of B. Neither the reckoning (at the
    /// slower end's speed, 10 m/s: 50 m short) nor the matcher's position, coasting on that speed, puts it at B.
    @Test func aBrakingVehicleShortOfTheDestinationIsNotAnnounced() throws {
        #expect(try arrivals(lastShortMeters: 50, lastSpeed: 10).isEmpty)
    }
}
