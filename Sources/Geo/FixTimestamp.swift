import Foundation

/// The times GPS fixes carry, read one way wherever fixes come in (`edgenav match`, the agent's `location/raw`, and
/// so `edgenav replay`), so that a trace one of them takes the others take too.
public enum FixTimestamp {
    /// Seconds since 1970 from a number a fix carries: milliseconds are recognised by size (seconds stay below 1e11
    /// until the year 5138; exported traces often write milliseconds).
    public static func seconds(epoch number: Double) -> Double {
        abs(number) >= 1e11 ? number / 1000 : number
    }

    /// Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Parses `YYYY-MM-DD(T| )HH:MM:SS[.fraction][Z|±HH:MM|±HHMM]`; nil for anything else. A time without a zone is
    /// taken as UTC (recorders and exporters often leave it out; a fix in local time then shows up as stale or
    /// future-dated, with its age in the error, instead of being refused for its format).
    public static func date(iso8601 text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(iso8601UTF8: $0) }
    }

    /// `date(iso8601:)` over UTF-8 bytes (an MQTT payload's, without making a `String`).
    public static func date(iso8601UTF8 b: UnsafeBufferPointer<UInt8>) -> Date? {
        func digits(_ at: Int, _ count: Int) -> Int64? {
            guard at + count <= b.count else { return nil }
            var v: Int64 = 0
            for i in at..<(at + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int64(b[i] - 48)
            }
            return v
        }
        guard b.count >= 19, let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45,
              let day = digits(8, 2), b[10] == 84 || b[10] == 116 || b[10] == 32, let hour = digits(11, 2), b[13] == 58,
              let minute = digits(14, 2), b[16] == 58, let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 || b[i] == 44 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if i == b.count {
            // No zone: UTC.
        } else if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign: Int64 = b[i] == 45 ? -1 : 1
            guard let h = digits(i + 1, 2) else { return nil }
            var m: Int64 = 0
            if i + 3 < b.count, b[i + 3] == 58 {
                guard let mm = digits(i + 4, 2) else { return nil }
                m = mm
                i += 6
            } else if let mm = digits(i + 3, 2) {
                m = mm
                i += 5
            } else {
                i += 3
            }
            offsetSeconds = sign * (h * 3600 + m * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
