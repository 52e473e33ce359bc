import Geo
import RoadGraph
import Testing
import TestKit
import TraceSimulation

@testable import MapMatching

/// A receiver whose reported accuracy does not match its noise (`residualSigmaAgreementFactor`): the matcher
/// measures the noise in its own answers and trusts the report only as far as they agree.
@Suite struct ResidualNoiseEstimateTests {
    /// A main street A–B and, 12 m north of it, a parallel street C–D, joined at both ends and in the middle.
    static let parallel = """
        C---------------------------------------E---------------------------------------D
        |                                       |                                       |
        |                                       |                                       |
        A---------------------------------------F---------------------------------------B
        """

    /// Wrong-way answers of drives along A–B with σ 8 m noise per axis and neither speed nor course, reporting
    /// `accuracy` (nil: none).
    static func wrongAnswers(accuracy: Double?, configuration: MapMatchingConfiguration = MapMatchingConfiguration())
        throws -> (wrong: Int, total: Int)
    {
        let f = try MatchingFixture(Self.parallel, gridMeters: 4, roads: [
            FixtureRoad(nodes: "AFB", name: "Main street"), FixtureRoad(nodes: "CED", name: "Parallel street"),
            FixtureRoad(nodes: "AC", name: "West link"), FixtureRoad(nodes: "FE", name: "Middle link"),
            FixtureRoad(nodes: "BD", name: "East link"),
        ])
        // One receiver: 16 drives, 1000 s apart (the matcher restarts after each gap, its noise estimate stays).
        var fixes: [LocationFix] = []
        var onMain = 0
        for seed: UInt64 in 1...16 {
            let drive = f.drive("AFB", margin: 20) {
                $0.seed = seed
                $0.positionSigmaMeters = 8
                $0.outlierProbability = 0.02
                $0.reportedAccuracyMeters = accuracy
                $0.signalJunctions = nil
                $0.stopProbabilityAtJunctions = 0
                $0.speedSigmaMetersPerSecond = nil
                $0.courseSigmaDegrees = nil
                $0.startTimestamp = 1_700_000_000 + 1000 * Double(seed)
            }
            fixes += drive.fixes
            onMain += drive.fixes.count
        }
        let out = matchAll(f, fixes, configuration: configuration)
        let total = out.count
        let wrong = out.filter { $0.osmWayID != f.way("Main street") }.count
        #expect(total == onMain)
        return (wrong, total)
    }

    /// The receiver reports 3 m (σ_z 4, the floor) for σ 8 m of noise: a fix 6 m north is as near the parallel
    /// street as the main street, and with σ_z 4 a few such fixes take the matcher over there. With the band it
    /// leaves the main street half as often.
    @Test func anOptimisticReceiverLosesLessOfTheRoad() throws {
        let absent = try Self.wrongAnswers(accuracy: nil)
        let optimistic = try Self.wrongAnswers(accuracy: 3)
        var reportOnly = MapMatchingConfiguration()
        reportOnly.residualSigmaAgreementFactor = .infinity
        let trusting = try Self.wrongAnswers(accuracy: 3, configuration: reportOnly)
        #expect(optimistic.total == absent.total && absent.total > 400)
        // Measured: 16 (accuracy 3), 2 (none), 33 (accuracy 3 trusted, as before) wrong of 479: σ_z is raised to
        // the band's floor, σ_e / 1.25 (about 5 m).
        #expect(optimistic.wrong + absent.total / 50 < trusting.wrong,
                "accuracy 3: \(optimistic.wrong), none: \(absent.wrong), trusted: \(trusting.wrong) of \(absent.total)")
        #expect(optimistic.wrong <= absent.wrong + absent.total / 25,
                "accuracy 3: \(optimistic.wrong), none: \(absent.wrong), trusted: \(trusting.wrong) of \(absent.total)")
    }

    @Test func theReportIsTrustedWithinTheBandAroundTheEstimate() {
        let c = MapMatchingConfiguration()
        let at = Coordinate(latitude: 60, longitude: 25)
        func sigma(_ accuracy: Double?, _ residual: Double?) -> Double {
            c.sigmaMeters(for: LocationFix(coordinate: at, timestamp: 0, horizontalAccuracyMeters: accuracy),
                          residualSigma: residual)
        }
        #expect(abs(sigma(3, 8) - 8 / 1.25) < 1e-9)  // optimistic: raised to the band's floor
        #expect(abs(sigma(30, 8) - 8 * 1.25) < 1e-9)  // pessimistic: lowered to its ceiling
        #expect(abs(sigma(10.5, 8) - 7) < 1e-9)  // within the band: as reported
        #expect(abs(sigma(3, nil) - 7 / 1.25) < 1e-9)  // no estimate yet: the band is around the default
        #expect(sigma(nil, 12) == 7)  // no report: the default
        var off = c
        off.residualSigmaAgreementFactor = .infinity
        #expect(off.sigmaMeters(for: LocationFix(coordinate: at, timestamp: 0, horizontalAccuracyMeters: 3),
                                residualSigma: 8) == off.sigmaMeters(for: LocationFix(
                                    coordinate: at, timestamp: 0, horizontalAccuracyMeters: 3)))
    }

    static func estimate() -> ResidualNoiseEstimate {
        let c = MapMatchingConfiguration()
        return ResidualNoiseEstimate(timeConstantSeconds: c.residualSigmaTimeConstantSeconds,
                                     minimumMemoryFixes: c.residualSigmaMemoryFixes,
                                     evidenceFixes: c.residualSigmaEvidenceFixes, medianToSigma: 1.4826)
    }

    @Test func theMedianDistanceAcrossTheRoadGivesSigmaAndOutliersDoNotInflateIt() {
        // 5 % outliers of 50–150 m that the matcher did not coast through. One estimate holds about a minute of
        // 1 s fixes (σ ± 17 %): the mean of 20 drives' estimates.
        var rng = SeededGenerator(seed: 7)
        var sum = 0.0
        for _ in 0..<20 {
            var e = Self.estimate()
            for i in 0..<300 {
                let outlier = Double.random(in: 0..<1, using: &rng) < 0.05
                let d = outlier ? Double.random(in: 50...150, using: &rng) : abs(8 * rng.normal())
                e.record(distanceMeters: d, time: Double(i))
                if i < 9 { #expect(e.sigmaMeters == nil) }  // not before `residualSigmaEvidenceFixes`
            }
            sum += e.sigmaMeters ?? 0
        }
        // Measured: 8.34 (5 % outliers move the median by about 4 %; the mean would say 14).
        #expect(abs(sum / 20 - 8.3) < 0.8, "\(sum / 20)")
    }

    @Test func aChangeOfNoiseIsFollowedWithinAMinuteOrSo() {
        var e = Self.estimate()
        var rng = SeededGenerator(seed: 11)
        for i in 0..<300 { e.record(distanceMeters: abs(4 * rng.normal()), time: Double(i)) }
        #expect(abs((e.sigmaMeters ?? 0) - 4) < 1)
        // An urban canyon: σ 12 m from t = 300 s.
        var crossed: Int?
        for i in 300..<600 {
            e.record(distanceMeters: abs(12 * rng.normal()), time: Double(i))
            if crossed == nil, (e.sigmaMeters ?? 0) > 8 { crossed = i - 300 }
        }
        #expect(abs((e.sigmaMeters ?? 0) - 12) < 2)
        // Measured: past half-way (8 m) after 59 s of 1 s fixes, 10.5 m after 300 s.
        #expect((crossed ?? 999) <= 75, "\(String(describing: crossed))")
    }
}
