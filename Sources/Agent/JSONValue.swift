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
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .number(let value, let digits): out += Self.format(value, digits: digits)
        case .string(let value): out += JSONText.string(value)
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
                out += JSONText.string(key)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func format(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "null" }
        var text = String(format: "%.\(max(0, digits))f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        return text
    }

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.text == b.text }
}
