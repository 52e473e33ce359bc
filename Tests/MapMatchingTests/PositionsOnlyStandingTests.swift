import Geo
import RoadGraph
import Testing
import TraceSimulation

@testable import MapMatching

/// A vehicle without speed and course in its fixes that drives, stands and drives on (`StandingVehicleTests.stopAndGo`
/// without speeds): the standing test from the positions alone (`speedInferenceOutlierSigmas`) and the final
/// answers of a stop (`positionsOnlyStandingRunSmoothing`).
@Suite struct PositionsOnlyStandingTests {
    static func road() throws -> MatchingFixture {
        try MatchingFixture(StandingVehicleTests.straightRoad, roads: [FixtureRoad(nodes: "AB", name: "Main")])
    }

    /// Final answers' distances from the stop, for the standing fixes `range` (relative to the stop's first fix)
    /// of a 40 s stop, over `seeds`; `outlierAt` (relative to the stop's first fix) moves one fix 80 m north.
    static func standingErrors(_ f: MatchingFixture, _ configuration: MapMatchingConfiguration, range: Range<Int>,
                               outlierAt: Int? = nil, seeds: ClosedRange<UInt64>) -> [Double] {
        var errors: [Double] = []
        for seed in seeds {
            var (fixes, standing, stop) = StandingVehicleTests.stopAndGo(
                f, stopAt: 300, standSeconds: 40, sigma: 8, seed: seed, withSpeed: false)
            if let k = outlierAt {
                let i = standing.lowerBound + k
                fixes[i] = fix(LocalProjection(origin: stop).unproject(x: 0, y: 80), t: fixes[i].timestamp - 1_700_000_000)
            }
            let out = matchAll(f, fixes, configuration: configuration)
            for k in range {
                errors.append(Geodesy.distanceMeters(out[standing.lowerBound + k].coordinate, stop))
            }
        }
        return errors
    }

    @Test func oneOutlierDoesNotEndAStopSeenFromPositions() throws {
        let f = try Self.road()
        // An outlier 15 s into the stop; the 12 s after it. Without leaving it out of the speed inference's line,
        // the line through 12 s of positions tilts by up to 80 m · 6 s / 143 s² ≈ 3 m/s while it is in the window,
        // the vehicle counts as moving, and the fixes are no longer averaged as one point.
        let with = MapMatchingConfiguration()
        var without = with
        without.speedInferenceOutlierSigmas = 0
        let a = Self.standingErrors(f, with, range: 16..<28, outlierAt: 15, seeds: 1...8)
        let b = Self.standingErrors(f, without, range: 16..<28, outlierAt: 15, seeds: 1...8)
        let mean = { (e: [Double]) in e.reduce(0, +) / Double(e.count) }
        // Measured: 1.20 m with, 2.47 m without (p90 2.9 / 3.9 m).
        #expect(mean(a) < mean(b), "\(mean(a)) m against \(mean(b)) m")
    }

    @Test func aStopsFinalAnswersAreItsOwnFixesAverage() throws {
        let f = try Self.road()
        // The whole stop but its first 8 s (the standing test needs them) and last 4 s.
        let with = MapMatchingConfiguration()
        var without = with
        without.positionsOnlyStandingRunSmoothing = false
        let a = Self.standingErrors(f, with, range: 8..<36, seeds: 1...8)
        let b = Self.standingErrors(f, without, range: 8..<36, seeds: 1...8)
        let mean = { (e: [Double]) in e.reduce(0, +) / Double(e.count) }
        // Measured: 1.16 m with, 1.97 m without (p90 2.6 / 3.4 m).
        #expect(mean(a) < mean(b), "\(mean(a)) m against \(mean(b)) m")
    }

    /// Final answers' distances from the stop for the standing fixes `range` (relative to the stop's first fix at
    /// 5 s fixes) of a 40 s stop, the 1 s drive of `stopAndGo` thinned to every fifth fix.
    static func standingErrorsAtFiveSeconds(_ f: MatchingFixture, _ configuration: MapMatchingConfiguration,
                                            range: Range<Int>, seeds: ClosedRange<UInt64>) -> [Double] {
        var errors: [Double] = []
        for seed in seeds {
            let (all, standing, stop) = StandingVehicleTests.stopAndGo(
                f, stopAt: 300, standSeconds: 40, sigma: 8, seed: seed, withSpeed: false)
            // Every fifth fix, from the stop's first one (so that it is kept).
            let phase = standing.lowerBound % 5
            let fixes = all.indices.filter { $0 % 5 == phase }.map { all[$0] }
            let first = standing.lowerBound / 5
            let out = matchAll(f, fixes, configuration: configuration)
            for k in range { errors.append(Geodesy.distanceMeters(out[first + k].coordinate, stop)) }
        }
        return errors
    }

    @Test func aStopsFirstFixesAtFiveSecondsAreSeenStandingInHindsight() throws {
        let f = try Self.road()
        // At 5 s fixes the standing test looking back holds three fixes: it takes the stop's first two as moving,
        // and the curve through the window places them off the stop. Looking ahead over the lag, the fixes after
        // them sit on the same spot: they are averaged with the stop.
        let with = MapMatchingConfiguration()
        var without = with
        without.positionsOnlyStandingLookAhead = false
        let a = Self.standingErrorsAtFiveSeconds(f, with, range: 0..<2, seeds: 1...8)
        let b = Self.standingErrorsAtFiveSeconds(f, without, range: 0..<2, seeds: 1...8)
        let mean = { (e: [Double]) in e.reduce(0, +) / Double(e.count) }
        // Measured: 5.12 m with, 7.89 m without (p90 10.0 / 18.4 m).
        #expect(mean(a) < mean(b), "\(mean(a)) m against \(mean(b)) m")
    }

    @Test func fixesOneSecondApartDoNotLookAhead() throws {
        let f = try Self.road()
        // At 1 s fixes the line through 12 s of positions is flat while a braking vehicle's last seconds are in it
        // (`positionsOnlyStandingLookAheadMaximumFixes`): the final answers are those without the look-ahead.
        var without = MapMatchingConfiguration()
        without.positionsOnlyStandingLookAhead = false
        var unlimited = MapMatchingConfiguration()
        unlimited.positionsOnlyStandingLookAheadMaximumFixes = 100
        let a = Self.standingErrors(f, MapMatchingConfiguration(), range: 0..<40, seeds: 1...4)
        let b = Self.standingErrors(f, without, range: 0..<40, seeds: 1...4)
        let c = Self.standingErrors(f, unlimited, range: 0..<40, seeds: 1...4)
        #expect(a == b)
        // … which is the limit's doing: without it the look-ahead marks fixes here too.
        let limitMatters = c != b
        #expect(limitMatters)
    }
}
