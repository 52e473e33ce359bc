import Foundation
import Geo
import Navigation
import RoadGraph
import Testing

/// A leg that passes close to its waypoint on the way out and comes back to it round a block: standing at a light on
/// the way out is not arriving (our Helsinki drives: a vehicle standing 18 m from the waypoint with 585 m of its leg
/// to go was announced there, and the next leg, planned from the waypoint, then had it "off route" three times).
@Suite struct LoopingLegArrivalTests {
    /// A–S–X east (120 m, then 200 m), X–Y 20 m south, Y–W back west (200 m): W lies 20 m south of S, 540 m along
    /// the only way there.
    private func block() throws -> DrawnRoads {
        try DrawnRoads(
            """
            A-----S---------X
                  W---------Y
            """, gridMeters: 20, ways: [.init("ASX"), .init("XYW")])
    }

    /// Where the vehicle stands at the light: 8 m south of S, 12 m from W.
    private func light(_ roads: DrawnRoads) -> Coordinate { offset(roads["S"], east: 0, north: -8) }

    /// A navigator whose snapper (nearest road) reports the fixes at `light` off the route while still favouring the
    /// leg (log-odds 10, so they are no evidence of leaving): what the HMM matcher reported for the Helsinki vehicle,
    /// standing beside another road.
    private func navigator(_ roads: DrawnRoads, _ configuration: NavigatorConfiguration) -> NavigatorCore {
        NavigatorCore(
            graph: roads.graph, snapper: StandingBesideAnotherRoadSnapper(graph: roads.graph, at: light(roads)),
            configuration: configuration)
    }

    /// Drives A → S at 8 m/s, stands 8 s at the light, then drives S → X → Y → W and stands there. Returns the metres
    /// along the drive at each arrival.
    private func arrivals(_ configuration: NavigatorConfiguration) throws -> [Double] {
        let roads = try block()
        let nav = navigator(roads, configuration)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        #expect(nav.setDestinations([NavigationWaypoint(coordinate: roads["W"], title: "W")], at: t0).status == .ok)
        var t = t0
        var fixes: [(fix: RawFix, along: Double)] = []
        for fix in drive(roads.path("AS"), speed: 8, from: t0.addingTimeInterval(1)) {
            fixes.append((fix, Geodesy.distanceMeters(fix.coordinate, roads["A"])))
            t = fix.timestamp
        }
        for _ in 0..<8 {
            t.addTimeInterval(1)
            fixes.append(
                (
                    RawFix(
                        coordinate: light(roads), timestamp: t, horizontalAccuracyMeters: 5, speedMetersPerSecond: 0),
                    120
                ))
        }
        let restart = t.addingTimeInterval(1)
        for fix in drive(roads.path("SXYW"), speed: 8, from: restart, startOffset: 8, stopSeconds: 5) {
            fixes.append((fix, 120 + min(8 + fix.timestamp.timeIntervalSince(restart) * 8, 420)))
        }
        var result: [Double] = []
        for (fix, along) in fixes where !nav.process(fix).arrivals.isEmpty { result.append(along) }
        return result
    }

    @Test func standingBesideTheWaypointOnTheWayOutIsNotArriving() throws {
        let result = try arrivals(NavigatorConfiguration())
        #expect(result.count == 1)
        #expect((result.first ?? 0) > 540 - 30, "announced with \(540 - (result.first ?? 0)) m to go")
    }

    /// Control: without the check the stand at the light, 12 m from W in a straight line, is taken for arriving.
    @Test func withoutTheCheckTheStandAtTheLightArrives() throws {
        var configuration = NavigatorConfiguration()
        configuration.arrivalStandingProgressMeters = 0
        #expect(try arrivals(configuration).first == 120)
    }

    /// A vehicle that has not driven along the leg (standing where it starts, as in scripts/fault-burst: a vehicle
    /// assigned a waypoint 11 m away) is not held back by the check: standing there arrives.
    @Test func standingAtTheLegsStartBesideTheWaypointStillArrives() throws {
        let roads = try block()
        let nav = navigator(roads, NavigatorConfiguration())
        _ = nav.process(RawFix(coordinate: light(roads), timestamp: t0, speedMetersPerSecond: 0))
        #expect(nav.setDestinations([NavigationWaypoint(coordinate: roads["W"], title: "W")], at: t0).status == .ok)
        var arrived = 0
        for k in 1...6 {
            let fix = RawFix(
                coordinate: light(roads), timestamp: t0.addingTimeInterval(Double(k)), horizontalAccuracyMeters: 5,
                speedMetersPerSecond: 0)
            arrived += nav.process(fix).arrivals.count
        }
        #expect(arrived == 1)
    }
}

/// The nearest-road snapper, but a standing fix at `standing` comes back off the route with the leg still likelier
/// (log-odds 10).
private final class StandingBesideAnotherRoadSnapper: RoadSnappingProvider {
    private let nearest: NearestRoadSnapper
    private let standing: Coordinate

    init(graph: RoadGraph, at standing: Coordinate) {
        nearest = NearestRoadSnapper(graph: graph)
        self.standing = standing
    }

    func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
        var snapped = nearest.snap(fix, activeLeg: activeLeg)
        if fix.speedMetersPerSecond == 0, Geodesy.distanceMeters(fix.coordinate, standing) < 1 {
            snapped.isOnRoute = false
            snapped.routeLogOdds = 10
        }
        return snapped
    }

    func reset() { nearest.reset() }
}

