import Foundation
import Geo
import TestKit
import Testing

@testable import Agent
@testable import Navigation

/// The session-3 encoder, kept here as the reference: `JSONValue` written into a `String`, numbers by
/// `String(Int64)` and string surgery. Every payload the byte writer produces must be these bytes exactly.
private enum ReferenceEncoder {
    static func text(_ value: JSONValue) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .number(let value, let digits): out += format(value, digits: digits)
        case .string(let value): out += JSONText.string(value)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                write(value, to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                out += JSONText.string(key) + ":"
                write(value, to: &out)
            }
            out += "}"
        }
    }

    static func format(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "null" }
        let digits = max(0, digits)
        if digits <= 9 {
            let scale = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9][digits]
            let scaled = (abs(value) * scale).rounded()
            if scaled < 9e15 {
                var units = Int64(scaled)
                if units == 0 { return "0" }
                var fractionDigits = digits
                while fractionDigits > 0, units % 10 == 0 {
                    units /= 10
                    fractionDigits -= 1
                }
                var text = String(units)
                if fractionDigits > 0 {
                    if text.count <= fractionDigits { text = String(repeating: "0", count: fractionDigits - text.count + 1) + text }
                    text.insert(".", at: text.index(text.endIndex, offsetBy: -fractionDigits))
                }
                return value < 0 ? "-" + text : text
            }
        }
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        return text
    }

    /// The envelope as session 3 built it.
    static func message(vehicleID: String, seq: UInt64, timestamp: Date, _ body: [(String, JSONValue)]) -> String {
        text(.object([("vehicleId", .string(vehicleID)), ("seq", .int(Int64(seq))),
                      ("timestamp", .string(ISO8601Timestamp.string(from: timestamp)))]
                     + body + [("schemaVersion", .int(OutputPayloads.schemaVersion))]))
    }
}

@Suite struct OutputEncoderTests {
    struct Values {
        var random: SeededGenerator

        mutating func double() -> Double {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: return [0, -0.0, 0.05, -0.04, 0.5, -0.5, 1e20, -1e16, .nan, .infinity, 9.99999995, 0.000123].randomElement(using: &random)!
            case 1: return Double(Int.random(in: -1000...1000, using: &random)) / 8
            default:
                let magnitude = pow(10, Double.random(in: -6...9, using: &random))
                return Double.random(in: -1...1, using: &random) * magnitude
            }
        }

        mutating func optionalDouble() -> Double? { Int.random(in: 0..<5, using: &random) == 0 ? nil : double() }

        mutating func string() -> String {
            ["", "van-7", "Mannerheimintie", "Kauppatori — torget", "quote \" and \\ slash", "tab\tnew\nline\u{01}",
             "ä😀", String(repeating: "x", count: 40)].randomElement(using: &random)!
        }

        mutating func date() -> Date {
            // Whole seconds, milliseconds at the edges, and repeats of the same second (the cache's hits).
            let base = [1_764_490_502.0, 0, 86_399.9995, 1_700_000_000.999, -1.5, 4_102_444_800].randomElement(using: &random)!
            return Date(timeIntervalSince1970: base + Double(Int.random(in: 0...3, using: &random)) * 0.3337)
        }

        mutating func json(depth: Int = 0) -> JSONValue {
            switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0...63, using: &random))
            case 3: return .number(double(), digits: Int.random(in: -1...12, using: &random))
            case 4: return .string(string())
            case 5: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in json(depth: depth + 1) })
            default:
                return .object((0..<Int.random(in: 0...4, using: &random)).map { _ in (string(), json(depth: depth + 1)) })
            }
        }
    }

    @Test func jsonValuesAreTheBytesOfTheReferenceEncoder() {
        var values = Values(random: SeededGenerator(seed: 61))
        for _ in 0..<20_000 {
            let value = values.json()
            #expect(value.text == ReferenceEncoder.text(value))
        }
    }

    @Test func numbersAreTheBytesOfTheReferenceEncoder() {
        var values = Values(random: SeededGenerator(seed: 62))
        for _ in 0..<50_000 {
            let value = values.double(), digits = Int.random(in: -1...12, using: &values.random)
            #expect(JSONValue.format(value, digits: digits) == ReferenceEncoder.format(value, digits: digits),
                    "\(value) digits \(digits)")
        }
    }

    @Test func perFixOutputsAreTheBytesOfTheReferenceEncoder() {
        var values = Values(random: SeededGenerator(seed: 63))
        for vehicleID in ["van-1", "quote\"d", "ä"] {
            var envelope = OutputEnvelope(vehicleID: vehicleID, lastSeq: 41)
            for _ in 0..<3000 {
                let seq = envelope.seq + 1
                switch Int.random(in: 0..<4, using: &values.random) {
                case 0:
                    let e = SnappedLocationEvent(
                        timestamp: values.date(), coordinate: Coordinate(latitude: values.double(), longitude: values.double()),
                        altitudeMeters: values.optionalDouble(), courseDegrees: values.optionalDouble(),
                        speedMetersPerSecond: values.optionalDouble(), horizontalAccuracyMeters: values.optionalDouble(),
                        osmWayID: Bool.random(using: &values.random) ? Int64.random(in: 1...9_000_000_000, using: &values.random) : nil,
                        roadName: Bool.random(using: &values.random) ? values.string() : nil,
                        isOnRoute: Bool.random(using: &values.random))
                    #expect(envelope.snappedLocation(e).payload
                            == ReferenceEncoder.message(vehicleID: vehicleID, seq: seq, timestamp: e.timestamp,
                                                        OutputPayloads.snappedLocation(e)))
                case 1:
                    // Finite seconds only: an ETA beyond the year 292 billion traps in any timestamp formatter.
                    let time = values.date(), meters = values.double()
                    let seconds = Double.random(in: 0...1e7, using: &values.random).rounded() / [1, 10, 1000][Int(seq % 3)]
                    let index = Int.random(in: 0...30, using: &values.random)
                    let message = envelope.eta(remainingSeconds: seconds, remainingMeters: meters, timestamp: time,
                                               waypointIndex: index)
                    #expect(message.topic == .eta)
                    #expect(message.payload == ReferenceEncoder.message(
                        vehicleID: vehicleID, seq: seq, timestamp: time,
                        OutputPayloads.eta(remainingSeconds: seconds, remainingMeters: meters, timestamp: time,
                                           waypointIndex: index)))
                case 2:
                    let e = SpeedingEvent(
                        timestamp: values.date(), percentageAboveLimit: values.double(),
                        severity: [.unknown, .notSpeeding, .minor, .major].randomElement(using: &values.random)!,
                        speedKph: values.optionalDouble(), speedLimitKph: values.optionalDouble(),
                        osmWayID: Bool.random(using: &values.random) ? 42 : nil)
                    #expect(envelope.speeding(e).payload
                            == ReferenceEncoder.message(vehicleID: vehicleID, seq: seq, timestamp: e.timestamp,
                                                        OutputPayloads.speeding(e)))
                default:
                    // Everything else goes through `wrap` with a JSONValue body.
                    let time = values.date()
                    let body: [(String, JSONValue)] = [("a", values.json()), ("b", values.json())]
                    #expect(envelope.wrap(.state, timestamp: time, body).payload
                            == ReferenceEncoder.message(vehicleID: vehicleID, seq: seq, timestamp: time, body))
                }
                #expect(envelope.seq == seq)
            }
        }
    }
}
