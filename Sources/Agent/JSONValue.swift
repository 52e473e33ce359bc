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
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The compact JSON text's UTF-8 bytes (`JSONByteWriter`).
    var bytes: [UInt8] {
        var writer = JSONByteWriter()
        writer.value(self)
        return writer.bytes
    }

    /// `value` as `.number(value, digits:)` writes it.
    static func format(_ value: Double, digits: Int) -> String {
        var writer = JSONByteWriter(capacity: 24)
        writer.number(value, digits: digits)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.text == b.text }
}
