import Foundation

/// A JSON value whose objects keep their fields in the order written, so payloads read the way
/// topics.md lists them (`status` first, not wherever a hash puts it).
public enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
    case null
    case bool(Bool)
    case int(Int64)
    /// Written with up to `digits` decimals, trailing zeros dropped; non-finite values become null.
    case number(Double, digits: Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .number(value, digits: 6) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// `value` rounded to `digits` decimals, or null when absent.
    public static func number(_ value: Double?, digits: Int) -> JSONValue {
        value.map { .number($0, digits: digits) } ?? .null
    }

    public static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// The compact JSON text.
    public var text: String {
        var out = ""
        out.reserveCapacity(256)  // most payloads fit: no regrowing on the way (5 reallocations otherwise)
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .number(let value, let digits): out += Self.format(value, digits: digits)
        case .string(let value): JSONText.append(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                JSONText.append(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func format(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "null" }
        let digits = max(0, digits)
        // Fast path (every payload has a dozen numbers; String(format:) costs microseconds each): scale to an
        // integer, print it, put the point back. Exact enough while the scaled value fits well within 2^53.
        if digits <= 9 {
            let scale = Self.powersOfTen[digits]
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

    private static let powersOfTen: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.text == b.text }
}