/// A drive that ends at its destination while moving, its last fix a position outlier (2 % of fixes): SUMO Kouvola
/// probe9 and Helsinki probe12 at 1 s, the last good fix 18–25 m short at 10–22 m/s, the last fix 46–138 m off.
@Suite struct OutlierAtTheWaypointTests {
    /// A–B, 400 m. Fixes every second at 20 m/s from 20 m to 380 m (20 m short of B), then one at B displaced 50 m
    /// north and 8 m back (the nearest road puts it 8 m short of B, as the HMM matcher coasting through the outlier
    /// did: the line from the fix before does not cross B, so the pass-through rule cannot take it). Returns the
    /// metres along A–B at each arrival.
    private func arrivals(_ configuration: NavigatorConfiguration, lastNorthMeters: Double = 50) throws -> [Double] {
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        let nav = roads.navigator(configuration: configuration)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        var result: [Double] = []
        let length = PolylineGeometry.lengthMeters(roads.path("AB"))
        var fixes = drive(roads.path("AB"), speed: 20, from: t0.addingTimeInterval(1), startOffset: length - 380)
        let last = fixes.removeLast()  // at B
        #expect(Geodesy.distanceMeters(last.coordinate, roads["B"]) < 1)
        for fix in fixes where !nav.process(fix).arrivals.isEmpty {
            result.append(Geodesy.distanceMeters(fix.coordinate, roads["A"]))
        }
        var outlier = last
        outlier.coordinate = offset(last.coordinate, east: -8, north: lastNorthMeters)
        if !nav.process(outlier).arrivals.isEmpty { result.append(400) }
        return result
    }

    @Test func theLastFixAnOutlierAtTheWaypointStillArrives() throws {
        #expect(try arrivals(NavigatorConfiguration()) == [400])
    }

    /// Control: without coasting through the outlier the drive ends unannounced (the fix 20 m short is neither
    /// within the moving radius nor the nearest fix: the next, at this speed, lands on the waypoint).
    @Test func withoutCoastingTheDriveEndsWithoutArrival() throws {
        var configuration = NavigatorConfiguration()
        configuration.arrivalCoastingMaximumSeconds = 0
        #expect(try arrivals(configuration).isEmpty)
    }
}

/// At 5 s fixes a drive that ends at its destination with its last fix an outlier displaced back along the leg: the
/// fix stays inside the leg's corridor and within a plausible drive of the fix before, so only its distance from the
/// matcher's position, which coasted through it to the waypoint, shows it for an outlier (SUMO Baltimore, actuated
/// signals, probe5 at 5 s: the last fix 86 m back along the leg, the match 7 m from the waypoint, the progress filter
/// on the match; the final arrival was never announced).
@Suite struct OutlierAlongTheLegAtSparseFixesTests {
    /// A–B, 400 m. Fixes every 5 s at 10 m/s from 50 m to 350 m, then the last one, truly at B, reported 85 m back
    /// along the road; the snapper matches it at B, as the HMM matcher coasting on the speeds did. Returns the fixes
    /// that announced an arrival, counted from the last (0 the last, -1 the one before).
    private func arrivals(_ configuration: NavigatorConfiguration) throws -> [Int] {
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        let length = PolylineGeometry.lengthMeters(roads.path("AB"))
        let outlier = PolylineGeometry.point(along: roads.path("AB"), offsetMeters: length - 85)!
        let nav = NavigatorCore(
            graph: roads.graph, snapper: CoastingThroughSnapper(graph: roads.graph, outlier: outlier, coastedTo: roads["B"]),
            configuration: configuration)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        var fixes = drive(roads.path("AB"), speed: 10, interval: 5, from: t0.addingTimeInterval(5), startOffset: length - 350)
        #expect(Geodesy.distanceMeters(fixes[fixes.count - 1].coordinate, roads["B"]) < 1)
        #expect(Geodesy.distanceMeters(fixes[fixes.count - 2].coordinate, roads["B"]) > 40)
        fixes[fixes.count - 1].coordinate = outlier
        var result: [Int] = []
        for (i, fix) in fixes.enumerated() where !nav.process(fix).arrivals.isEmpty { result.append(i) }
        return result.map { $0 - (fixes.count - 1) }
    }

    @Test func theLastFixAnOutlierAlongTheLegStillArrives() throws {
        #expect(try arrivals(NavigatorConfiguration()) == [0], "expected the arrival at the last fix")
    }

    /// Control: without coasting the drive ends unannounced (the fix before is 50 m short, the last one 85 m).
    @Test func withoutCoastingTheDriveEndsWithoutArrival() throws {
        var configuration = NavigatorConfiguration()
        configuration.arrivalCoastingMaximumSeconds = 0
        #expect(try arrivals(configuration).isEmpty)
    }
}

/// The nearest-road snapper, but the fix at `outlier` is matched at `coastedTo` (its raw fix and the raw fix's route
/// match stay the outlier's).
private final class CoastingThroughSnapper: RoadSnappingProvider {
    private let nearest: NearestRoadSnapper
    private let outlier: Coordinate
    private let coastedTo: Coordinate

    init(graph: RoadGraph, outlier: Coordinate, coastedTo: Coordinate) {
        nearest = NearestRoadSnapper(graph: graph)
        self.outlier = outlier
        self.coastedTo = coastedTo
    }

    func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
        guard Geodesy.distanceMeters(fix.coordinate, outlier) < 1 else { return nearest.snap(fix, activeLeg: activeLeg) }
        let raw = nearest.snap(fix, activeLeg: activeLeg)
        var moved = fix
        moved.coordinate = coastedTo
        var coasted = nearest.snap(moved, activeLeg: activeLeg)
        coasted.fix = fix
        coasted.rawRouteMatch = raw.rawRouteMatch
        return coasted
    }

    func reset() { nearest.reset() }
}
