import Foundation

/// A typed reader for the common shape of an input payload: one JSON object whose values are plain strings
/// (no escapes), numbers, `true`, `false` or `null` — every raw fix. It keeps the fields in place, as byte ranges
/// of the payload and parsed numbers, with no dictionary, no boxing and no `String` until a field is asked for.
/// It returns nil for anything else (nesting, escapes, duplicate keys, long numbers, invalid UTF-8, malformed text),
/// and `PayloadObject` then parses with `JSONSerialization`, so errors and unusual payloads behave exactly as before.
/// What it accepts is valid JSON that `JSONSerialization` reads to the same values: strings as `String`, numbers as
/// `NSNumber` (double), booleans as `NSNumber(value: Bool)`, null as `NSNull`. (Numbers are correctly rounded;
/// `JSONSerialization` may differ in the last bit beyond 15 significant digits, far below any coordinate's precision.)
///
/// Why: building a `[String: Any]` of boxed values (and `JSONSerialization` before that) was a fifth of the agent's
/// own time per fix.
struct FlatJSONObject {
    enum Value: Equatable {
        /// The string's UTF-8 bytes (validated, no escapes) at this range of `bytes`.
        case string(Range<Int>)
        case number(Double)
        case bool(Bool)
        case null
    }

    /// The payload the ranges point into.
    let bytes: [UInt8]
    /// Key ranges and values in the order written; keys are distinct.
    private(set) var fields: [(key: Range<Int>, value: Value)]

    /// The value of `key`, nil when absent.
    func value(_ key: String) -> Value? {
        var key = key
        return key.withUTF8 { k -> Value? in
            bytes.withUnsafeBufferPointer { b -> Value? in
                for field in fields where field.key.count == k.count {
                    if k.count == 0 || memcmp(b.baseAddress! + field.key.lowerBound, k.baseAddress!, k.count) == 0 {
                        return field.value
                    }
                }
                return nil
            }
        }
    }

    /// The text of a string value.
    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// Runs `body` over the bytes of a string value.
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The keys, in the order written (for tests).
    var keys: [String] { fields.map { text($0.key) } }

    static func parse(_ bytes: [UInt8]) -> FlatJSONObject? {
        guard let fields = bytes.withUnsafeBufferPointer({ scan($0) }) else { return nil }
        return FlatJSONObject(bytes: bytes, fields: fields)
    }

    private static func scan(_ b: UnsafeBufferPointer<UInt8>) -> [(key: Range<Int>, value: Value)]? {
        var i = 0
        let n = b.count
        func skipSpace() {
            while i < n, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }
        /// A string without escapes or control characters, at `i` (on its opening quote): its content's range.
        func string() -> Range<Int>? {
            guard i < n, b[i] == 0x22 else { return nil }
            i += 1
            let start = i
            var ascii = true
            while i < n, b[i] != 0x22 {
                guard b[i] >= 0x20, b[i] != 0x5C else { return nil }
                if b[i] >= 0x80 { ascii = false }
                i += 1
            }
            guard i < n else { return nil }
            defer { i += 1 }
            if !ascii {
                guard String(validating: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self) != nil else {
                    return nil
                }
            }
            return start..<i
        }
        /// The digits at `i` (after any leading zeros): how many, and how many were significant.
        func digits(significantSoFar: inout Int) -> Int {
            let start = i
            while i < n, b[i] >= 0x30, b[i] <= 0x39 {
                if significantSoFar > 0 || b[i] != 0x30 { significantSoFar += 1 }
                i += 1
            }
            return i - start
        }
        func number() -> Double? {
            let start = i
            let negative = i < n && b[i] == 0x2D
            if negative { i += 1 }
            guard i < n else { return nil }
            var significant = 0
            if b[i] == 0x30 {
                i += 1
            } else {
                guard b[i] >= 0x31, b[i] <= 0x39, digits(significantSoFar: &significant) > 0 else { return nil }
            }
            var fractionDigits = 0
            if i < n, b[i] == 0x2E {
                i += 1
                fractionDigits = digits(significantSoFar: &significant)
                guard fractionDigits > 0 else { return nil }
            }
            var exponent = 0
            if i < n, b[i] == 0x65 || b[i] == 0x45 {
                i += 1
                var sign = 1
                if i < n, b[i] == 0x2B || b[i] == 0x2D {
                    if b[i] == 0x2D { sign = -1 }
                    i += 1
                }
                let exponentStart = i
                var ignored = 0
                guard digits(significantSoFar: &ignored) > 0, i - exponentStart <= 3 else { return nil }
                for k in exponentStart..<i { exponent = exponent * 10 + Int(b[k] - 0x30) }
                exponent *= sign
            }
            // Only where every reader agrees to the bit: at most 15 significant digits and a power of ten that is
            // exact in a double (then mantissa × 10^k is one correctly rounded operation). JSONSerialization rounds
            // longer numbers its own way, and reads "-0" as the integer 0: those are left to it.
            guard significant <= 15, abs(exponent - fractionDigits) <= 22,
                  let value = Double(String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)),
                  value.isFinite, !(negative && value == 0)
            else { return nil }
            return value
        }
        func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard i + count <= n else { return false }
            for k in 0..<count where b[i + k] != text.utf8Start[k] { return false }
            i += count
            return true
        }
        func isNew(_ key: Range<Int>, among fields: [(key: Range<Int>, value: Value)]) -> Bool {
            for field in fields where field.key.count == key.count {
                if key.count == 0 || memcmp(b.baseAddress! + field.key.lowerBound, b.baseAddress! + key.lowerBound, key.count) == 0 {
                    return false
                }
            }
            return true
        }

        skipSpace()
        guard i < n, b[i] == 0x7B else { return nil }
        i += 1
        var fields: [(key: Range<Int>, value: Value)] = []
        fields.reserveCapacity(12)
        skipSpace()
        if i < n, b[i] == 0x7D {
            i += 1
        } else {
            while true {
                skipSpace()
                guard let key = string(), isNew(key, among: fields) else { return nil }
                skipSpace()
                guard i < n, b[i] == 0x3A else { return nil }
                i += 1
                skipSpace()
                guard i < n else { return nil }
                let value: Value
                switch b[i] {
                case 0x22:
                    guard let range = string() else { return nil }
                    value = .string(range)
                case 0x74:
                    guard literal("true") else { return nil }
                    value = .bool(true)
                case 0x66:
                    guard literal("false") else { return nil }
                    value = .bool(false)
                case 0x6E:
                    guard literal("null") else { return nil }
                    value = .null
                default:
                    guard let number = number() else { return nil }
                    value = .number(number)
                }
                fields.append((key, value))
                skipSpace()
                guard i < n else { return nil }
                if b[i] == 0x2C {
                    i += 1
                    continue
                }
                guard b[i] == 0x7D else { return nil }
                i += 1
                break
            }
        }
        skipSpace()
        return i == n ? fields : nil
    }
}
