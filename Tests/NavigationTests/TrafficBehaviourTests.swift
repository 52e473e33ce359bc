import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph
import Routing
import TestKit
import Testing

/// Every event under traffic-like driving (what a traffic simulator or a real city produces, and our drive
/// simulator does not): queues standing 0–50 m before a signal or a waypoint, stop-and-go creeping, long standing
/// with wandering fixes, a lane beside the centre line, feeds without a Doppler speed. With the production snapper
/// (the HMM matcher) and σ = 8 m noise on every fix.
@Suite struct TrafficBehaviourTests {
    /// A–S–W–C straight east, 50 km/h, traffic lights at S (320 m); the waypoint W at 640 m; at S a road forks off
    /// at about 27° to the south-east (S–D–E), so queues stand right at a junction with a road the leg does not take.
    private func roads(limitKph: Double = 50) throws -> DrawnRoads {
        try DrawnRoads(
            """
            A-------------------------------S-------------------------------W-------------------C
                                              \\
                                                \\
                                                  \\
                                                    D---------------------------------------E
            """, gridMeters: 10,
            ways: [.init("ASWC", speedKph: limitKph, limitKph: limitKph), .init("SDE", limitKph: limitKph)],
            signals: ["S"])
    }

    /// One piece of a drive: `seconds` at `speed` m/s along the road (0 = standing).
    private struct Phase {
        var seconds: Int
        var speed: Double
    }

    /// Fixes every second along A→C following `phases` from `startMeters`: σ-metre noise per axis (seeded), the
    /// lane `laneMeters` to the right of the eastbound course (south), a Doppler speed with 0.3 m/s noise (or none),
    /// a course with 5° noise while moving faster than 1 m/s.
    private func fixes(
        _ roads: DrawnRoads, _ phases: [Phase], startMeters: Double = 20, sigma: Double = 8, laneMeters: Double = 3,
        doppler: Bool = true, seed: UInt64
    ) -> (fixes: [RawFix], alongMeters: [Double]) {
        var rng = SeededGenerator(seed: seed)
        let path = roads.path("ASWC")
        var along = startMeters
        var out: [RawFix] = []
        var truth: [Double] = []
        var t = 1.0
        for phase in phases {
            for _ in 0..<phase.seconds {
                along += phase.speed
                let p = PolylineGeometry.point(along: path, offsetMeters: along)!
                let noisy = offset(p, east: sigma * rng.gaussian(), north: -laneMeters + sigma * rng.gaussian())
                let speed = max(0, phase.speed + 0.3 * rng.gaussian())
                out.append(
                    RawFix(
                        coordinate: noisy, timestamp: t0.addingTimeInterval(t), horizontalAccuracyMeters: 10,
                        courseDegrees: phase.speed > 1 ? 90 + 5 * rng.gaussian() : nil,
                        speedMetersPerSecond: doppler ? speed : nil))
                truth.append(along)
                t += 1
            }
        }
        return (out, truth)
    }

