import Foundation
import RoadGraph

/// A parsed `maxspeed` value.
public enum Maxspeed: Sendable, Hashable {
    /// A numeric limit, converted to km/h.
    case kph(Double)
    /// `none`: no limit (German Autobahn).
    case unlimited
    /// The value is valid but not a fixed number (`signals`, `variable`): unknown at import time.
    case variable

    public var kph: Double? {
        if case .kph(let v) = self { return v }
        return nil
    }
}

/// Parses every real-world form of `maxspeed`:
///
/// | form | example | result |
/// | --- | --- | --- |
/// | plain number (km/h) | `50`, `50.5`, `7,5` | 50 km/h |
/// | with unit | `50 km/h`, `50kmh`, `50 kph`, `30 mph`, `30mph`, `10 knots` | converted to km/h (1 mph = 1.609344 km/h, 1 kn = 1.852 km/h) |
/// | `walk` | | 7 km/h (`MaxspeedParser.walkKph`) |
/// | `none` | | `.unlimited` |
/// | `signals`, `variable` | | `.variable` |
/// | zone | `FI:urban`, `DE:rural`, `DE:motorway`, `RU:urban`, `DE:zone30`, `DE:zone:30`, `US:...` | from `ZoneSpeedLimits` |
/// | several values | `50;30` | the smallest |
///
/// Anything else is nil (and counted as invalid by the importer).
public enum MaxspeedParser {
    /// The km/h used for `walk` (German and Austrian "Schrittgeschwindigkeit" is usually read as 4–7 km/h).
    public static let walkKph = 7.0
    public static let kphPerMph = 1.609344
    public static let kphPerKnot = 1.852

    public static func parse(_ raw: String) -> Maxspeed? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return nil }
        // Split on the scalar, not the Character: a ";" followed by a combining mark, or preceded by a prepending
        // one (U+0600…), is part of a larger grapheme, so a Character split would keep it and recurse forever.
        if text.unicodeScalars.contains(";") {
            let parts = text.unicodeScalars.split(separator: ";").compactMap {
                parse(String(String.UnicodeScalarView($0)))
            }
            guard !parts.isEmpty else { return nil }
            let numbers = parts.compactMap(\.kph)
            if let m = numbers.min() { return .kph(m) }
            return parts[0]
        }
        let lower = text.lowercased()
        switch lower {
        case "none", "unlimited": return .unlimited
        case "walk": return .kph(walkKph)
        case "signals", "variable": return .variable
        default: break
        }
        if lower.contains(":") { return ZoneSpeedLimits.limit(forZone: text) }
        // Number followed by an optional unit.
        var numberPart = ""
        var rest = Substring(lower)
        while let c = rest.first, c.isNumber || c == "." || c == "," {
            numberPart.append(c == "," ? "." : c)
            rest = rest.dropFirst()
        }
        guard let value = Double(numberPart), value > 0, value < 500 else { return nil }
        let unit = rest.trimmingCharacters(in: .whitespaces)
        switch unit {
        case "", "km/h", "kmh", "kph", "km/t", "kmph": return .kph(value)
        case "mph": return .kph(value * kphPerMph)
        case "knots", "kn", "knot": return .kph(value * kphPerKnot)
        default: return nil
        }
    }
}

