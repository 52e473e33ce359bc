import Geo
import RoadGraph
import Testing
import TraceSimulation

@testable import MapMatching

/// Transcripts of the provisional answer (the newest fix's, which the navigator uses) where the road changes OSM
/// way at a node.
@Suite struct ProvisionalAnswerTests {
    /// Approach runs west–east into J, where the road goes on as another OSM way, Onward (OSM splits ways at every
    /// crossing and signal). A vehicle drives through at 10 m/s, one fix a second with σ = 8 m on each axis, with
    /// speed and course. Returns how many provisional answers for fixes within 15 m of J (of how many) were on the
    /// true way, with and without a route along Approach and Onward.
    static func passingAWaySplit(configuration: MapMatchingConfiguration, withRoute: Bool)
        throws -> (right: Int, count: Int)
    {
        let f = try MatchingFixture(
            "W-------------------------J-------------------------E",
            roads: [FixtureRoad(nodes: "WJ", name: "Approach"), FixtureRoad(nodes: "JE", name: "Onward")])
        let west = f.index.length(of: f.edges["WJ"]!), east = f.index.length(of: f.edges["JE"]!)
        var right = 0, count = 0
        for seed: UInt64 in 1...24 {
            var rng = SplitMix64(seed: seed)
            let matcher = MapMatcher(index: f.index, configuration: configuration)
            if withRoute { matcher.setRoute(edges: f.path("WJE")) }
            // Start at a different phase each time so that fixes fall at every distance from J.
            var x = 20 + Double(seed % 10)
            var t = 0.0
            while x < west + east - 20 {
                let p = x < west ? f.at("W", "J", x / west) : f.at("J", "E", (x - west) / east)
                let q = LocalProjection(origin: p).unproject(x: 8 * rng.normal(), y: 8 * rng.normal())
                let update = matcher.update(
                    fix(q, t: t, speed: 10 + 0.3 * rng.normal(), course: 90 + 5 * rng.normal()))
                if abs(x - west) <= 15 {
                    count += 1
                    if update.provisional.osmWayID == f.way(x < west ? "Approach" : "Onward") { right += 1 }
                }
                x += 10
                t += 1
            }
        }
        return (right, count)
    }

    @Test func theProvisionalAnswerCrossesTheNodeWhereSmoothingPutsIt() throws {
        var clamped = MapMatchingConfiguration()
        clamped.provisionalWalksAcrossNodes = false
        for withRoute in [false, true] {
            let walking = try Self.passingAWaySplit(configuration: MapMatchingConfiguration(), withRoute: withRoute)
            let before = try Self.passingAWaySplit(configuration: clamped, withRoute: withRoute)
            // Kept on the edge of the newest fix's state, the smoothed position stops at the node whenever the
            // noisy fix fell on the other side of it.
            #expect(walking.right > before.right + walking.count / 20,
                    "route \(withRoute): \(walking.right) vs \(before.right) of \(walking.count) on the true way")
            #expect(walking.right >= walking.count * 85 / 100,
                    "route \(withRoute): \(walking.right) of \(walking.count) on the true way")
        }
    }
}
