import Foundation
import Navigation
import TestKit
import Testing

@testable import Agent

/// The in-place reader of flat payloads (`FlatJSONObject`, every raw fix) must not change a single decision: the
/// same fix or the same error code and message as the `JSONSerialization` path it falls back to, on the bad-input
/// corpus, the fuzz corpora, the committed seeds and generated payloads.
@Suite struct InputDecoderDifferentialTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case accepted(AnyHashable)
        case rejected(AgentInputError.Code, String)

        var description: String {
            switch self {
            case .accepted(let value): "accepted \(value)"
            case .rejected(let code, let message): "\(code.rawValue): \(message)"
            }
        }
    }

    static func outcome<T: Hashable>(_ decode: () throws(AgentInputError) -> T) -> Outcome {
        do {
            return .accepted(AnyHashable(try decode()))
        } catch {
            return .rejected(error.code, error.message)
        }
    }

    /// Decodes `payload` with every decoder both ways; returns how many were read by the in-place reader.
    @discardableResult
    static func compare(_ payload: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let limits = InputLimits()
        let pairs: [(String, Outcome, Outcome)] = [
            ("location",
             outcome { () throws(AgentInputError) in 
                let d = try LocationPayload.decode(payload, limits: limits, scanning: true)
                return [AnyHashable(d.fix), AnyHashable(d.format.rawValue)]
             },
             outcome { () throws(AgentInputError) in 
                let d = try LocationPayload.decode(payload, limits: limits, scanning: false)
                return [AnyHashable(d.fix), AnyHashable(d.format.rawValue)]
             }),
            ("command",
             outcome { () throws(AgentInputError) in 
                let d = try CommandPayload.decode(payload, limits: limits, scanning: true)
                return [AnyHashable(d.command), AnyHashable(d.requestID)]
             },
             outcome { () throws(AgentInputError) in 
                let d = try CommandPayload.decode(payload, limits: limits, scanning: false)
                return [AnyHashable(d.command), AnyHashable(d.requestID)]
             }),
            ("destinations",
             outcome { () throws(AgentInputError) in try DestinationsPayload.decode(payload, limits: limits, scanning: true) },
             outcome { () throws(AgentInputError) in try DestinationsPayload.decode(payload, limits: limits, scanning: false) }),
            ("places",
             outcome { () throws(AgentInputError) in try PlacePayload.decode(payload, limits: limits, scanning: true) },
             outcome { () throws(AgentInputError) in try PlacePayload.decode(payload, limits: limits, scanning: false) }),
        ]
        for (decoder, scanned, reference) in pairs {
            #expect(scanned == reference, "\(decoder): \(String(decoding: payload.prefix(300), as: UTF8.self))",
                    sourceLocation: sourceLocation)
        }
        return FlatJSONObject.parse(payload) != nil
    }

    /// The bad inputs of the agent's end-to-end suite and of the decoders' unit tests, and their good neighbours.
    static let handWritten: [String] = [
        #"{"lat":95,"lon":24.9,"timestamp":"2026-11-30T08:15:02.250Z"}"#, "not json",
        #"{"lat":60.1,"lon":24.9,"timestamp":1000000000}"#, #"{"lat":60.1,"lon":24.9,"timestamp":9999999999}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":"2026-11-30T08:15:02Z"}"#, #"{"class":"TPV","mode":1}"#,
        #"{"hello":"world"}"#, #"{"command":"teleport","requestId":"r9"}"#, #"{"command":"simulate","speedMultiplier":-1}"#,
        #"{"assignmentId":"bad","waypoints":[{"lat":"x","lon":1}]}"#, #"{"lat":60.1,"lon":24.9,"timestamp":"yesterday"}"#,
        #"{"lat":60.1,"lon":24.9}"#, #"{"lat":"60.1","lon":24.9,"timestamp":1700000000}"#,
        #"{"lat":true,"lon":24.9,"timestamp":1700000000}"#, #"{"lat":60.1,"lon":200,"timestamp":1700000000}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":-5}"#, #"{"lat":60.1,"lon":24.9,"timestamp":true}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":null}"#, #"{"lat":null,"lon":24.9,"timestamp":1700000000}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":1700000000,"speed":-1,"course":-1,"horizontalAccuracy":-1}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":1700000000,"speed":201}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":1700000000,"course":361}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":1700000000,"altitude":-1001}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":1700000000,"speed":"fast"}"#,
        #"{"_type":"location","lat":60.1,"lon":24.9,"tst":1700000000,"vel":36,"cog":90,"acc":5,"alt":12.5}"#,
        #"{"_type":"waypoint","lat":60.1,"lon":24.9,"tst":1700000000}"#, #"{"_type":5,"lat":60.1,"lon":24.9,"tst":1}"#,
        #"{"_type":"location","lat":60.1,"lon":24.9}"#, #"{"_type":"location","lat":60.1,"lon":24.9,"tst":1,"vel":721}"#,
        #"{"class":"TPV","mode":3,"lat":60.1,"lon":24.9,"time":"2026-11-30T08:15:02.000Z","speed":12,"track":271.3,"altHAE":20,"eph":4.2}"#,
        #"{"class":"TPV","mode":2,"lat":60.1,"lon":24.9,"time":"2026-11-30T08:15:02+02:00","alt":20}"#,
        #"{"class":"TPV","mode":2.5,"lat":60.1,"lon":24.9,"time":"2026-11-30T08:15:02Z"}"#,
        #"{"class":"TPV","lat":60.1,"lon":24.9,"time":"2026-11-30T08:15:02Z"}"#,
        #"{"class":"SKY","mode":3}"#, #"{"class":"TPV","mode":"3"}"#, #"{"class":"TPV","mode":3,"lat":60.1,"lon":24.9}"#,
        #"{"class":"TPV","mode":3,"lat":60.1,"lon":24.9,"time":"2026-11-30 08:15:02,5z"}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":"2026-13-30T08:15:02Z"}"#, #"{"lat":60.1,"lon":24.9,"timestamp":"2026-11-30T08:15:02"}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":"\u0032026-11-30T08:15:02Z"}"#, #"{"lat":60.1,"lat":61,"lon":24.9,"timestamp":1}"#,
        #"{"lat":1e400,"lon":24.9,"timestamp":1700000000}"#, #"{"lat":60.1,"lon":24.9,"timestamp":1700000000,"extra":{"a":1}}"#,
        #"{"lat":60.1,"lon":24.9,"timestamp":"2026-11-30T08:15:02Z","title":"Kauppatori — torget"}"#,
        "{}", "[]", "", "null", #"{"command":"setOptions","timeUpdateThresholdSeconds":5,"speedAlert":{"minorPercent":5}}"#,
        #"{"command":"setOptions","speedAlert":5}"#, #"{"command":"stopGuidance","requestId":7}"#, #"{"command":"simulate","noiseMeters":5,"fixIntervalSeconds":0.5}"#,
        #"{"assignmentId":"a","waypoints":5}"#, #"{"assignmentId":"","waypoints":[]}"#, #"{"assignmentId":"a"}"#,
        #"{"assignmentId":"a","waypoints":[],"travelMode":"flying"}"#, #"{"assignmentId":"a","waypoints":[],"avoidTolls":1}"#,
        #"{"lat":60.1,"lon":24.9,"title":"x"}"#, #"{"lat":60.1,"title":7}"#,
    ]

    @Test func handWrittenAndSeedPayloadsDecodeTheSameBothWays() throws {
        var payloads = Self.handWritten.map { Array($0.utf8) }
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Fuzz/Seeds")
        for target in ["location", "command", "destinations", "places"] {
            let directory = seeds.appendingPathComponent(target)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                payloads.append(Array(try Data(contentsOf: directory.appendingPathComponent(name))))
            }
        }
        let scanned = payloads.filter { Self.compare($0) }.count
        #expect(scanned > 40, "most of these payloads are flat and must take the in-place reader")
    }

    /// The corpora `scripts/fuzz` grew (ignored, so absent on a fresh clone).
    @Test func fuzzCorporaDecodeTheSameBothWays() throws {
        let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".cache/fuzz/corpus")
        var files = 0, scanned = 0
        for target in ["location", "command", "destinations", "places"] {
            let directory = corpora.appendingPathComponent(target)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for name in names {
                guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)) else { continue }
                files += 1
                if Self.compare(Array(data)) { scanned += 1 }
            }
        }
        if files == 0 {
            print("fuzzCorporaDecodeTheSameBothWays: no corpus under .cache/fuzz/corpus (run scripts/fuzz); skipped")
        } else {
            print("fuzzCorporaDecodeTheSameBothWays: \(files) corpus files, \(scanned) read in place")
        }
    }

    /// Random fixes in the three formats, each field valid, out of range, of the wrong type, null or absent, with
    /// random spacing and key order; then byte mutations of them.
    @Test func generatedFixesDecodeTheSameBothWays() {
        var random = SeededGenerator(seed: 2026_11_30)
        func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &random)] }
        func number(_ range: ClosedRange<Double>) -> String {
            // At most 15 significant digits: beyond, JSONSerialization's rounding differs in the last bit.
            let value = Double.random(in: range, using: &random)
            return pick([String(format: "%.7f", value), String(format: "%.1f", value), String(Int(value)),
                         String(format: "%.3e", value)])
        }
        func value(_ valid: () -> String) -> String? {
            switch Int.random(in: 0..<12, using: &random) {
            case 0: return nil
            case 1: return "null"
            case 2: return pick(["true", "false", #""7""#, #""""#, "[1]", #"{"a":1}"#, "-0", "1e999", "01"])
            case 3: return number(-1e6...1e6)
            default: return valid()
            }
        }
        let iso = ["\"2026-11-30T08:15:02.250Z\"", "\"2026-11-30T08:15:02Z\"", "\"2026-11-30T10:15:02+02:00\"",
                   "\"2026-11-30T08:15:02.1234567-0130\"", "\"2026-11-30 08:15:02\"", "\"30.11.2026\"", "\"2026-02-30T25:00:00Z\""]
        var scanned = 0
        var payloads: [[UInt8]] = []
        for round in 0..<3000 {
            var members: [(String, String?)]
            switch round % 3 {
            case 0:
                members = [("lat", value { number(-95...95) }), ("lon", value { number(-185...185) }),
                           ("timestamp", value { pick(iso + [number(1e9...2e9)]) }), ("speed", value { number(-5...250) }),
                           ("course", value { number(-5...400) }), ("altitude", value { number(-1200...2000) }),
                           ("horizontalAccuracy", value { number(-5...200) })]
            case 1:
                members = [("_type", value { pick(["\"location\"", "\"location\"", "\"transition\""]) }),
                           ("lat", value { number(-95...95) }), ("lon", value { number(-185...185) }),
                           ("tst", value { number(1e9...2e9) }), ("vel", value { number(-5...800) }),
                           ("cog", value { number(-5...400) }), ("acc", value { number(-5...200) }),
                           ("alt", value { number(-1200...2000) }), ("tid", value { "\"ab\"" }), ("batt", value { "87" })]
            default:
                members = [("class", value { pick(["\"TPV\"", "\"TPV\"", "\"SKY\""]) }), ("mode", value { pick(["1", "2", "3", "2.5"]) }),
                           ("lat", value { number(-95...95) }), ("lon", value { number(-185...185) }),
                           ("time", value { pick(iso) }), ("speed", value { number(-5...250) }),
                           ("track", value { number(-5...400) }), ("altHAE", value { number(-1200...2000) }),
                           ("alt", value { number(-1200...2000) }), ("eph", value { number(-5...200) })]
            }
            members.shuffle(using: &random)
            let separator = pick([",", ", ", " ,\n"])
            let text = "{" + members.compactMap { key, value in value.map { "\"\(key)\":\($0)" } }.joined(separator: separator) + "}"
            payloads.append(Array(text.utf8))
        }
        // Byte mutations of the generated payloads: truncation, insertion, deletion, escapes, duplicated fields.
        let alphabet = Array(#"{}[]":,-+.eE0123456789tfnul"\ "#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        for index in 0..<3000 {
            var bytes = payloads[index]
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                guard !bytes.isEmpty else { break }
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = pick(alphabet)
                case 1: bytes.insert(pick(alphabet), at: at)
                case 2: bytes.remove(at: at)
                default: bytes = Array(bytes[..<at])
                }
            }
            payloads.append(bytes)
        }
        for payload in payloads where Self.compare(payload) { scanned += 1 }
        #expect(scanned > 1500, "many generated payloads must take the in-place reader")
    }
}
