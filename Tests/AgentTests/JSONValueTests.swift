import Foundation
import TestKit
import Testing

@testable import Agent

@Suite struct JSONValueTests {
    @Test func objectsKeepTheirFieldOrder() {
        let value = JSONValue.object([("status", "ok"), ("a", 1), ("legs", [true, .null])])
        #expect(value.text == #"{"status":"ok","a":1,"legs":[true,null]}"#)
    }

    @Test(arguments: [
        (1372.5, 1, "1372.5"), (228.70, 1, "228.7"), (2.0, 3, "2"), (-0.00001, 2, "0"), (60.1699031, 6, "60.169903"),
        (Double.nan, 2, "null"), (Double.infinity, 2, "null"),
    ])
    func numbersAreRoundedWithoutTrailingZeros(value: Double, digits: Int, expected: String) {
        #expect(JSONValue.number(value, digits: digits).text == expected)
    }

    @Test func textParsesBackAsTheSameJSON() throws {
        let value = JSONValue.object([
            ("name", "Mannerheimintie \"5\""), ("speed", .number(13.456, digits: 2)), ("nothing", .string(nil)),
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "Mannerheimintie \"5\"")
        #expect(object["speed"] as? Double == 13.46)
        #expect(object["nothing"] is NSNull)
    }
}

@Suite struct NumberFormattingTests {
    /// The fast formatter agrees with printf rounding (trailing zeros dropped) over a spread of values.
    @Test func agreesWithPrintf() {
        // Seeded, so a failure reproduces.
        var generator = SeededGenerator(seed: 20_261_130)
        for _ in 0..<5000 {
            let magnitude = pow(10, Double.random(in: -4...7, using: &generator))
            let value = Double.random(in: -1...1, using: &generator) * magnitude
            for digits in [0, 1, 2, 3, 6, 7] {
                var expected = String(format: "%.\(digits)f", value)
                if expected.contains(".") {
                    while expected.hasSuffix("0") { expected.removeLast() }
                    if expected.hasSuffix(".") { expected.removeLast() }
                }
                if expected == "-0" { expected = "0" }
                let got = JSONValue.format(value, digits: digits)
                // printf rounds the exact binary value; ours rounds value × 10^digits: they may differ in the last
                // digit exactly at a tie. Accept only that.
                if got != expected {
                    let difference = abs((Double(got) ?? .nan) - (Double(expected) ?? .nan))
                    // One unit in the last printed digit, plus the rounding error of the subtraction itself in
                    // doubles (values up to 10^7 printed to 10^-7 sit near the limit of double precision).
                    let tolerance = pow(10, -Double(digits)) * 1.0001 + abs(value) * 4 * Double.ulpOfOne
                    #expect(difference <= tolerance, "\(value) digits \(digits): \(got) vs \(expected)")
                }
            }
        }
    }

    @Test(arguments: [(0.05, 1, "0.1"), (-0.04, 1, "0"), (1e20, 2, "100000000000000000000"), (0.000123, 6, "0.000123"),
                      (-12.5, 0, "-13"), (60.1699031, 7, "60.1699031")])
    func edgeCases(value: Double, digits: Int, expected: String) {
        #expect(JSONValue.format(value, digits: digits) == expected)
    }
}
