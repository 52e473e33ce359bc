import Geo
import RoadGraph
import Testing
import TraceSimulation

@testable import MapMatching

/// A vehicle brakes to a stop at 2–4 m/s², so a stop seen at the end of a 5 s interval mostly happened early in it,
/// and the trapezoid of the two speeds overstates the distance driven
/// (`MapMatchingConfiguration.stoppingIntervalUncertaintyFactor`).
@Suite struct StoppingIntervalTests {
    /// Cruise at 12 m/s, brake at 3 m/s² to a stop 3 m before B (where way "First" ends and "Second" begins), stand
    /// 30 s, pull away at 2 m/s² to 12 m/s, moved as a 1 s-step simulator does (x += v after v is updated); fixes
    /// every 5 s from second `phase` with σ = 4 m. Returns the fixes, the true distances from A and the stop's time.
    static func stopBeforeNode(_ f: MatchingFixture, phase: Int, seed: UInt64)
        -> (fixes: [LocationFix], along: [Double], stopTime: Int)
    {
        let stopAt = f.index.length(of: f.edges["AB"]!) - 3
        // Braking from 12 m/s at 3 m/s² (x += v after each update: 9, 6, 3, 0) covers 18 m.
        let brakeFrom = stopAt - 18
        var rng = SplitMix64(seed: seed)
        var v = 12.0, x = brakeFrom - 12 * 30
        var fixes: [LocationFix] = [], along: [Double] = []
        var stopTime = -1, standing = 0
        let total = f.index.length(of: f.edges["AB"]!) + f.index.length(of: f.edges["BC"]!)
        for t in 0..<110 {
            if stopTime < 0 && x >= brakeFrom - 1e-9 { v = max(0, v - 3) } else if stopTime >= 0 && standing < 30 {
                v = 0
                standing += 1
            } else if stopTime >= 0 { v = min(12, v + 2) }
            x += v
            if v == 0 && stopTime < 0 { stopTime = t }
            guard t >= phase, (t - phase) % 5 == 0, x > 20, x < total - 20 else { continue }
            let p: Coordinate = x <= f.index.length(of: f.edges["AB"]!)
                ? f.at("A", "B", x / f.index.length(of: f.edges["AB"]!))
                : f.at("B", "C", (x - f.index.length(of: f.edges["AB"]!)) / f.index.length(of: f.edges["BC"]!))
            let noisy = LocalProjection(origin: p).unproject(x: 4 * rng.normal(), y: 4 * rng.normal())
            fixes.append(fix(noisy, t: Double(t), speed: v, course: v >= 1 ? 90 : nil))
            along.append(x)
        }
        return (fixes, along, stopTime)
    }

    /// Mean absolute along-road error of the final answers within 15 s of the stop (braking, standing, pulling
    /// away), metres, over 6 seeds × the 5 phases of the fixes against the stop.
    static func meanError(factor: Double) throws -> Double {
        let f = try MatchingFixture("A-------------------------------------B-------------------------------C",
                                    gridMeters: 10, roads: [FixtureRoad(nodes: "AB", name: "First"),
                                                            FixtureRoad(nodes: "BC", name: "Second")])
        var configuration = MapMatchingConfiguration()
        configuration.stoppingIntervalUncertaintyFactor = factor
        var errors: [Double] = []
        let lengthAB = f.index.length(of: f.edges["AB"]!)
        for seed: UInt64 in 1...6 {
            for phase in 0..<5 {
                let (fixes, along, stopTime) = Self.stopBeforeNode(f, phase: phase, seed: seed)
                let out = matchAll(f, fixes, configuration: configuration)
                #expect(out.count == fixes.count)
                for (i, o) in out.enumerated() where abs(fixes[i].timestamp - 1_700_000_000 - Double(stopTime)) <= 15 {
                    let offset = o.edge == f.edges["AB"] ? o.edgeOffsetMeters
                        : o.edge == f.edges["BC"] ? lengthAB + o.edgeOffsetMeters : .nan
                    errors.append(abs(offset - along[i]))
                }
            }
        }
        #expect(errors.count > 100 && errors.allSatisfy(\.isFinite))
        return errors.reduce(0, +) / Double(max(1, errors.count))
    }

    @Test func fixesAcrossAStopAtFiveSecondsTrustTheTrapezoidLess() throws {
        // Control: with the plain uncertainty (factor 1) the braking fixes and the standing ones drag each other
        // (1.58 m against 1.37 m when written).
        let widened = try Self.meanError(factor: MapMatchingConfiguration().stoppingIntervalUncertaintyFactor)
        let plain = try Self.meanError(factor: 1)
        #expect(widened < 0.9 * plain, "\(widened) m with the wider uncertainty, \(plain) m without")
    }
}