/// Legal limits implied by zone values (`maxspeed=FI:urban`, `maxspeed:type=DE:rural`, `zone:maxspeed=DE:30`),
/// from the OSM wiki's "Default speed limits" page. Values in km/h; GB and US zones are in mph there.
public enum ZoneSpeedLimits {
    /// country → zone → limit. `nil` limit entries mean "no limit" (`.unlimited`).
    static let table: [String: [String: Maxspeed]] = [
        "FI": ["urban": .kph(50), "rural": .kph(80), "motorway": .kph(120), "trunk": .kph(100), "living_street": .kph(20)],
        "LI": ["urban": .kph(50), "rural": .kph(80), "living_street": .kph(20)],
        "DE": ["urban": .kph(50), "rural": .kph(100), "motorway": .unlimited, "living_street": .kph(MaxspeedParser.walkKph),
               "bicycle_road": .kph(30)],
        "AT": ["urban": .kph(50), "rural": .kph(100), "motorway": .kph(130), "trunk": .kph(100), "living_street": .kph(MaxspeedParser.walkKph)],
        "CH": ["urban": .kph(50), "rural": .kph(80), "motorway": .kph(120), "trunk": .kph(100), "living_street": .kph(20)],
        "FR": ["urban": .kph(50), "rural": .kph(80), "motorway": .kph(130), "trunk": .kph(110), "living_street": .kph(20)],
        "RU": ["urban": .kph(60), "rural": .kph(90), "motorway": .kph(110), "living_street": .kph(20)],
        "EE": ["urban": .kph(50), "rural": .kph(90), "living_street": .kph(20)],
        "SE": ["urban": .kph(50), "rural": .kph(70), "motorway": .kph(110), "living_street": .kph(MaxspeedParser.walkKph)],
        "NO": ["urban": .kph(50), "rural": .kph(80), "motorway": .kph(110), "living_street": .kph(MaxspeedParser.walkKph)],
        "GB": ["nsl_single": .kph(60 * MaxspeedParser.kphPerMph), "nsl_dual": .kph(70 * MaxspeedParser.kphPerMph),
               "motorway": .kph(70 * MaxspeedParser.kphPerMph), "urban": .kph(30 * MaxspeedParser.kphPerMph)],
        "US": ["urban": .kph(25 * MaxspeedParser.kphPerMph), "rural": .kph(55 * MaxspeedParser.kphPerMph),
               "living_street": .kph(15 * MaxspeedParser.kphPerMph)],
    ]

    /// `CC:zone` → limit. Also `CC:zone30`, `CC:zone:30`, `CC:30` (a numeric zone) and US state forms
    /// `US:MD:urban` (state ignored). Nil for unknown zones.
    public static func limit(forZone value: String) -> Maxspeed? {
        var parts = value.split(separator: ":").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard parts.count >= 2 else { return nil }
        let country = parts.removeFirst().uppercased()
        guard country.count == 2 else { return nil }
        if country == "US", parts.count >= 2, parts[0].count == 2, parts[0].uppercased() == parts[0] { parts.removeFirst() }
        var zone = parts.joined(separator: ":").lowercased()
        if zone.hasPrefix("zone:") { zone = String(zone.dropFirst(5)) }
        if zone.hasPrefix("zone") { zone = String(zone.dropFirst(4)) }
        if let n = Double(zone), n > 0, n < 200 {
            return .kph(country == "GB" || country == "US" ? n * MaxspeedParser.kphPerMph : n)
        }
        return table[country]?[zone]
    }

    /// The country prefix of a zone value ("FI:urban" → "FI"), for the country hint.
    public static func country(ofZone value: String) -> String? {
        guard let colon = value.firstIndex(of: ":") else { return nil }
        let c = value[..<colon]
        guard c.count == 2, c.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return c.uppercased()
    }
}

/// Speed limits assumed where a way has neither `maxspeed` nor a zone tag, per country and class. Only classes
/// whose legal default is unambiguous from the class alone are listed (a `primary` may be urban or rural, so it
/// stays unknown). Edges get `EdgeFlags.speedLimitInferred`.
///
/// | country | residential | living_street | motorway |
/// | --- | --- | --- | --- |
/// | FI | 50 | 20 | 120 |
/// | LI | 50 | 20 | — |
/// | DE | 50 | 7 (walk) | none |
/// | AT | 50 | 7 (walk) | 130 |
/// | CH | 50 | 20 | 120 |
/// | FR | 50 | 20 | 130 |
/// | RU | 60 | 20 | 110 |
/// | GB | 30 mph | — | 70 mph |
/// | US | 25 mph (40.2 km/h) | 15 mph | — (state law) |
/// | unknown | — | — | — |
public enum DefaultSpeedLimits {
    public static func limit(country: String?, highwayClass: HighwayClass) -> Maxspeed? {
        guard let country, let zones = ZoneSpeedLimits.table[country] else { return nil }
        switch highwayClass {
        case .residential: return zones["urban"]
        case .livingStreet: return zones["living_street"]
        case .motorway: return zones["motorway"]
        default: return nil
        }
    }
}
