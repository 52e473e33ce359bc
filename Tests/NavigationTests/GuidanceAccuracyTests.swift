import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph
import Routing
import TestKit
import Testing

/// Transcripts for the failure classes seen on simulated noisy drives (BENCHMARKS.md, "Navigation"): legs that
/// run both ways along one road, gaps after standing, provisional positions that run ahead, leaving within the
/// road's corridor, a vehicle standing off a new leg's start, and the remaining time on a slow trip.
@Suite struct GuidanceAccuracyTests {
    private func routeAndArrival(_ events: [NavigationEvent]) -> [String] {
        transcript(events).filter { $0.hasPrefix("route(") || $0.hasPrefix("arrival(") }
    }

    /// A–B–C east–west with a dead-end spur: C is 80 m east of B, D 100 m south of B.
    private func spur() throws -> DrawnRoads {
        try DrawnRoads(
            """
            A-----------B-------C
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
            """, gridMeters: 10, ways: [.init("ABC"), .init("BD")])
    }

    @Test func aLegThatTurnsRoundAtADeadEndDoesNotReroute() throws {
        // Waypoint 1 lies on B–C 20 m east of B, reached heading east; the planned next leg carries on east in
        // the arrival direction, turns at the dead end C and comes back past the waypoint to D.
        let roads = try spur()
        let nav = roads.navigator()
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        let waypoint = offset(roads["B"], east: 20, north: 0)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        let set = nav.setDestinations(
            [NavigationWaypoint(coordinate: waypoint, title: "W"), NavigationWaypoint(coordinate: roads["D"], title: "D")],
            at: t0)
        #expect(set.status == .ok)
        var events = nav.process(
            drive(roads.path("AB") + [waypoint], speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 10))
        #expect(routeAndArrival(events) == ["arrival(0 'W' left=1)"])
        let next = nav.continueToNextDestination(at: t0.addingTimeInterval(40))
        #expect(routeAndArrival(next.events) == ["route(nextDestination ok leg=1 legs=1)"])
        let leg = try #require(nav.currentRouteLeg)
        // The leg does turn round at C (it passes C and comes back over the waypoint).
        #expect(leg.geometry.contains { Geodesy.distanceMeters($0, roads["C"]) < 1 })
        #expect(abs(leg.distanceMeters - (60 + 80 + 100)) < 2)
        // 30 m east of B lies on both passes (10 m and 110 m along): without a course the first wins the tie,
        // heading west the way back does.
        let active = try #require(nav.activeLeg)
        let p = offset(roads["B"], east: 30, north: 0)
        #expect(abs((active.project(p, near: 60)?.distanceAlongLegMeters ?? -1) - 10) < 0.5)
        let west = try #require(active.project(p, near: 60, courseDegrees: 270))
        #expect(abs(west.distanceAlongLegMeters - 110) < 0.5)
        #expect(abs(west.routeBearingDegrees - 270) < 1)
        // Slowly round the dead end (6 m/s), then south to D.
        events = nav.process(
            drive(
                [waypoint, roads["C"], roads["B"], roads["D"]], speed: 6, from: t0.addingTimeInterval(41),
                stopSeconds: 10))
        #expect(routeAndArrival(events) == ["arrival(1 'D' left=0)"])
        let onRoute = events.compactMap { if case .location(let l) = $0 { l.isOnRoute } else { nil } }
        #expect(onRoute.allSatisfy { $0 })
    }

