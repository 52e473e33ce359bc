import Foundation
import Geo
import Navigation
import RoadGraph
import Testing

/// A vehicle slowing into its destination between 5 s fixes: the last fix is at the waypoint, but the progress
/// estimate, pulled back by a fix before it that read short, still trails by more than the passing rule's 20 m
/// (SUMO Kouvola probe2 at 5 s: last fix 9 m from the waypoint at 4 m/s, the estimate 22 m short; the drive ended
/// there and the final arrival was never announced).
@Suite struct SlowingIntoTheWaypointTests {
    /// A–B, 400 m east. Fixes every 5 s (accuracy 10 m), as probe2's last ones: the vehicle brakes
    /// from 15.6 to 4.1 m/s, truly 95, 40 and 0 m short of B at the last three fixes, each fix's speed the
    /// instantaneous one (below the interval's mean, so the prediction falls short); the fix before last reads
    /// 15 m short of the truth (noise), the last is at B measured `lastShortMeters` short and `lastNorthMeters`
    /// beside the road. Returns the metres short of B (as measured) of each fix that announced B, and the
    /// estimate's metres to go before the last fix.
    private func run(
        _ configuration: NavigatorConfiguration, lastShortMeters: Double = 9,
        lastNorthMeters: Double = 3, lastSpeed: Double = 4.1, beforeLastShortMeters: Double = 55
    ) throws -> (arrivals: [Double], toGoBeforeLast: Double) {
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        let nav = roads.navigator(configuration: configuration)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        let path = roads.path("AB")
        let length = PolylineGeometry.lengthMeters(path)
        // (measured metres short of B, metres north of the road, speed m/s)
        let readings: [(Double, Double, Double)] = [
            (300, 2, 15.6), (222, -3, 15.6), (160, 1, 11.5), (95, -2, 9.8), (beforeLastShortMeters, 2, 5.2),
            (lastShortMeters, lastNorthMeters, lastSpeed),
        ]
        var arrivals: [Double] = []
        var toGoBeforeLast = Double.nan
        for (i, (short, north, speed)) in readings.enumerated() {
            if i == readings.count - 1 { toGoBeforeLast = nav.distanceToNextDestination }
            let onRoad = PolylineGeometry.point(along: path, offsetMeters: length - short)!
            let fix = RawFix(
                coordinate: offset(onRoad, east: 0, north: north),
                timestamp: t0.addingTimeInterval(5 * Double(i + 1)), horizontalAccuracyMeters: 10,
                courseDegrees: 90, speedMetersPerSecond: speed)
            if !nav.process(fix).arrivals.isEmpty { arrivals.append(short) }
        }
        return (arrivals, toGoBeforeLast)
    }

    @Test func theLastFixAtTheWaypointArrivesThoughTheEstimateTrails() throws {
        let result = try run(NavigatorConfiguration())
        // The scenario is the one it says: the estimate trails the vehicle (truly 40 m short) by 20 m before the
        // last fix, as probe2's did.
        #expect(result.toGoBeforeLast > 55)
        #expect(result.arrivals == [9])
    }

    /// Control: with the passing rule's 20 m alone the estimate trails too far and the drive ends unannounced.
    @Test func withoutTheWideningTheDriveEndsWithoutArrival() throws {
        var configuration = NavigatorConfiguration()
        configuration.arrivalAgreeingEstimateMeters = 0
        let result = try run(configuration)
        #expect(result.arrivals.isEmpty)
    }

    /// The widening needs the fix itself at the waypoint: one whose raw position lies 20 m beside the road (matched
    /// 9 m short, but the raw fix is outside the arrival radius) still waits for the estimate.
    @Test func aFixBesideTheRoadDoesNotWiden() throws {
        let result = try run(NavigatorConfiguration(), lastNorthMeters: 20)
        #expect(result.arrivals.isEmpty)
    }

    /// Nor does a standing vehicle's single fix (1 m/s; the fix before last read 45 m short, so the estimate trails
    /// by less than 30 m and a moving fix would widen): standing, the standing rule averages its fixes first.
    @Test func aStandingFixDoesNotWiden() throws {
        let result = try run(NavigatorConfiguration(), lastSpeed: 1, beforeLastShortMeters: 45)
        #expect(result.arrivals.isEmpty)
    }
}
