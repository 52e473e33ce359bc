import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph
import Routing
import Testing
import TraceSimulation

/// Noisy simulated drives on the real Helsinki extract (σ = 8 m, 2 % outliers of 50–150 m), a few trips so the
/// debug build stays quick; `NavigationBenchmark` runs the full set in release (figures in BENCHMARKS.md).
@Suite(.enabled(if: HelsinkiExtract.isPresent, "Helsinki.osm.pbf missing: run scripts/fetch-maps"))
struct HelsinkiAccuracyTests {

    private func trips(_ graph: RoadGraph, count: Int) -> [(Coordinate, Coordinate)] {
        let router = Router(graph: graph)
        var rng = SplitMix64(seed: 77)
        var drivable: [EdgeID] = []
        for e in 0..<EdgeID(graph.edgeCount)
        where graph.access(of: e).contains(.driving) && graph.lengthMeters(of: e) > 30 {
            drivable.append(e)
        }
        var out: [(Coordinate, Coordinate)] = []
        while out.count < count {
            let points = (0..<2).map { _ -> Coordinate in
                let g = graph.geometry(of: drivable[Int.random(in: 0..<drivable.count, using: &rng)])
                return PolylineGeometry.point(along: g, offsetMeters: PolylineGeometry.lengthMeters(g) / 2)!
            }
            if let d = router.route(RouteRequest(origin: Waypoint(points[0]), destinations: [Waypoint(points[1])]))
                .route?.distanceMeters,
                d > 800, d < 3000
            {
                out.append((points[0], points[1]))
            }
        }
        return out
    }

    /// `NavigationBenchmark`'s drive 13 (seed 2026) at 5 s fixes: an outlier the matcher took carried its position on,
    /// and at the next fix, 35 m short of the first waypoint by its raw position, the matched position lay 32 m past
    /// it (65 m from the fix): passing through was announced 42 m early while the check on the fix
    /// (`arrivalPassingThroughFixMeters`) asked for a fix 40 m short. A fix short by more than a measurement that agrees
    /// with an arrival may be (25 m) now holds it back.
    @Test func benchmarkDriveThirteenAtFiveSecondsIsNotAnnouncedEarly() throws {
        let graph = try #require(HelsinkiExtract.graph)
        var evaluator = TripEvaluator(graph: graph)
        evaluator.noise.fixIntervalSeconds = 5
        evaluator.noise.reportedAccuracyMeters = 10
        let r = try #require(
            evaluator.run(
                origin: Coordinate(latitude: 60.17005755611015, longitude: 24.947617464580723),
                waypoints: [
                    Coordinate(latitude: 60.17765445, longitude: 24.9459134),
                    Coordinate(latitude: 60.17181470519238, longitude: 24.93558911892279),
                ], seed: 14))
        #expect(r.arrivalCounts == [1, 1])
        #expect(r.arrivalRemainingMeters.allSatisfy { ($0 ?? 0) <= 30 }, "announced \(r.arrivalRemainingMeters) m early")
    }

    @Test(arguments: [1.0, 5.0])
    func followingDrivesArriveOnceWithoutEarlyArrival(interval: Double) throws {
        let graph = try #require(HelsinkiExtract.graph)
        var evaluator = TripEvaluator(graph: graph)
        evaluator.noise.fixIntervalSeconds = interval
        evaluator.noise.reportedAccuracyMeters = 10
        var evaluated = 0, reroutes = 0
        for (i, trip) in trips(graph, count: 6).enumerated() {
            guard let r = evaluator.run(origin: trip.0, waypoints: [trip.1], seed: UInt64(i + 1)) else { continue }
            evaluated += 1
            reroutes += r.reroutes
            #expect(r.arrivalCounts == [1], "trip \(i)")
            if let d = r.arrivalDistanceMeters[0] { #expect(d <= 30, "trip \(i): arrival \(d) m from the waypoint") }
            if let m = r.arrivalRemainingMeters[0] { #expect(m <= 30, "trip \(i): announced \(m) m early") }
        }
        #expect(evaluated >= 3)
        // No reroute on a drive that follows the route (none in the benchmark's 289 following trips either, BENCHMARKS.md).
        #expect(reroutes == 0)
    }

    @Test func leavingTheRouteIsDetected() throws {
        let graph = try #require(HelsinkiExtract.graph)
        var evaluator = TripEvaluator(graph: graph)
        evaluator.noise.fixIntervalSeconds = 5
        evaluator.noise.reportedAccuracyMeters = 10
        var detected = 0, evaluated = 0
        for (i, trip) in trips(graph, count: 6).enumerated() {
            guard
                let r = evaluator.run(
                    origin: trip.0, waypoints: [trip.1], leaveAfterFraction: 0.4, seed: UInt64(i + 50))
            else { continue }
            evaluated += 1
            // At a fork at a small angle the leaving road runs inside the route's corridor for a while, and only
            // leaving the corridor tells (BENCHMARKS.md, navigation): count from there too (trip 1 here: 10 fixes
            // from the first fix off the route, 2 from the corridor exit).
            if let n = r.fixesToReroute, n <= 6 { detected += 1 } else if let n = r.fixesToRerouteAfterCorridorExit, n <= 6 {
                detected += 1
            }
        }
        #expect(evaluated >= 2)
        #expect(detected == evaluated)
    }
}