    @Test func aGapAfterStandingDoesNotLoseTheRoute() throws {
        // 1 km street, a node every 100 m. The vehicle stands at A (speed 0), drives into a tunnel, and the fixes
        // come back 760 m on: beyond the 600 m the search looks ahead of a standing vehicle's progress, unless it
        // widens with the time unseen.
        let roads = try DrawnRoads(
            "A---------C---------D---------E---------F---------G---------H---------I---------J---------K---------B",
            gridMeters: 10, ways: [.init("ACDEFGHIJKB")])
        let nav = NavigatorCore(
            graph: roads.graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: roads.graph)))
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        var events: [NavigationEvent] = []
        for i in 1...5 {
            events += nav.process(
                RawFix(coordinate: roads["A"], timestamp: t0.addingTimeInterval(Double(i)), speedMetersPerSecond: 0))
        }
        let after = drive(
            roads.path("AB"), speed: 12, from: t0.addingTimeInterval(70), startOffset: 760, stopSeconds: 5)
        events += nav.process(after)
        #expect(routeAndArrival(events) == ["arrival(0 'B' left=0)"])
        let onRoute = events.compactMap { if case .location(let l) = $0 { l.isOnRoute } else { nil } }
        #expect(onRoute.allSatisfy { $0 })
    }

    /// Reports the nearest-road answer with the matched position `aheadMeters` further along the leg than the raw
    /// fix: a provisional match that runs ahead.
    private final class RunningAheadSnapper: RoadSnappingProvider {
        let base: NearestRoadSnapper
        let aheadMeters: Double
        init(graph: RoadGraph, aheadMeters: Double) {
            base = NearestRoadSnapper(graph: graph)
            self.aheadMeters = aheadMeters
        }
        func reset() {}
        func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
            var s = base.snap(fix, activeLeg: activeLeg)
            if let leg = activeLeg, s.isOnRoute, var m = s.routeMatch {
                m.distanceAlongLegMeters = min(leg.lengthMeters, m.distanceAlongLegMeters + aheadMeters)
                m.point = leg.point(atDistance: m.distanceAlongLegMeters)
                s.routeMatch = m
                s.coordinate = m.point
            }
            return s
        }
    }

    @Test func arrivalWaitsForTheRawFixWhenTheMatchRunsAhead() throws {
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        let nav = NavigatorCore(graph: roads.graph, snapper: RunningAheadSnapper(graph: roads.graph, aheadMeters: 25))
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        let fixes = drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 5)
        let events = nav.process(fixes)
        #expect(routeAndArrival(events) == ["arrival(0 'B' left=0)"])
        // The estimate follows the match (25 m ahead), but the raw fix must be within 15 + 10 m of the end too:
        // announced at the fix 380 m along (20 m to go), not at 360 m (where the match says 15 m).
        let arrival = try #require(events.arrivals.first)
        let fix = try #require(fixes.first { $0.timestamp == arrival.timestamp })
        #expect(abs(Geodesy.distanceMeters(fix.coordinate, roads["B"]) - 20) < 0.5)
    }

    /// A–B–C east, with D 100 m south of B.
    private func tee() throws -> DrawnRoads {
        try DrawnRoads(
            """
            A---------B---------C
                      |
                      |
                      D
            """, gridMeters: 20, ways: [.init("ABC"), .init("BD")])
    }

    @Test func leavingWithinTheCorridorCountsTheCourse() throws {
        // The route goes straight on at B; the vehicle turns south at 8 m/s. The first fixes past B are pulled
        // back to within 2 m of the route by GPS error, but their course (south) contradicts every direction of the
        // route near them: they count as leaving, and the reroute comes on the third fix past B (before: the fifth).
        let roads = try tee()
        let nav = NavigatorCore(
            graph: roads.graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: roads.graph)))
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["C"], title: "C")], at: t0)
        var fixes = drive(roads.path("ABD"), speed: 8, from: t0.addingTimeInterval(1))
        let turn = try #require(fixes.firstIndex { $0.coordinate.latitude < roads["B"].latitude - 1e-7 })
        for k in [turn, turn + 1] {
            fixes[k].coordinate = offset(roads["B"], east: 0, north: -2)
            fixes[k].courseDegrees = 180
        }
        var rerouteFix: Int?
        for (i, fix) in fixes.enumerated() where rerouteFix == nil {
            if !nav.process(fix).routeChanges.isEmpty { rerouteFix = i }
        }
        let reroute = try #require(rerouteFix)
        #expect(reroute - turn + 1 <= 3, "rerouted on fix \(reroute - turn + 1) past the junction")
        #expect(nav.routeLegs.first?.geometry.contains { Geodesy.distanceMeters($0, roads["D"]) < 1 } == true)
    }

    @Test func aStopAtALight32MetresShortIsNotAnArrival() throws {
        // Standing 40 s at a light 32 m before B (σ = 8 m fixes): single fixes come within 25 m of B, and so does
        // the mean of the first two (23.8 m with this seed); the mean of three or more, less its uncertainty, does
        // not. Then on to B, where the vehicle stops: one arrival, there.
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        let nav = roads.navigator()
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        let light = PolylineGeometry.point(along: roads.path("AB"), offsetMeters: 400 - 32)!
        var events = nav.process(drive([roads["A"], light], speed: 10, from: t0.addingTimeInterval(1)))
        var rng = SeededGenerator(seed: 3)
        var near = 0
        for i in 1...40 {
            let c = offset(light, east: 8 * rng.gaussian(), north: 8 * rng.gaussian())
            if Geodesy.distanceMeters(c, roads["B"]) <= 25 { near += 1 }
            events += nav.process(
                RawFix(
                    coordinate: c, timestamp: t0.addingTimeInterval(38 + Double(i)), horizontalAccuracyMeters: 10,
                    speedMetersPerSecond: 0))
        }
        #expect(near > 0)  // the noise does bring single fixes within the standing radius
        #expect(routeAndArrival(events).isEmpty)
        events = nav.process(drive([light, roads["B"]], speed: 5, from: t0.addingTimeInterval(80), stopSeconds: 5))
        #expect(routeAndArrival(events) == ["arrival(0 'B' left=0)"])
    }

    @Test func turningOffSlowlyWithSparseFixesReroutesOnTheSecondFix() throws {
        // 5 s fixes at 3.5 m/s (below the 4 m/s from which a course counts in general), turning south at B while
        // the route goes on east: the fixes 10 m and 27.5 m south of B are off the route and, being off it by a σ
        // or more, their course counts from 2.5 m/s: 2 + 2, rerouted on the second (before: the third).
        let roads = try tee()
        let nav = roads.navigator()
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["C"], title: "C")], at: t0)
        let fixes = drive(roads.path("ABD"), speed: 3.5, interval: 5, from: t0.addingTimeInterval(1))
        let turn = try #require(fixes.firstIndex { $0.coordinate.latitude < roads["B"].latitude - 1e-7 })
        var rerouteFix: Int?
        for (i, fix) in fixes.enumerated() where rerouteFix == nil {
            if !nav.process(fix).routeChanges.isEmpty { rerouteFix = i }
        }
        #expect(try #require(rerouteFix) - turn + 1 == 2)
    }

    @Test func standingOffTheNewLegsStartDoesNotReroute() throws {
        // Parked 50 m north of A, off the road, with σ = 8 m noise for two minutes: a standing vehicle leaves
        // nothing (before, the third fix beyond 40 m from the leg's start rerouted).
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        var rng = SeededGenerator(seed: 5)
        var events: [NavigationEvent] = []
        let parked = offset(roads["A"], east: 0, north: 50)
        for i in 1...120 {
            events += nav.process(
                RawFix(
                    coordinate: offset(parked, east: 8 * rng.gaussian(), north: 8 * rng.gaussian()),
                    timestamp: t0.addingTimeInterval(Double(i)), horizontalAccuracyMeters: 10,
                    speedMetersPerSecond: 0.2))
        }
        #expect(routeAndArrival(events).isEmpty)
    }
}

