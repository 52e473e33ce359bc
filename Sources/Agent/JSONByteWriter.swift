import Foundation

/// Compact JSON written straight into UTF-8 bytes: numbers formatted by hand (no Foundation, no `String` per
/// number), strings copied whole unless they need escapes, ISO 8601 timestamps from a per-second cache. The one
/// JSON writer of the agent's outputs: `JSONValue.text` and the per-fix encoders (`OutputEncoder`) both write with
/// it, so a payload is the same bytes whichever path built it.
struct JSONByteWriter {
    var bytes: [UInt8] = []
    /// True after a value inside an object or array: the next key or element needs a comma.
    private var needsComma = false

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// Empties the buffer, keeping its capacity (the writer is reused for every payload).
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    /// `"name":` (after a comma when a field came before). `name` must need no escapes.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"name":` for a key only known at run time (escaped as needed).
    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
        needsComma = true
    }

    mutating func int(_ value: Int64) {
        separate()
        appendDigits(of: value)
        needsComma = true
    }

    /// `value` with up to `digits` decimals, trailing zeros dropped, "-0" written "0"; null when nil or not finite.
    mutating func number(_ value: Double?, digits: Int) {
        separate()
        defer { needsComma = true }
        guard let value, value.isFinite else { return append("null") }
        let digits = max(0, digits)
        // Fast path: scale to an integer, print it, put the point back. Exact enough while the scaled value fits
        // well within 2^53.
        if digits <= 9 {
            let scaled = (abs(value) * Self.powersOfTen[digits]).rounded()
            if scaled < 9e15 {
                var units = Int64(scaled)
                if units == 0 { return bytes.append(UInt8(ascii: "0")) }
                var fractionDigits = digits
                while fractionDigits > 0, units % 10 == 0 {
                    units /= 10
                    fractionDigits -= 1
                }
                if value < 0 { bytes.append(UInt8(ascii: "-")) }
                let start = bytes.count
                appendDigits(of: units)
                if fractionDigits > 0 {
                    let length = bytes.count - start
                    if length <= fractionDigits {
                        // 0.00ddd: zeros between the point and the digits.
                        bytes.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: fractionDigits - length + 1), at: start)
                    }
                    bytes.insert(UInt8(ascii: "."), at: bytes.count - fractionDigits)
                }
                return
            }
        }
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        bytes.append(contentsOf: text.utf8)
    }

    /// `"name":value` with `number(_:digits:)`.
    mutating func number(_ name: StaticString, _ value: Double?, digits: Int) {
        key(name)
        number(value, digits: digits)
    }

    /// A JSON string literal, with the escapes RFC 8259 requires; null when nil.
    mutating func string(_ value: String?) {
        separate()
        defer { needsComma = true }
        guard let value else { return append("null") }
        var plain = true
        for byte in value.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            plain = false
            break
        }
        guard plain else { return bytes.append(contentsOf: JSONText.string(value).utf8) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// An ISO 8601 UTC timestamp with milliseconds as a JSON string, the same text as `ISO8601Timestamp.string`.
    mutating func timestamp(_ date: Date, cache: inout ISO8601SecondCache) {
        separate()
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let totalSeconds = Int64((milliseconds / 1000).rounded(.down))
        let millis = Int64(milliseconds - Double(totalSeconds) * 1000)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: cache.prefix(ofSecond: totalSeconds))
        bytes.append(UInt8(ascii: "0") + UInt8(millis / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(millis / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(millis % 10))
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A whole JSON value.
    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let v): bool(v)
        case .int(let v): int(v)
        case .number(let v, let digits): number(v, digits: digits)
        case .string(let v): string(v)
        case .array(let values):
            beginArray()
            for element in values { self.value(element) }
            endArray()
        case .object(let fields):
            beginObject()
            self.fields(fields)
            endObject()
        }
    }

    /// The members of an object (between its braces).
    mutating func fields(_ fields: [(String, JSONValue)]) {
        for (name, element) in fields {
            key(name)
            value(element)
        }
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The decimal digits of `value` (with its sign), without a `String`.
    private mutating func appendDigits(of value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        // Reversed in place. (`bytes[start...].reverse()` mutated a slice, which copied the whole buffer into a new
        // allocation for every number: about five allocations and copies per `location/snapped`.)
        var low = start
        var high = bytes.count - 1
        while low < high {
            bytes.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    private static let powersOfTen: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]
}

/// The text of the last second written (`YYYY-MM-DDTHH:MM:SS.`): the outputs of one fix share it, so only the
/// milliseconds are formatted per timestamp; a new second is formatted into the same bytes, without a `String`.
struct ISO8601SecondCache {
    private var second: Int64 = .min
    private var text: [UInt8] = []

    mutating func prefix(ofSecond totalSeconds: Int64) -> [UInt8] {
        guard totalSeconds != second else { return text }
        // The same computation as `ISO8601Timestamp.string` (which this must match byte for byte).
        var days = totalSeconds / 86_400
        var secondsOfDay = totalSeconds % 86_400
        if secondsOfDay < 0 { secondsOfDay += 86_400; days -= 1 }
        let (year, month, day) = ISO8601Timestamp.civilDate(daysSinceEpoch: days)
        text.removeAll(keepingCapacity: true)
        func append(_ value: Int64, width: Int, then separator: Character) {
            let digits = String(value).utf8  // at most 4 digits but for years past 9999: no allocation
            if digits.count < width { text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count)) }
            text.append(contentsOf: digits)
            text.append(UInt8(ascii: separator.unicodeScalars.first!))
        }
        append(year, width: 4, then: "-")
        append(month, width: 2, then: "-")
        append(day, width: 2, then: "T")
        append(secondsOfDay / 3600, width: 2, then: ":")
        append(secondsOfDay % 3600 / 60, width: 2, then: ":")
        append(secondsOfDay % 60, width: 2, then: ".")
        second = totalSeconds
        return text
    }
}
