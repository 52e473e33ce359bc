import Foundation
import Geo
import Navigation
import RoadGraph
import Testing

private func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> Date {
    var c = DateComponents()
    (c.year, c.month, c.day, c.hour, c.minute, c.second) = (y, mo, d, h, mi, s)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: c)!
}

@Suite struct LightingTests {
    /// Reference elevations from astral 3.2 (PyPI), refraction included.
    @Test func solarElevationMatchesAReference() {
        let cases: [(Coordinate, Date, Double)] = [
            (Coordinate(latitude: 51.4769, longitude: 0), utc(2024, 3, 20, 12, 7), 38.692),
            (Coordinate(latitude: 69.65, longitude: 18.96), utc(2026, 6, 21, 22, 30), 3.355),
            (Coordinate(latitude: 78.22, longitude: 15.65), utc(2026, 12, 21, 11, 0), -11.631),
            (Coordinate(latitude: 69.65, longitude: 18.96), utc(2026, 12, 21, 11, 0), -3.037),
            (Coordinate(latitude: 60.17, longitude: 24.94), utc(2026, 11, 30, 10, 0), 8.243),
        ]
        for (place, date, expected) in cases {
            let e = SolarPosition.elevationDegrees(at: place, date: date)
            #expect(abs(e - expected) < 0.05, "\(place) \(date): \(e) vs \(expected)")
        }
    }

    private func lighting(at place: Coordinate, from start: Date, every step: Double, count: Int) throws
        -> [LightingEvent]
    {
        let roads = try DrawnRoads("A---B", gridMeters: 50, origin: place, ways: [.init("AB")])
        let nav = roads.navigator()
        return (0..<count).flatMap { i in
            nav.process(RawFix(coordinate: roads["A"], timestamp: start.addingTimeInterval(Double(i) * step)))
        }.lightings
    }

    @Test func lowLightFromCivilDusk() throws {
        // Helsinki, 2026-11-30: civil dusk 14:17:52 UTC (astral, sun 6° below the horizon).
        let events = try lighting(
            at: Coordinate(latitude: 60.17, longitude: 24.94), from: utc(2026, 11, 30, 14, 0), every: 30,
            count: 60)
        #expect(events.map(\.mode) == [.normal, .lowLight])
        let dusk = utc(2026, 11, 30, 14, 17, 52)
        let switched = try #require(events.last?.timestamp)
        #expect(switched >= dusk && switched.timeIntervalSince(dusk) < 180, "switched at \(switched)")
        #expect(events.last!.sunElevationDegrees < -6)
    }

    @Test func normalAgainFromCivilDawn() throws {
        // Helsinki, 2026-11-30: civil dawn 05:59:23 UTC.
        let events = try lighting(
            at: Coordinate(latitude: 60.17, longitude: 24.94), from: utc(2026, 11, 30, 5, 45), every: 30,
            count: 60)
        #expect(events.map(\.mode) == [.lowLight, .normal])
        let dawn = utc(2026, 11, 30, 5, 59, 23)
        #expect(events.last!.timestamp >= dawn && events.last!.timestamp.timeIntervalSince(dawn) < 180)
    }

    @Test func polarDayStaysNormal() throws {
        // Tromsø around midsummer: a whole day every 10 minutes.
        let events = try lighting(
            at: Coordinate(latitude: 69.65, longitude: 18.96), from: utc(2026, 6, 21, 0, 0), every: 600,
            count: 144)
        #expect(events.map(\.mode) == [.normal])
    }

    @Test func polarNightStaysLowLight() throws {
        // Longyearbyen at the winter solstice: the sun stays more than 11° below the horizon.
        let events = try lighting(
            at: Coordinate(latitude: 78.22, longitude: 15.65), from: utc(2026, 12, 21, 0, 0), every: 600,
            count: 144)
        #expect(events.map(\.mode) == [.lowLight])
    }

    @Test func polarNightEdgeHasNoonTwilight() throws {
        // Tromsø at the winter solstice: the sun stays below the horizon but rises above -6° around noon.
        let events = try lighting(
            at: Coordinate(latitude: 69.65, longitude: 18.96), from: utc(2026, 12, 21, 0, 0), every: 600,
            count: 144)
        #expect(events.map(\.mode) == [.lowLight, .normal, .lowLight])
    }
}
