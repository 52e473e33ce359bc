import Geo
import RoadGraph
import Testing
import TraceSimulation

@testable import MapMatching

/// Fixes without speed and course (positions only): the matcher derives the vehicle's pace from the positions on
/// its best path and uses it in the transitions (`derivedSpeedBetaMeters`). Control: the same traces with it off.
@Suite struct PositionOnlyTests {
    /// A main street split into a way at every crossing (as OSM does), cross streets every 60 m.
    static let grid = """
              C     E     G     I     K     S
              |     |     |     |     |     |
              |     |     |     |     |     |
        A-----B-----D-----F-----H-----J-----L-----T
              |     |     |     |     |     |
              |     |     |     |     |     |
              M     N     O     P     Q     R
        """

    static func fixture() throws -> MatchingFixture {
        var roads = ["AB", "BD", "DF", "FH", "HJ", "JL", "LT"].map { FixtureRoad(nodes: $0, name: "Main \($0)") }
        roads += ["CBM", "EDN", "GFO", "IHP", "KJQ", "SLR"].map { FixtureRoad(nodes: $0, name: "Cross \($0)") }
        return try MatchingFixture(Self.grid, gridMeters: 10, roads: roads)
    }

    /// Way-id accuracy and error p95 (metres) of positions-only drives along the main street over `seeds`.
    static func evaluate(_ f: MatchingFixture, _ configuration: MapMatchingConfiguration,
                         seeds: ClosedRange<UInt64>) -> (accuracy: Double, p95: Double) {
        var right = 0, total = 0
        var errors: [Double] = []
        for seed in seeds {
            let drive = f.drive("ABDFHJLT", margin: 5) {
                $0.seed = seed
                $0.speedSigmaMetersPerSecond = nil
                $0.courseSigmaDegrees = nil
                $0.outlierProbability = 0
                $0.stopProbabilityAtJunctions = 0.3
            }
            let out = matchAll(f, drive.fixes, configuration: configuration)
            for (o, t) in zip(out, drive.truth) {
                total += 1
                if o.osmWayID == t.osmWayID { right += 1 }
                errors.append(Geodesy.distanceMeters(o.coordinate, t.coordinate))
            }
        }
        return (Double(right) / Double(max(1, total)), percentile(errors, 0.95))
    }

    @Test func derivedSpeedKeepsPositionsOnlyDrivesOnTheirWayAndNearTheTruth() throws {
        let f = try Self.fixture()
        // Both with the constant-velocity smoother, to see the transitions alone.
        var on = MapMatchingConfiguration()
        on.positionsOnlyJerkMetersPerSecondCubed = 0
        var off = on
        off.derivedSpeedBetaMeters = .infinity
        let with = Self.evaluate(f, on, seeds: 1...12)
        let without = Self.evaluate(f, off, seeds: 1...12)
        // Measured: 93.0 % and p95 8.5 m with it, 92.1 % and 9.0 m without.
        #expect(with.accuracy > without.accuracy, "\(with) against \(without)")
        #expect(with.p95 < without.p95, "\(with) against \(without)")
    }

    @Test func theConstantAccelerationFitFollowsBrakingBetterThanAStraightLine() throws {
        let f = try Self.fixture()
        var line = MapMatchingConfiguration()
        line.positionsOnlyJerkMetersPerSecondCubed = 0
        let curve = Self.evaluate(f, MapMatchingConfiguration(), seeds: 1...12)
        let straight = Self.evaluate(f, line, seeds: 1...12)
        #expect(curve.p95 < straight.p95, "\(curve) against \(straight)")
    }

    @Test func theConstantAccelerationFitRecoversAQuadratic() {
        // Braking: s = 100 + 12·τ − 1.25·τ², observed exactly at τ = −6…6 s; the fit returns s and ds/dτ at τ = 0.
        let samples = (-6...6).map { k -> OdometerSample in
            let tau = Double(k)
            return OdometerSample(time: 1000 + tau, distance: 100 + 12 * tau - 1.25 * tau * tau, speed: nil, sigma: 8)
        }
        let fit = AlongRoadSmoother.constantAccelerationFit(samples[...], at: 1000, jerk: 0.15)
        #expect(abs((fit?.distance ?? 0) - 100) < 1e-6)
        #expect(abs((fit?.speed ?? 0) - 12) < 1e-6)
        // Three positions do not determine a quadratic fit with its noise: no answer, the caller fits a line.
        #expect(AlongRoadSmoother.constantAccelerationFit(samples[0..<3], at: 1000, jerk: 0.15) == nil)
    }

    @Test func fixesWithASpeedDoNotUseTheDerivedOne() throws {
        // The receiver's speed wins: with speeds in the fixes the option changes nothing.
        let f = try Self.fixture()
        var off = MapMatchingConfiguration()
        off.derivedSpeedBetaMeters = .infinity
        for seed: UInt64 in 1...3 {
            let drive = f.drive("ABDFHJLT", margin: 5) { $0.seed = seed }
            let a = matchAll(f, drive.fixes)
            let b = matchAll(f, drive.fixes, configuration: off)
            #expect(a.map(\.coordinate) == b.map(\.coordinate))
        }
    }
}
