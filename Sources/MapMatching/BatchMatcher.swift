import Foundation
import Geo
import RoadGraph
import Routing

/// Matches a whole trace with the online matcher (same lag, same answers as live) and returns one snapped location
/// per fix, in input order. This is what `edgenav match` runs between its JSON input and output.
public struct BatchMatcher {
    public let index: RoadGeometryIndex
    public let mode: TravelMode
    public let configuration: MapMatchingConfiguration

    public init(index: RoadGeometryIndex, mode: TravelMode = .driving,
                configuration: MapMatchingConfiguration = MapMatchingConfiguration()) {
        self.index = index
        self.mode = mode
        self.configuration = configuration
    }

    /// One output per fix, in order. `route`, when given, makes the matcher route-aware. `provisional`: each fix's
    /// answer as it came at once (`MatchUpdate.provisional`, lag 0: what the navigator and `location/snapped` use
    /// live) instead of its final answer after the lag.
    public func match(_ fixes: [LocationFix], route: Route? = nil, provisional: Bool = false) -> [SnappedLocation] {
        let matcher = MapMatcher(index: index, mode: mode, configuration: configuration)
        matcher.setRoute(route)
        var out: [SnappedLocation] = []
        out.reserveCapacity(fixes.count)
        for fix in fixes {
            let update = matcher.update(fix)
            if provisional { out.append(update.provisional) } else { out.append(contentsOf: update.finalized) }
        }
        if !provisional { out.append(contentsOf: matcher.finish()) }
        return out
    }
}

/// `edgenav match`'s line protocol as a state machine: push input lines one at a time and get back the output
/// lines that are decided, in input order, so a trace of any length streams through in bounded memory and each
/// line comes out as soon as its fix's answer is final (the matcher's lag: 20 s of fixes), or at once with
/// `provisional`. One output line per non-blank input line: the snapped location (`MatchingJSON.encode`), or for a
/// line that is not a fix `{"error":{"code":…,"message":…},"line":N}` (N counts every input line from 1, blank ones
/// included), and the trace continues around it.
public final class JSONLinesMatcher {
    private let matcher: MapMatcher
    private let provisional: Bool
    /// Output lines not yet handed out, oldest first from `head`; nil: a fix still waiting for its final answer.
    private var slots: [String?] = []
    private var head = 0
    /// Where to look for the next slot waiting for an answer (answers come in input order).
    private var nextAnswer = 0
    private var lineNumber = 0

    public init(index: RoadGeometryIndex, mode: TravelMode = .driving,
                configuration: MapMatchingConfiguration = MapMatchingConfiguration(), route: Route? = nil,
                provisional: Bool = false) {
        matcher = MapMatcher(index: index, mode: mode, configuration: configuration)
        matcher.setRoute(route)
        self.provisional = provisional
    }

    /// Takes one input line (without its line break) and returns the output lines ready now, in order.
    public func push(_ line: String) -> [String] {
        lineNumber += 1
        guard !line.allSatisfy(\.isWhitespace) else { return [] }
        let fix: LocationFix
        do {
            fix = try MatchingJSON.decodeFix(line)
        } catch {
            let failure = error as? MatchingJSONError
                ?? MatchingJSONError(code: "match.invalid_json", message: "not a fix object: \(line.prefix(80))")
            slots.append("{\"error\":{\"code\":\(MatchingJSON.string(failure.code)),\"message\":"
                         + "\(MatchingJSON.string(failure.message))},\"line\":\(lineNumber)}")
            return takeReady()
        }
        let update = matcher.update(fix)
        slots.append(nil)
        answer(provisional ? [update.provisional] : update.finalized)
        return takeReady()
    }

    /// At the end of the input: the remaining lines (the last fixes' answers, decided now without later fixes).
    public func finish() -> [String] {
        if !provisional { answer(matcher.finish()) }
        return takeReady()
    }

    private func answer(_ locations: [SnappedLocation]) {
        for location in locations {
            while nextAnswer < slots.count, slots[nextAnswer] != nil { nextAnswer += 1 }
            precondition(nextAnswer < slots.count, "the matcher answered a fix it was not given")
            slots[nextAnswer] = MatchingJSON.encode(location)
            nextAnswer += 1
        }
    }

    private func takeReady() -> [String] {
        var ready: [String] = []
        while head < slots.count, let line = slots[head] {
            ready.append(line)
            head += 1
        }
        if head > 1024, head * 2 > slots.count {
            slots.removeFirst(head)
            nextAnswer -= head
            head = 0
        }
        return ready
    }
}

/// Why a JSON line could not be read.
public struct MatchingJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable code: "match.invalid_json", "match.missing_field" or "match.invalid_value".
    public let code: String
    public let message: String
    public var description: String { "\(code): \(message)" }
}