/// An outlier jumps far off the route and the matcher, pulled along, still holds the next fix off it: two off-route
/// fixes in a row, both with a course against the route. A vehicle cannot have moved that far in a second, so the
/// jump (there and back) counts as weak evidence and does not reroute; a vehicle that really leaves still does.
@Suite struct PositionJumpTests {
    /// The nearest-road answer, but the fixes at `offRouteTimes` are reported off the route (what the HMM matcher
    /// did on Helsinki right after an outlier).
    private final class HeldOffSnapper: RoadSnappingProvider {
        let base: NearestRoadSnapper
        let offRouteTimes: Set<Date>
        init(graph: RoadGraph, offRouteTimes: Set<Date>) {
            base = NearestRoadSnapper(graph: graph)
            self.offRouteTimes = offRouteTimes
        }
        func reset() {}
        func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
            var s = base.snap(fix, activeLeg: activeLeg)
            if offRouteTimes.contains(fix.timestamp), var m = s.routeMatch {
                s.isOnRoute = false
                m.distanceFromRouteMeters = max(m.distanceFromRouteMeters, 12)
                s.routeMatch = m
            }
            return s
        }
    }

    /// The route runs east from A to B (400 m), then south to C. 100 m before B the fix at `k` is displaced by
    /// (`east`, `north`) m and the one after it comes back; the snapper holds both off the route. Displaced next
    /// to the southbound part of the route, the eastbound course contradicts the route there.
    private func reroutes(east: Double, north: Double, jumpSlackMeters: Double = 40) throws -> Int {
        let roads = try DrawnRoads(
            """
            A-------B
                    |
                    |
                    C
            """, gridMeters: 50, ways: [.init("ABC")])
        var fixes = drive(roads.path("ABC"), speed: 10, from: t0.addingTimeInterval(1))
        let k = try #require(fixes.firstIndex { Geodesy.distanceMeters($0.coordinate, roads["B"]) <= 100 })
        fixes[k].coordinate = offset(fixes[k].coordinate, east: east, north: north)
        let snapper = HeldOffSnapper(graph: roads.graph, offRouteTimes: [fixes[k].timestamp, fixes[k + 1].timestamp])
        var configuration = NavigatorConfiguration()
        configuration.positionJumpSlackMeters = jumpSlackMeters
        let nav = NavigatorCore(graph: roads.graph, snapper: snapper, configuration: configuration)
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["C"], title: "C")], at: t0)
        return nav.process(fixes).routeChanges.filter { $0.reason == .offRoute }.count
    }

    @Test func anOutlierAndTheFixAfterItDoNotReroute() throws {
        // 117 m in one second at 10 m/s: an outlier, and the fix after it jumps back.
        #expect(try reroutes(east: 90, north: -60) == 0)
    }

    @Test func withoutTheJumpRuleTheSameFixesReroute() throws {
        // The control: a slack no jump exceeds restores the rule before it, and the same two fixes reroute (the
        // first counts 2: 10 m off the route and against its direction there).
        #expect(try reroutes(east: 90, north: -60, jumpSlackMeters: 10_000) == 1)
    }
}

