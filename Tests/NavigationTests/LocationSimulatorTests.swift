import Foundation
import Geo
import Navigation
import RoadGraph
import Testing

@Suite struct LocationSimulatorTests {
    private func routed() throws -> (DrawnRoads, NavigatorCore) {
        let roads = try DrawnRoads("A-------B", gridMeters: 100, ways: [.init("AB", speedKph: 36)])  // 10 m/s free flow
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        return (roads, nav)
    }

    private func along(_ roads: DrawnRoads, _ fix: RawFix) -> Double {
        Geodesy.distanceMeters(roads["A"], fix.coordinate)
    }

    @Test func nothingWithoutARoute() throws {
        let roads = try DrawnRoads("A-------B", gridMeters: 100, ways: [.init("AB")])
        let simulator = LocationSimulator(graph: roads.graph)
        #expect(!simulator.simulateLocationsAlongExistingRoute(roads.navigator(), at: t0))
        #expect(simulator.advance(by: 10).isEmpty)
    }

    @Test func speedMultiplierPauseResumeStop() throws {
        let (roads, nav) = try routed()
        let simulator = LocationSimulator(graph: roads.graph)
        #expect(simulator.simulateLocationsAlongExistingRoute(nav, at: t0))
        var fixes = simulator.advance(by: 10)
        #expect(fixes.count == 11)  // t0 … t0 + 10
        #expect(fixes.map(\.timestamp) == (0...10).map { t0.addingTimeInterval(Double($0)) })
        #expect(abs(along(roads, fixes.last!) - 100) < 0.5)
        simulator.speedMultiplier = 2
        simulator.speedMultiplier = 0  // ignored
        simulator.speedMultiplier = -3  // ignored
        #expect(simulator.speedMultiplier == 2)
        fixes = simulator.advance(by: 10)
        #expect(abs(along(roads, fixes.last!) - 300) < 0.5)
        #expect(abs(fixes.last!.speedMetersPerSecond! - 20) < 1e-9)
        simulator.pause()
        fixes = simulator.advance(by: 5)
        #expect(
            fixes.count == 5 && fixes.allSatisfy { abs(along(roads, $0) - 300) < 0.5 && $0.speedMetersPerSecond == 0 })
        simulator.resume()
        fixes = simulator.advance(by: 5)
        #expect(abs(along(roads, fixes.last!) - 400) < 0.5)
        simulator.stop()
        #expect(simulator.advance(by: 5).isEmpty && !simulator.isSimulating)
    }

    @Test func drivesTheNavigatorToArrivalAndStaysThere() throws {
        let (roads, nav) = try routed()
        let simulator = LocationSimulator(graph: roads.graph)
        simulator.simulateLocationsAlongExistingRoute(nav, at: t0.addingTimeInterval(1))
        let events = nav.process(simulator.advance(by: 120))
        #expect(events.arrivals.map(\.waypoint.title) == ["B"])
        #expect(simulator.hasFinished)
        #expect(Geodesy.distanceMeters(simulator.advance(by: 1).last!.coordinate, roads["B"]) < 0.5)
    }

    @Test func realismIsNoisyAndDeterministic() throws {
        let (roads, nav) = try routed()
        var realism = SimulationRealism()
        realism.seed = 42
        let config = LocationSimulatorConfiguration(fixIntervalSeconds: 1, realism: realism)
        let a = LocationSimulator(graph: roads.graph, configuration: config)
        let b = LocationSimulator(graph: roads.graph, configuration: config)
        a.simulateLocationsAlongExistingRoute(nav, at: t0)
        b.simulateLocationsAlongExistingRoute(nav, at: t0)
        let fa = a.advance(by: 200), fb = b.advance(by: 200)
        #expect(fa == fb)
        // Off the road line by GPS noise: mean |north| offset near σ·√(2/π) ≈ 6.4 m.
        let offsets = fa.map { abs(LocalProjection(origin: roads["A"]).project($0.coordinate).y) }
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        #expect(mean > 3 && mean < 15)
        #expect(fa.allSatisfy { $0.horizontalAccuracyMeters == 10 })
        let events = nav.process(fa)
        #expect(events.arrivals.count == 1)
    }
}
