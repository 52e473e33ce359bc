import Foundation
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