/// Three outliers in a row, all reported off the route, while the matcher (which coasts
/// through them) still finds the leg far likelier: its log-odds veto them as off-route evidence.
@Suite struct MatcherVetoTests {
    /// The nearest-road answer, with the fixes at `offRouteTimes` reported off the route and the matcher's log-odds
    /// for the leg set to `logOdds` on every fix.
    private final class OddsSnapper: RoadSnappingProvider {
        let base: NearestRoadSnapper
        let offRouteTimes: Set<Date>
        let logOdds: Double?
        init(graph: RoadGraph, offRouteTimes: Set<Date>, logOdds: Double?) {
            base = NearestRoadSnapper(graph: graph)
            self.offRouteTimes = offRouteTimes
            self.logOdds = logOdds
        }
        func reset() {}
        func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
            var s = base.snap(fix, activeLeg: activeLeg)
            s.routeLogOdds = activeLeg == nil ? nil : logOdds
            if offRouteTimes.contains(fix.timestamp) { s.isOnRoute = false }
            return s
        }
    }

    /// A–B east, 400 m, driven at 3.3 m/s (arriving slowly): fixes 3 to 5 are displaced 74 m north, each 3.3 m
    /// from the one before, so the position-jump rule sees only the first of them.
    private func offRouteChanges(logOdds: Double?) throws -> Int {
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        var fixes = drive(roads.path("AB"), speed: 3.3, from: t0.addingTimeInterval(1))
        for k in 3...5 { fixes[k].coordinate = offset(fixes[k].coordinate, east: 0, north: 74) }
        let times = Set((3...5).map { fixes[$0].timestamp })
        let nav = NavigatorCore(
            graph: roads.graph, snapper: OddsSnapper(graph: roads.graph, offRouteTimes: times, logOdds: logOdds))
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        return nav.process(fixes).routeChanges.filter { $0.reason == .offRoute }.count
    }

    @Test func outliersTheMatcherCoastsThroughDoNotReroute() throws {
        #expect(try offRouteChanges(logOdds: 10) == 0)
    }

    @Test func withoutTheMatchersOddsTheSameFixesReroute() throws {
        // The control: no log-odds (the nearest-road snapper has none) or odds below the veto.
        #expect(try offRouteChanges(logOdds: nil) == 1)
        #expect(try offRouteChanges(logOdds: 4) == 1)
    }
}