/// The JSON-lines codec of `edgenav match`.
///
/// Input: `{"lat": 60.17, "lon": 24.94, "timestamp": 1700000000.5, "speed": 12.1, "course": 87,
/// "horizontalAccuracy": 5, "altitude": 12}` — `timestamp` in seconds since 1970 (milliseconds are recognised
/// by size, also when written as a string) or an ISO-8601 string (`T` or a space before the time; no zone = UTC);
/// `speed` m/s, `course` degrees from north, `horizontalAccuracy` and `altitude` metres are optional (negative
/// speed/course/accuracy mean unknown, as in `CLLocation`).
///
/// Output: `lat`, `lon`, `timestamp` (seconds), `osmWayId`, `roadName`, `course` (-1 unknown), `speed` (m/s,
/// -1 unknown), `speedLimitKph` (null unknown), `matched`, plus `altitude` (null unknown), `horizontalAccuracy`
/// (-1 unknown), `source` ("snapped", "deadReckoned", "unmatched"), `onRoute`, `routeDistanceMeters` (null off
/// route).
public enum MatchingJSON {
    private struct RawFix: Decodable {
        enum Time: Decodable {
            case seconds(Double)
            case text(String)
            init(from decoder: Decoder) throws {
                let c = try decoder.singleValueContainer()
                if let v = try? c.decode(Double.self) { self = .seconds(v) } else { self = .text(try c.decode(String.self)) }
            }
        }
        var lat: Double?
        var lon: Double?
        var timestamp: Time?
        var speed: Double?
        var course: Double?
        var horizontalAccuracy: Double?
        var altitude: Double?
    }

    public static func decodeFix(_ line: String) throws -> LocationFix {
        let raw: RawFix
        do {
            raw = try JSONDecoder().decode(RawFix.self, from: Data(line.utf8))
        } catch DecodingError.typeMismatch(_, let context) {
            throw MatchingJSONError(code: "match.invalid_value",
                                    message: "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type")
        } catch {
            throw MatchingJSONError(code: "match.invalid_json", message: "not a fix object: \(line.prefix(80))")
        }
        guard let lat = raw.lat else { throw MatchingJSONError(code: "match.missing_field", message: "lat") }
        guard let lon = raw.lon else { throw MatchingJSONError(code: "match.missing_field", message: "lon") }
        let coordinate = Coordinate(latitude: lat, longitude: lon)
        guard coordinate.isValid else {
            throw MatchingJSONError(code: "match.invalid_value", message: "coordinate \(lat), \(lon) out of range")
        }
        let timestamp: Double
        switch raw.timestamp {
        case .seconds(let t)? where t.isFinite:
            timestamp = FixTimestamp.seconds(epoch: t)
        case .text(let text)?:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let number = Double(trimmed), number.isFinite {
                // Epoch seconds (or milliseconds) written as a string, as some exporters do.
                timestamp = FixTimestamp.seconds(epoch: number)
            } else if let date = FixTimestamp.date(iso8601: trimmed) {
                timestamp = date.timeIntervalSince1970
            } else {
                throw MatchingJSONError(code: "match.invalid_value", message: "timestamp \(text) is neither ISO-8601 "
                                        + "(2026-11-30T08:00:00.5Z) nor seconds since 1970")
            }
        default:
            throw MatchingJSONError(code: "match.missing_field", message: "timestamp")
        }
        return LocationFix(coordinate: coordinate, timestamp: timestamp, altitudeMeters: raw.altitude,
                           speedMetersPerSecond: raw.speed, courseDegrees: raw.course,
                           horizontalAccuracyMeters: raw.horizontalAccuracy)
    }

    /// One JSON object on one line (no trailing newline). Keys in a fixed order.
    public static func encode(_ s: SnappedLocation) -> String {
        var out = "{"
        out += "\"lat\":\(number(s.coordinate.latitude, digits: 7)),\"lon\":\(number(s.coordinate.longitude, digits: 7))"
        out += ",\"timestamp\":\(number(s.timestamp, digits: 3))"
        out += ",\"osmWayId\":\(s.osmWayID),\"roadName\":\(string(s.roadName))"
        out += ",\"course\":\(s.courseDegrees < 0 ? "-1" : number(s.courseDegrees, digits: 1))"
        out += ",\"speed\":\(s.speedMetersPerSecond < 0 ? "-1" : number(s.speedMetersPerSecond, digits: 2))"
        out += ",\"speedLimitKph\":\(s.speedLimitKph.map { number($0, digits: 1) } ?? "null")"
        out += ",\"matched\":\(s.matched)"
        out += ",\"altitude\":\(s.altitudeMeters.isFinite ? number(s.altitudeMeters, digits: 1) : "null")"
        out += ",\"horizontalAccuracy\":\(s.horizontalAccuracyMeters < 0 ? "-1" : number(s.horizontalAccuracyMeters, digits: 1))"
        out += ",\"source\":\"\(s.source.rawValue)\",\"onRoute\":\(s.isOnRoute)"
        out += ",\"routeDistanceMeters\":\(s.routeDistanceMeters.map { number($0, digits: 1) } ?? "null")"
        out += ",\"closedRoad\":\(s.isOnClosedRoad)"
        return out + "}"
    }

    /// A fix as an input line (for traces written by the simulator).
    public static func encode(_ f: LocationFix) -> String {
        var out = "{\"lat\":\(number(f.coordinate.latitude, digits: 7)),\"lon\":\(number(f.coordinate.longitude, digits: 7))"
        out += ",\"timestamp\":\(number(f.timestamp, digits: 3))"
        if let v = f.speedMetersPerSecond { out += ",\"speed\":\(number(v, digits: 2))" }
        if let v = f.courseDegrees { out += ",\"course\":\(number(v, digits: 1))" }
        if let v = f.horizontalAccuracyMeters { out += ",\"horizontalAccuracy\":\(number(v, digits: 1))" }
        if let v = f.altitudeMeters { out += ",\"altitude\":\(number(v, digits: 1))" }
        return out + "}"
    }

    static func number(_ v: Double, digits: Int) -> String {
        guard v.isFinite else { return "null" }
        var s = String(format: "%.\(digits)f", v)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }

    static func string(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}
