import Foundation
import Geo
import Testing

@testable import MapMatching

/// A fix reporting a worse accuracy than the receiver usually does widens σ_z's band (`accuracyRiseWidensBand`);
/// the drive this is for is `KouvolaCanyonEpisodeTests` (NavigationTests), on the real Kouvola extract.
@Suite struct AccuracyRiseTests {
    private let at = Coordinate(latitude: 60, longitude: 25)

    private func sigma(_ accuracy: Double, residual: Double, typical: Double?,
                       _ c: MapMatchingConfiguration = MapMatchingConfiguration()) -> Double {
        c.sigmaMeters(for: LocationFix(coordinate: at, timestamp: 0, horizontalAccuracyMeters: accuracy),
                      residualSigma: residual, typicalAccuracy: typical)
    }

    @Test func aReportAboveTheTypicalOneWidensTheBandsUpperEdgeByTheRatio() {
        // σ_e 5 m: the band is 4-6.25 m. 15 m reported (σ 10) where 7.5 m is typical: the edge doubles to 12.5 and
        // the report stands; where 12 m is typical, the edge rises by a quarter, to 7.8125, and holds it.
        #expect(abs(sigma(15, residual: 5, typical: 7.5) - 10) < 1e-9)
        #expect(abs(sigma(15, residual: 5, typical: 12) - 7.8125) < 1e-9)
        // Without a typical figure, or with the switch off, the band holds as before.
        #expect(abs(sigma(15, residual: 5, typical: nil) - 6.25) < 1e-9)
        var off = MapMatchingConfiguration()
        off.accuracyRiseWidensBand = false
        #expect(abs(sigma(15, residual: 5, typical: 7.5, off) - 6.25) < 1e-9)
    }

    /// A receiver that reports the same figure on every fix (a logger, a simulator) keeps the band: 20 m reported
    /// for σ 8 m of noise is still held to 1.25 σ_e.
    @Test func aSteadyReportKeepsTheBand() {
        #expect(abs(sigma(20, residual: 8, typical: 20) - 10) < 1e-9)
        #expect(abs(sigma(3, residual: 8, typical: 3) - 6.4) < 1e-9)
    }

    @Test func theTypicalAccuracyIsTheRecentGeometricMeanAndAnEpisodeMovesItLittle() {
        var typical = TypicalAccuracy(timeConstantSeconds: 120, minimumMemoryFixes: 30, evidenceFixes: 10)
        var t = 0.0
        for i in 0..<9 {
            typical.record(accuracyMeters: i.isMultiple(of: 2) ? 4 : 9, time: t)
            t += 1
        }
        #expect(typical.meters == nil)  // fewer than 10 reports
        for i in 0..<291 {
            typical.record(accuracyMeters: i.isMultiple(of: 2) ? 9 : 4, time: t)
            t += 1
        }
        let before = try! #require(typical.meters)
        #expect(abs(before - 6) < 0.2, "\(before)")  // √(4 × 9)
        // 30 s of 18 m reports, 1 s apart: the typical figure rises by about a fifth, not to 18.
        for _ in 0..<30 {
            typical.record(accuracyMeters: 18, time: t)
            t += 1
        }
        let after = try! #require(typical.meters)
        #expect(after > before * 1.2 && after < before * 1.35, "\(before) → \(after)")
    }
}
