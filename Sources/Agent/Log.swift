import Foundation
import Geo

/// Log levels, lowest first.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case debug, info, warning, error

    public static func < (a: LogLevel, b: LogLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Structured logs: one JSON object per line, `{"ts":…,"level":…,"msg":…, fields…}`.
///
/// Secrets never reach a logger: configuration types redact them in their descriptions, and
/// callers pass only the fields they mean to show.
public struct Logger: Sendable {
    public var minimumLevel: LogLevel
    private let sink: @Sendable (String) -> Void

    /// - Parameter sink: receives each finished line (with its newline); stderr by default.
    public init(minimumLevel: LogLevel, sink: @escaping @Sendable (String) -> Void = Logger.standardError) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }

    public func log(_ level: LogLevel, _ message: String, _ fields: [(String, String)] = [], date: Date = Date()) {
        guard level >= minimumLevel else { return }
        var line = "{\"ts\":" + JSONText.string(ISO8601Timestamp.string(from: date))
        line += ",\"level\":" + JSONText.string(level.rawValue)
        line += ",\"msg\":" + JSONText.string(message)
        for (key, value) in fields {
            line += "," + JSONText.string(key) + ":" + JSONText.string(value)
        }
        sink(line + "}\n")
    }

    public func debug(_ message: String, _ fields: [(String, String)] = []) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: [(String, String)] = []) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [(String, String)] = []) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [(String, String)] = []) { log(.error, message, fields) }
}

/// Minimal JSON text helpers for hand-built lines.
public enum JSONText {
    /// `text` as a JSON string literal, with the escapes RFC 8259 requires.
    public static func string(_ text: String) -> String {
        var out = ""
        append(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal. Most strings (keys, ids, timestamps) need no escape: they are copied
    /// whole rather than scalar by scalar.
    static func append(_ text: String, to out: inout String) {
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += "\""
            out += text
            out += "\""
            return
        }
        out += escaped(text)
    }

    private static func escaped(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// ISO 8601 UTC timestamps with milliseconds, as every payload and log line carries them.
public enum ISO8601Timestamp {
    public static func string(from date: Date) -> String {
        // Computed by hand: ISO8601DateFormatter is not Sendable and costs microseconds per call.
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let totalSeconds = Int64((milliseconds / 1000).rounded(.down))
        let millis = Int(milliseconds - Double(totalSeconds) * 1000)
        var days = totalSeconds / 86_400
        var secondsOfDay = totalSeconds % 86_400
        if secondsOfDay < 0 { secondsOfDay += 86_400; days -= 1 }
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let hour = secondsOfDay / 3600, minute = (secondsOfDay % 3600) / 60, second = secondsOfDay % 60
        // By hand, not String(format:): this runs for every payload.
        var text = ""
        text.reserveCapacity(24)
        func append(_ value: Int64, width: Int) {
            let digits = String(value)
            if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
            text += digits
        }
        append(year, width: 4)
        text += "-"
        append(month, width: 2)
        text += "-"
        append(day, width: 2)
        text += "T"
        append(hour, width: 2)
        text += ":"
        append(minute, width: 2)
        text += ":"
        append(second, width: 2)
        text += "."
        append(Int64(millis), width: 3)
        text += "Z"
        return text
    }

    /// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// An ISO 8601 time as fixes and payloads carry it: see `FixTimestamp.date(iso8601:)` (one reading for the
    /// agent and `edgenav match`).
    public static func date(from text: String) -> Date? { FixTimestamp.date(iso8601: text) }

    /// `date(from:)` over UTF-8 bytes (a payload's, without making a `String`).
    static func date(utf8 b: UnsafeBufferPointer<UInt8>) -> Date? { FixTimestamp.date(iso8601UTF8: b) }
}
