import Foundation
import Geo
import MapMatching
import Navigation
import Testing

/// A vehicle that drives on a later part of its leg than the progress estimate: the route was planned from a fix
/// heading the other way, round a block and back through the same street, and the vehicle goes straight on along
/// that street. Each fix lies on the leg, far ahead of the estimate and out of its gate, and the vehicle cannot have
/// driven there at its own speed, so the progress filter waited ten fixes before it believed them (SUMO
/// Liechtenstein seed 11 probe7 at 5 s: rerouted from a fix taken mid-turn onto a 494 m loop whose last 170 m it
/// was already driving; its final arrival was lost). Now the third such fix is believed when the vehicle drove on
/// from the rejected measurements at its own speed.
@Suite struct JoiningTheLegFurtherOnTests {
    /// A block P–Q–S–R (200 × 60 m) west of X, and the street R–X–W. The vehicle stands at X facing west when the
    /// destination W, 310 m east, is set: the leg runs west round the block and back east through X to W (970 m). Then
    /// it drives east from X at 10 m/s, one fix every `interval` s, past W and 100 m on. Returns the route's length
    /// when set, the arrivals (metres east of X at each) and the off-route reroutes.
    private func trip(_ configuration: NavigatorConfiguration = NavigatorConfiguration(), interval: Double)
        throws -> (routeMeters: Double, arrivals: [Double], reroutes: Int)
    {
        let roads = try DrawnRoads(
            """
            P--------------------Q
            |                    |
            |                    |
            |                    |
            |                    |
            |                    |
            R--------------------S-----X------------------------------W----------Z
            """, gridMeters: 10, ways: [.init("PQ"), .init("QS"), .init("PR"), .init("RSXWZ")])
        let nav = NavigatorCore(
            graph: roads.graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: roads.graph)),
            configuration: configuration)
        let x = roads["X"]
        _ = nav.process(RawFix(coordinate: x, timestamp: t0, courseDegrees: 270, speedMetersPerSecond: 6))
        let (status, events) = nav.setDestinations([NavigationWaypoint(coordinate: roads["W"], title: "W")], at: t0)
        #expect(status == .ok)
        let routeMeters = events.routeChanges.first?.legs.first?.distanceMeters ?? 0
        var arrivals: [Double] = []
        var reroutes = 0
        let path = roads.path("XWZ")
        for fix in drive(path, speed: 10, interval: interval, from: t0.addingTimeInterval(interval), startOffset: 10) {
            let out = nav.process(fix)
            reroutes += out.routeChanges.filter { $0.reason == .offRoute }.count
            if !out.arrivals.isEmpty { arrivals.append(Geodesy.distanceMeters(x, fix.coordinate)) }
        }
        return (routeMeters, arrivals, reroutes)
    }

    @Test(arguments: [1.0, 5.0]) func theVehicleIsFollowedOnTheLegsLaterPartAndArrives(interval: Double) throws {
        let r = try trip(interval: interval)
        #expect(r.routeMeters > 900, "\(r)")  // round the block
        #expect(r.arrivals.count == 1 && abs(r.arrivals[0] - 310) <= 30, "\(r)")
        #expect(r.reroutes == 0, "\(r)")
    }

    /// Control: waiting for ten fixes, the 5 s drive passes W unannounced.
    @Test func withoutFollowingTheDriveOnTheFiveSecondDrivePassesUnannounced() throws {
        var configuration = NavigatorConfiguration()
        configuration.progressFollowsDrivingOnAhead = false
        let r = try trip(configuration, interval: 5)
        #expect(r.arrivals.allSatisfy { abs($0 - 310) > 30 }, "\(r)")
    }
}
