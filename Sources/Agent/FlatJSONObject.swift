import Foundation

/// A fast reader for the common shape of an input payload: one JSON object whose values are plain strings
/// (no escapes), numbers, `true`, `false` or `null` — every raw fix. It returns nil for anything else (nesting,
/// escapes, duplicate keys, long numbers, invalid UTF-8, malformed text), and the caller then parses with
/// `JSONSerialization`, so errors and unusual payloads behave exactly as before. What it accepts is valid JSON that
/// `JSONSerialization` reads to the same values: strings as `String`, numbers as `NSNumber` (double), booleans as
/// `NSNumber(value: Bool)`, null as `NSNull`. (Numbers are correctly rounded; `JSONSerialization` may differ in the
/// last bit beyond 15 significant digits, far below any coordinate's precision.)
///
/// Why: `JSONSerialization` was a tenth of the agent's time per fix in fleet mode.
enum FlatJSONObject {
    static func parse(_ bytes: [UInt8]) -> [String: Any]? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    private static func parse(_ b: UnsafeBufferPointer<UInt8>) -> [String: Any]? {
        var i = 0
        let n = b.count
        func skipSpace() {
            while i < n, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }
        /// A string without escapes or control characters, at `i` (on its opening quote).
        func string() -> String? {
            guard i < n, b[i] == 0x22 else { return nil }
            i += 1
            let start = i
            while i < n, b[i] != 0x22 {
                guard b[i] >= 0x20, b[i] != 0x5C else { return nil }
                i += 1
            }
            guard i < n else { return nil }
            defer { i += 1 }
            return String(validating: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        }
        func digits() -> Int {
            let start = i
            while i < n, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i - start
        }
        func number() -> NSNumber? {
            let start = i
            if i < n, b[i] == 0x2D { i += 1 }
            guard i < n else { return nil }
            if b[i] == 0x30 {
                i += 1
            } else {
                guard b[i] >= 0x31, b[i] <= 0x39, digits() > 0 else { return nil }
            }
            if i < n, b[i] == 0x2E {
                i += 1
                guard digits() > 0 else { return nil }
            }
            if i < n, b[i] == 0x65 || b[i] == 0x45 {
                i += 1
                if i < n, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
                guard digits() > 0 else { return nil }
            }
            // Long numbers (integers beyond 2^53, many decimals) are left to JSONSerialization's exact rules.
            guard i - start <= 20,
                  let value = Double(String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)),
                  value.isFinite
            else { return nil }
            return NSNumber(value: value)
        }
        func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard i + count <= n else { return false }
            for k in 0..<count where b[i + k] != text.utf8Start[k] { return false }
            i += count
            return true
        }

        skipSpace()
        guard i < n, b[i] == 0x7B else { return nil }
        i += 1
        var fields: [String: Any] = [:]
        skipSpace()
        if i < n, b[i] == 0x7D {
            i += 1
        } else {
            while true {
                skipSpace()
                guard let key = string(), fields[key] == nil else { return nil }
                skipSpace()
                guard i < n, b[i] == 0x3A else { return nil }
                i += 1
                skipSpace()
                guard i < n else { return nil }
                switch b[i] {
                case 0x22:
                    guard let value = string() else { return nil }
                    fields[key] = value
                case 0x74:
                    guard literal("true") else { return nil }
                    fields[key] = NSNumber(value: true)
                case 0x66:
                    guard literal("false") else { return nil }
                    fields[key] = NSNumber(value: false)
                case 0x6E:
                    guard literal("null") else { return nil }
                    fields[key] = NSNull()
                default:
                    guard let value = number() else { return nil }
                    fields[key] = value
                }
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
