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
        let (nav, setEvents) = startAtA(roads, stops: "BC", configuration)
        var events = setEvents
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

/// A GPS gap (a tunnel, a lost uplink) that hides a waypoint the vehicle drives through: found by
/// `scripts/fault-linkcut`, where a reconnect lost 18 s of fixes just as the vehicle passed its first stop.
@Suite struct GapArrivalTests {
    /// A 300 m street A–W–C (W at 200 m), C–D 50 m south, and back west along D–E (200 m): stops W and E. The
    /// straight line between the fixes either side of the gap misses W by 19 m, so no passing rule sees it.
    private func street() throws -> DrawnRoads {
        try DrawnRoads(
            """
            A-------W---C
                        |
                E-------D
            """, gridMeters: 25, ways: [.init("AWC"), .init("CDE")])
    }

    /// Drives A → W → C → D → E at 10 m/s, a fix a second, without the fixes from 160 m to `resumeMeters` along the drive
    /// (resuming `gapSeconds` after the last fix before the gap), continuing after each arrival as the agent does.
    private func run(
        _ configuration: NavigatorConfiguration = NavigatorConfiguration(), resumeMeters: Double = 400,
        gapSeconds: Double? = nil
    ) throws -> (arrivals: [(String, Double)], routes: [String]) {
        let roads = try street()
        let (nav, setEvents) = startAtA(roads, stops: "WE", configuration)
        var events = setEvents
        var arrivals: [(String, Double)] = []
        var shift = 0.0
        for var fix in drive(roads.path("AWCDE"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 10) {
            let along = fix.timestamp.timeIntervalSince(t0.addingTimeInterval(1)) * 10
            if along > 160 && along < resumeMeters - 1e-6 { continue }
            if let gapSeconds, shift == 0, along >= resumeMeters - 1e-6 { shift = gapSeconds - (resumeMeters - 160) / 10 }
            fix.timestamp.addTimeInterval(shift)
            let out = nav.process(fix)
            events += out
            for arrival in out.arrivals {
                arrivals.append((arrival.waypoint.title, min(along, 550)))
                events += nav.continueToNextDestination(at: fix.timestamp).events
            }
        }
        return (arrivals, events.routeChanges.map { $0.reason.rawValue })
    }

    @Test func aWaypointPassedInAGapArrivesAtTheFirstFixOnTheNextLeg() throws {
        let (arrivals, routes) = try run()
        #expect(arrivals.map(\.0) == ["W", "E"])
        #expect(arrivals.first.map { abs($0.1 - 400) < 1 } == true)  // the first fix after the gap, 50 m along D–E
        #expect(!routes.contains("offRoute"))
    }

    @Test func withoutTheGapRuleTheVehicleIsSentBackToTheWaypoint() throws {
        var configuration = NavigatorConfiguration()
        configuration.arrivalAfterGapMinimumSeconds = 0
        let (arrivals, routes) = try run(configuration)
        #expect(!arrivals.map(\.0).contains("W"))
        #expect(routes.contains("offRoute"))
    }

    /// Reappearing 50 m along D–E only 8 s after the last fix 40 m short of W: 240 m in 8 s is no drive at 10 m/s.
    @Test func aReappearanceTooFarForTheGapsTimeIsNoArrival() throws {
        let (arrivals, _) = try run(gapSeconds: 8)
        #expect(!arrivals.map(\.0).contains("W"))
    }
}

/// A navigator standing at A with destinations at the named nodes, in order, and the events of setting them.
private func startAtA(
    _ roads: DrawnRoads, stops: String, _ configuration: NavigatorConfiguration
) -> (NavigatorCore, [NavigationEvent]) {
    let nav = roads.navigator(configuration: configuration)
    _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
    let waypoints = stops.map { NavigationWaypoint(coordinate: roads[$0], title: String($0)) }
    return (nav, nav.setDestinations(waypoints, at: t0).events)
}
