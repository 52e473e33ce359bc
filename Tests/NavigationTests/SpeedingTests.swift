import Foundation
import Geo
import Navigation
import RoadGraph
import Testing

/// A 2 km road with a 50 km/h limit (way 1) continuing into one without a known limit (way 2).
private func road() throws -> DrawnRoads {
    try DrawnRoads(
        "A-------------------B---C", gridMeters: 100, ways: [.init("AB", limitKph: 50), .init("BC", limitKph: nil)])
}

/// One fix per second at the given speeds (km/h) from A eastwards; positions follow the speeds.
private func fixes(_ roads: DrawnRoads, kph: [Double], from start: Date = t0, startMeters: Double = 50) -> [RawFix] {
    var along = startMeters
    return kph.enumerated().map { i, v in
        defer { along += v / 3.6 }
        return RawFix(
            coordinate: PolylineGeometry.point(along: roads.path("ABC"), offsetMeters: along)!,
            timestamp: start.addingTimeInterval(Double(i)), horizontalAccuracyMeters: 5, courseDegrees: 90,
            speedMetersPerSecond: v / 3.6)
    }
}

private func speeding(_ nav: NavigatorCore, _ fixes: [RawFix]) -> [String] {
    transcript(nav.process(fixes)).filter { $0.hasPrefix("speeding(") }
}

@Suite struct SpeedingTests {
    @Test func minorThenBackWithHysteresis() throws {
        let roads = try road()
        let nav = roads.navigator()
        // minor 10 %, major 20 %, hysteresis 3 % of the limit.
        #expect(
            speeding(nav, fixes(roads, kph: [50, 54, 56, 54, 52.5, 50])) == [
                "speeding(0% notSpeeding)", "speeding(8% notSpeeding)", "speeding(12% minor)",
                "speeding(8% minor)",  // 8 % ≥ 10 − 3: still minor
                "speeding(5% notSpeeding)", "speeding(0% notSpeeding)",
            ])
    }

    @Test func noiseAroundTheLimitDoesNotFlap() throws {
        let roads = try road()
        let nav = roads.navigator()
        let kph = (0..<30).map { 55 + ($0 % 2 == 0 ? -0.4 : 0.4) }  // 9.2 % / 10.8 %
        let lines = speeding(nav, fixes(roads, kph: kph))
        #expect(lines == ["speeding(9% notSpeeding)", "speeding(11% minor)"])
    }

    @Test func majorAndTheUpgradeDuration() throws {
        let roads = try road()
        let nav = roads.navigator()
        nav.speedAlertOptions = SpeedAlertOptions(
            minorThreshold: 0.1, majorThreshold: 0.2, severityUpgradeDurationSeconds: 5)
        // Minor from t = 0; more than 5 s above minor (t = 6) counts as major.
        let lines = speeding(nav, fixes(roads, kph: Array(repeating: 56, count: 8) + [61, 45]))
        #expect(
            lines == ["speeding(12% minor)", "speeding(12% major)", "speeding(22% major)", "speeding(0% notSpeeding)"])
        let events = nav.process(fixes(roads, kph: [60], from: t0.addingTimeInterval(20), startMeters: 500)).speedings
        #expect(
            events.first?.osmWayID == 1 && events.first?.speedLimitKph == 50
                && events.first.map { abs($0.speedKph! - 60) < 1e-9 } == true)
    }

    @Test func onlyOneThresholdSet() throws {
        let roads = try road()
        let nav = roads.navigator()
        nav.speedAlertOptions = SpeedAlertOptions(minorThreshold: nil, majorThreshold: 0.2)
        #expect(speeding(nav, fixes(roads, kph: [57, 61])) == ["speeding(14% notSpeeding)", "speeding(22% major)"])
        let minorOnly = roads.navigator()
        minorOnly.speedAlertOptions = SpeedAlertOptions(minorThreshold: 0.1, majorThreshold: nil)
        #expect(speeding(minorOnly, fixes(roads, kph: [57, 80])) == ["speeding(14% minor)", "speeding(60% minor)"])
    }

    @Test func thresholdOrderingRules() {
        var options = SpeedAlertOptions(minorThreshold: 0.3, majorThreshold: 0.2)
        #expect(options.majorThreshold == 0.3)
        options.majorThreshold = 0.1
        #expect(options.minorThreshold == 0.1 && options.majorThreshold == 0.1)
        options.minorThreshold = 0.25
        #expect(options.majorThreshold == 0.25)
    }

    @Test func unknownLimitOrSpeed() throws {
        let roads = try road()
        let nav = roads.navigator()
        // On way 2 (no limit) the percentage is -1; without a speed and a previous fix, too.
        let onWay2 = fixes(roads, kph: [60, 60], startMeters: 2150)
        var noSpeed = RawFix(coordinate: roads["A"], timestamp: t0.addingTimeInterval(10))
        noSpeed.speedMetersPerSecond = nil
        let lines = speeding(nav, onWay2) + speeding(nav, fixes(roads, kph: [40], from: t0.addingTimeInterval(5)))
        #expect(lines == ["speeding(-1% unknown)", "speeding(0% notSpeeding)"])
        let fresh = roads.navigator()
        #expect(speeding(fresh, [noSpeed]) == ["speeding(-1% unknown)"])
    }
}