    private func navigator(_ roads: DrawnRoads) -> NavigatorCore {
        let nav = NavigatorCore(
            graph: roads.graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: roads.graph)))
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["W"], title: "W")], at: t0)
        return nav
    }

    /// Where the vehicle truly is when each event of interest comes.
    private struct Outcome {
        var reroutes = 0
        var arrivalsAtMeters: [Double] = []
        var speeding: [String] = []
        var remainingSeconds: [(along: Double, seconds: Double)] = []
    }

    private func run(_ nav: NavigatorCore, _ drive: (fixes: [RawFix], alongMeters: [Double])) -> Outcome {
        var o = Outcome()
        for (fix, along) in zip(drive.fixes, drive.alongMeters) {
            let events = nav.process(fix)
            o.reroutes += events.routeChanges.filter { $0.reason == .offRoute || $0.reason == .fasterRoute }.count
            o.arrivalsAtMeters += events.arrivals.map { _ in along }
            o.speeding += events.speedings.filter { $0.severity == .minor || $0.severity == .major }
                .map { "\($0.severity.rawValue) at \(Int(along)) m" }
            o.remainingSeconds += events.remainingTimes.map { (along, $0.remainingSeconds) }
        }
        return o
    }

    /// 12 m/s to 40 m before the lights; a queue there: 45 s standing, two creeps of 5 s at 1.5 and 2 m/s with
    /// 20 s and 15 s standing after each; on at 12 m/s to the waypoint, 60 s standing there. The queue spans 284–301.5 m
    /// along the road (36–18.5 m before the lights).
    private var queueAtTheLights: [Phase] {
        [
            Phase(seconds: 22, speed: 12), Phase(seconds: 45, speed: 0), Phase(seconds: 5, speed: 1.5),
            Phase(seconds: 20, speed: 0), Phase(seconds: 5, speed: 2), Phase(seconds: 15, speed: 0),
            Phase(seconds: 28, speed: 12), Phase(seconds: 1, speed: 2.5), Phase(seconds: 60, speed: 0),
        ]
    }

    @Test func aQueueAtTheLightsBesideAForkIsNotLeavingTheRoute() throws {
        // Ten seeds: no reroute, one arrival within 30 m of the waypoint, no speeding (12 m/s under 13.9).
        let roads = try roads()
        for seed in 1...10 as ClosedRange<UInt64> {
            let drive = fixes(roads, queueAtTheLights, seed: seed)
            let o = run(navigator(roads), drive)
            #expect(o.reroutes == 0, "seed \(seed)")
            #expect(o.arrivalsAtMeters.count == 1, "seed \(seed)")
            #expect(o.arrivalsAtMeters.allSatisfy { $0 >= 640 - 30 }, "seed \(seed): \(o.arrivalsAtMeters)")
            #expect(o.speeding.isEmpty, "seed \(seed): \(o.speeding)")
        }
    }

    @Test func aLongQueueDoesNotBlowUpTheRemainingTime() throws {
        // Standing 85 s in the queue: the remaining time while standing stays within 60 % above what it was on
        // joining the queue (the clock runs, the vehicle waits: the remaining time should hardly move) and comes down
        // as the vehicle drives on.
        let roads = try roads()
        let drive = fixes(roads, queueAtTheLights, seed: 3)
        let o = run(navigator(roads), drive)
        let joining = try #require(o.remainingSeconds.first { $0.along >= 284 }?.seconds)
        let inQueue = o.remainingSeconds.filter { (284...301.5).contains($0.along) }
        #expect(!inQueue.isEmpty)
        #expect(inQueue.allSatisfy { $0.seconds <= 1.6 * joining }, "joining \(joining) s, in the queue \(inQueue.map(\.seconds))")
        let late = try #require(o.remainingSeconds.last { $0.along < 600 }?.seconds)
        #expect(late < joining)
    }

    @Test func aQueueBeforeTheWaypointIsNoArrival() throws {
        // 12 m/s to 45 m before the waypoint, 60 s standing; creep to 35 m before it, 60 s standing; then on to it
        // and 60 s standing. Ten seeds: the arrival comes once and not before the vehicle is within 30 m.
        let roads = try roads()
        let phases = [
            Phase(seconds: 48, speed: 12), Phase(seconds: 60, speed: 0), Phase(seconds: 5, speed: 2),
            Phase(seconds: 60, speed: 0), Phase(seconds: 7, speed: 5), Phase(seconds: 60, speed: 0),
        ]
        for seed in 1...10 as ClosedRange<UInt64> {
            let drive = fixes(roads, phases, seed: seed)
            #expect(abs(drive.alongMeters.last! - 640) < 3)
            let o = run(navigator(roads), drive)
            #expect(o.arrivalsAtMeters.count == 1, "seed \(seed)")
            #expect(o.arrivalsAtMeters.allSatisfy { $0 >= 640 - 30 }, "seed \(seed): at \(o.arrivalsAtMeters)")
            #expect(o.reroutes == 0, "seed \(seed)")
        }
    }

    @Test func standingLongAtTheWaypointWithWanderingFixesArrivesOnce() throws {
        // Ten minutes parked at the waypoint with guidance left on (`stopGuidanceAtArrival = false`), fixes wandering
        // σ = 8 m plus a 60 m outlier every 50 s: one arrival, no reroute, no speeding.
        let roads = try roads()
        for seed in 1...5 as ClosedRange<UInt64> {
            var drive = fixes(roads, [Phase(seconds: 52, speed: 12), Phase(seconds: 600, speed: 0)], seed: seed)
            for i in stride(from: 60, to: drive.fixes.count, by: 50) {
                drive.fixes[i].coordinate = offset(drive.fixes[i].coordinate, east: 0, north: 60)
            }
            let nav = navigator(roads)
            nav.stopGuidanceAtArrival = false
            let o = run(nav, drive)
            #expect(o.arrivalsAtMeters.count == 1, "seed \(seed)")
            #expect(o.reroutes == 0, "seed \(seed)")
            #expect(o.speeding.isEmpty, "seed \(seed): \(o.speeding)")
        }
    }

    @Test func standingWithoutADopplerSpeedIsNotSpeeding() throws {
        // A feed without speeds: the navigator derives the speed from the snapped positions. Driving at 27 km/h,
        // standing 90 s, driving on in a 30 km/h street with σ = 8 m fixes must not read as speeding (from one fix
        // to the next the noise alone reads as 40 km/h); driving at 45 km/h there does.
        let roads = try roads(limitKph: 30)
        for seed in 1...5 as ClosedRange<UInt64> {
            let drive = fixes(
                roads, [Phase(seconds: 22, speed: 7.5), Phase(seconds: 90, speed: 0), Phase(seconds: 20, speed: 7.5)],
                doppler: false, seed: seed)
            let o = run(navigator(roads), drive)
            #expect(o.speeding.isEmpty, "seed \(seed): \(o.speeding)")
            #expect(o.reroutes == 0)
        }
        let fast = run(navigator(roads), fixes(roads, [Phase(seconds: 40, speed: 12.5)], doppler: false, seed: 1))
        #expect(fast.speeding.first?.hasPrefix("major") == true, "\(fast.speeding)")
    }
}
