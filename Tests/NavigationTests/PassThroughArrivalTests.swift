import Foundation
import Geo
import Navigation
import RoadGraph
import Routing
import Testing

/// Waypoints driven through without stopping (a drop-off on the move, a recorded drive that ends at its
/// destination), with fixes too sparse for one to fall inside the arrival radius.
@Suite struct PassThroughArrivalTests {
    /// Two stops on one 800 m street: B at 400 m, C at 800 m.
    private func twoStops() throws -> DrawnRoads {
        try DrawnRoads("A-------B-------C", gridMeters: 50, ways: [.init("ABC")])
    }

    /// Drives A → C at 12 m/s with a fix every 5 s (60 m apart, from 15 m: 375 m, 25 m before B, then 435 m, 35 m
    /// past it) and stands at C, continuing to the next destination after each arrival as the agent does. Returns
    /// (arrival waypoint title, metres along the street at the arrival fix) and the route change reasons.
    private func run(_ configuration: NavigatorConfiguration) throws -> (arrivals: [(String, Double)], routes: [String]) {
        let roads = try twoStops()
        let nav = roads.navigator(configuration: configuration)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        var events = nav.setDestinations(
            [NavigationWaypoint(coordinate: roads["B"], title: "B"), NavigationWaypoint(coordinate: roads["C"], title: "C")],
            at: t0
        ).events
        var arrivals: [(String, Double)] = []
        for fix in drive(
            roads.path("AC"), speed: 12, interval: 5, from: t0.addingTimeInterval(5), startOffset: 15, stopSeconds: 20) {
            let out = nav.process(fix)
            events += out
            for arrival in out.arrivals {
                arrivals.append((arrival.waypoint.title, Geodesy.distanceMeters(fix.coordinate, roads["A"])))
                events += nav.continueToNextDestination(at: fix.timestamp).events
            }
        }
        return (arrivals, events.routeChanges.map { $0.reason.rawValue })
    }

    @Test func aWaypointDrivenThroughBetweenTwoFixesArrivesOnceAtTheFixAfterIt() throws {
        let (arrivals, routes) = try run(NavigatorConfiguration())
        #expect(arrivals.map(\.0) == ["B", "C"])
        #expect(abs(arrivals[0].1 - 435) < 1)  // announced at the first fix past B: 35 m late, not missed
        #expect(!routes.contains("offRoute"))
    }

    @Test func withoutThePassThroughRuleTheWaypointIsMissed() throws {
        var configuration = NavigatorConfiguration()
        configuration.arrivalByPassingThrough = false
        let (arrivals, routes) = try run(configuration)
        // B is never announced; the vehicle is taken off route and sent back to it, so C never arrives either.
        #expect(arrivals.isEmpty)
        #expect(routes == ["destinationsSet", "offRoute"])
    }

    /// (A regression guard: with exact fixes the estimate stays 46 m short; the plausibility check on the passing rule
    /// was found on the noisy Helsinki benchmark, where the estimate had run ahead.)
    @Test func anOutlierOnTheWaypointDoesNotAnnounceItEarly() throws {
        // Driving A → B (400 m) at 8 m/s with a fix a second; the fix 46 m short of B is an outlier that lands on B.
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        var arrivedAt: Double?
        for var fix in drive(roads.path("AB"), speed: 8, from: t0.addingTimeInterval(1), stopSeconds: 5) {
            let along = Geodesy.distanceMeters(fix.coordinate, roads["A"])
            if abs(along - 354) < 4 { fix.coordinate = roads["B"] }
            if arrivedAt == nil, !nav.process(fix).arrivals.isEmpty { arrivedAt = along }
        }
        let at = try #require(arrivedAt)
        #expect(at > 400 - 30, "announced \(400 - at) m before B")
    }
}
