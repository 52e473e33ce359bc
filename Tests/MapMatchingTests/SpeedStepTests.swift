import Geo
import RoadGraph
import Testing
import TraceSimulation

@testable import MapMatching

/// A traffic simulator that moves each vehicle by its new speed at every 1 s step (SUMO's default Euler update)
/// reports speeds that lag its positions by half a step: braking from 20 m/s to a stop, the trapezoid of the
/// speeds overstates the distance driven by up to 10 m (`MapMatchingConfiguration.speedStepSeconds`).
@Suite struct SpeedStepTests {
    /// Cruise at 20 m/s, brake at 3 m/s² to a stop, stand 10 s, pull away at 2 m/s² to 15 m/s and cruise, moved
    /// as the simulator does (x += v each second after v is updated); fixes every `interval` seconds with σ = 2 m.
    static func eulerDrive(_ f: MatchingFixture, interval: Int, seed: UInt64) -> (fixes: [LocationFix], along: [Double]) {
        let length = f.index.length(of: f.edges["AB"]!)
        var rng = SplitMix64(seed: seed)
        var v = 20.0, x = 20.0
        var fixes: [LocationFix] = [], along: [Double] = []
        for t in 0..<90 {
            switch t {
            case 0..<20: v = 20
            case 20..<40: v = max(0, v - 3)
            case 40..<50: v = 0
            default: v = min(15, v + 2)
            }
            x += v
            guard t % interval == 0, x < length - 20 else { continue }
            let p = LocalProjection(origin: f.at("A", "B", x / length)).unproject(x: 2 * rng.normal(), y: 2 * rng.normal())
            fixes.append(fix(p, t: Double(t), speed: v, course: v >= 1 ? 90 : nil))
            along.append(x)
        }
        return (fixes, along)
    }

    /// Mean absolute along-road error of the final answers of moving fixes, metres.
    static func meanError(stepSeconds: Double, interval: Int) throws -> Double {
        let f = try MatchingFixture("A--------------------------------------------------------------------------------------------B",
                                    gridMeters: 20, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        var configuration = MapMatchingConfiguration()
        configuration.speedStepSeconds = stepSeconds
        var errors: [Double] = []
        for seed: UInt64 in 1...4 {
            let (fixes, along) = Self.eulerDrive(f, interval: interval, seed: seed)
            let out = matchAll(f, fixes, configuration: configuration)
            #expect(out.count == fixes.count)
            for (i, o) in out.enumerated() where (fixes[i].validSpeed ?? 0) >= 1 && o.edge == f.edges["AB"] {
                errors.append(abs(o.edgeOffsetMeters - along[i]))
            }
        }
        #expect(errors.count > 30)
        return errors.reduce(0, +) / Double(max(1, errors.count))
    }

    @Test func speedsOfAnEulerStepSimulatorAreIntegratedAsItMovesItsVehicles() throws {
        // Control: the trapezoid alone (a receiver's instantaneous speeds) misplaces the braking and pulling away.
        let matched = try Self.meanError(stepSeconds: 1, interval: 1)
        let trapezoid = try Self.meanError(stepSeconds: 0, interval: 1)
        #expect(matched < 0.75 * trapezoid, "1 s fixes: \(matched) m with the step, \(trapezoid) m without")
        // At 5 s fixes the speeds between two fixes are unseen: half a step of their difference helps less.
        let sparse = try Self.meanError(stepSeconds: 1, interval: 5)
        let sparseTrapezoid = try Self.meanError(stepSeconds: 0, interval: 5)
        #expect(sparse <= sparseTrapezoid, "5 s fixes: \(sparse) m with the step, \(sparseTrapezoid) m without")
    }
}
