import Foundation
import TestKit
import Testing

@testable import Agent

/// The fast reader must agree with JSONSerialization on everything it accepts, and decline the rest.
@Suite struct FlatJSONObjectTests {
    /// How `PayloadObject` sees a value: its kind and its value.
    enum Seen: Equatable {
        case null, string(String), bool(Bool), number(Double), other

        /// Numbers within one part in 10^15: JSONSerialization is not correctly rounded beyond 15 significant digits
        /// (the fast reader is), which no GPS payload comes near.
        func matches(_ other: Seen) -> Bool {
            if case .number(let a) = self, case .number(let b) = other {
                return a == b || abs(a - b) <= 1e-15 * max(abs(a), abs(b))
            }
            return self == other
        }
    }

    static func describe(_ value: Any) -> Seen {
        if value is NSNull { return .null }
        if let text = value as? String { return .string(text) }
        if let number = value as? NSNumber {
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        }
        return .other
    }

    static func describe(_ value: FlatJSONObject.Value, in object: FlatJSONObject) -> Seen {
        switch value {
        case .null: .null
        case .string(let range): .string(object.text(range))
        case .bool(let value): .bool(value)
        case .number(let value): .number(value)
        }
    }

    func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let fast = FlatJSONObject.parse(Array(text.utf8)) else { return }
        let reference = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        #expect(Set(fast.keys) == Set(reference.keys), "\(text)", sourceLocation: sourceLocation)
        #expect(fast.keys.count == reference.keys.count, "\(text)", sourceLocation: sourceLocation)
        for key in fast.keys {
            let expected = reference[key].map(Self.describe)
            let seen = fast.value(key).map { Self.describe($0, in: fast) } ?? .other
            #expect(expected.map { seen.matches($0) } == true, "\(key) in \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func acceptsFlatObjectsWithTheSameValuesAsJSONSerialization() {
        let accepted = [
            #"{"lat":60.1665,"lon":24.9446,"timestamp":"2026-11-30T08:15:02.250Z","speed":0}"#,
            #" { "lat" : -0.5e-3 , "lon":1E2, "ok":true, "no":false, "none":null, "i": 1700000000 } "#,
            #"{"_type":"location","tst":1700000000,"vel":36,"cog":90,"acc":5,"alt":12.5}"#,
            #"{"class":"TPV","mode":3,"time":"2026-11-30T08:15:02Z","eph":4.2,"track":271.3}"#,
            "{}", #"{"title":"Kauppatori — torget"}"#,
        ]
        for text in accepted {
            #expect(FlatJSONObject.parse(Array(text.utf8)) != nil, "\(text)")
            check(text)
        }
    }

    @Test func declinesWhatItDoesNotHandleSoJSONSerializationDecides() {
        let declined = [
            #"{"a":{"b":1}}"#, #"{"a":[1]}"#, #"{"a":"x\"y"}"#, #"{"a":1,"a":2}"#, #"{"a":01}"#, #"{"a":1.}"#,
            #"{"a":.5}"#, #"{"a":1e}"#, #"{"a":+1}"#, #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":1} x"#, #"[1]"#, "",
            #"{"a":tru}"#, #"{"a":123456789012345678901234}"#,
            // More than 15 significant digits, or "-0": JSONSerialization rounds or types them its own way.
            #"{"a":1430427691.5365629}"#, #"{"a":1234567890123456}"#, #"{"a":-0}"#, #"{"a":1e23}"#, #"{"a":1e400}"#, "{\"a\":\"\u{01}\"}", #"{"a":1"#,
        ]
        for text in declined {
            #expect(FlatJSONObject.parse(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(FlatJSONObject.parse([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) == nil, "invalid UTF-8 in a key")
    }

    @Test func randomFlatObjectsAgreeWithJSONSerialization() {
        var random = SeededGenerator(seed: 20261130)
        let keys = ["lat", "lon", "timestamp", "speed", "course", "a", "b", "ä"]
        for _ in 0..<2000 {
            var members: [String] = []
            for key in keys.shuffled(using: &random).prefix(Int.random(in: 0...6, using: &random)) {
                let value: String
                switch Int.random(in: 0..<6, using: &random) {
                case 0: value = String(format: "%.9g", Double.random(in: -1e6...1e6, using: &random))  // ≤ 15 significant digits (see `declines…`)
                case 1: value = String(Int.random(in: -1_000_000_000...4_000_000_000, using: &random))
                case 2: value = "\"" + String(repeating: "x", count: Int.random(in: 0...5, using: &random)) + "é\""
                case 3: value = Bool.random(using: &random) ? "true" : "false"
                case 4: value = "null"
                default: value = "\(Int.random(in: 1...9, using: &random)).\(Int.random(in: 0...999, using: &random))e\(Int.random(in: -5...5, using: &random))"
                }
                members.append("\"\(key)\":" + value)
            }
            let text = "{" + members.joined(separator: Bool.random(using: &random) ? "," : " , ") + "}"
            #expect(FlatJSONObject.parse(Array(text.utf8)) != nil, "\(text)")
            check(text)
        }
    }

    @Test func mutatedPayloadsNeverDisagreeWithJSONSerialization() {
        var random = SeededGenerator(seed: 7)
        let seeds = [
            #"{"lat":60.1665,"lon":24.9446,"timestamp":"2026-11-30T08:15:02.250Z","speed":1.5,"ok":true,"x":null}"#,
            #"{"_type":"location","tst":1700000000,"vel":36,"acc":5}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,-+.eE0123456789tfnul"\ "#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        var accepted = 0
        for round in 0..<5000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                default: if bytes.count > 1 { bytes.remove(at: index) }
                }
            }
            guard FlatJSONObject.parse(bytes) != nil else { continue }
            accepted += 1
            #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any],
                    "accepted what JSONSerialization refuses: \(String(decoding: bytes, as: UTF8.self))")
            check(String(decoding: bytes, as: UTF8.self))
        }
        #expect(accepted > 100, "the mutations should leave many payloads valid")
    }
}
