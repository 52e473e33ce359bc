import Foundation
import RoadGraph

/// Why a way did not become graph edges.
public enum WaySkipReason: String, Sendable, Hashable, CaseIterable, Codable {
    /// Neither `highway=*` nor `route=ferry`.
    case notARoad = "not_a_road"
    /// `area=yes` (pedestrian squares, parking lots drawn as areas).
    case area
    /// A highway value no profile routes on (construction, proposed, platform, raceway, bus_guideway …).
    case unsupportedHighway = "unsupported_highway"
    /// No travel mode may use it in either direction and it is no road a car could drive (a footway with
    /// access=no), or it is reversible (a road closed to every mode otherwise stays as a closed road:
    /// `RoadWay.closedRoadForward`).
    case noAccess = "no_access"
    /// Fewer than two nodes, or none of its nodes are in the extract.
    case tooShort = "too_short"
}

/// A way that some mode may use, with its tags interpreted.
public struct RoadWay: Sendable, Hashable {
    public var highwayClass: HighwayClass
    /// Modes allowed along the way's node order / against it.
    public var forward: ModeMask
    public var backward: ModeMask
    /// A road a car could drive (`HighwayClass.isRoadForMotorVehicles`) whose tags close it to every mode
    /// (access=private, access=no …) is kept as a closed road: edges with no mode allowed, in the directions its
    /// one-way tags let a vehicle drive it. A closed road is never part of a through route, but a waypoint on it is
    /// reached there and a vehicle on it is routed from there (`RouterConfiguration.closedRoadSnapMarginMeters`),
    /// and the matcher may follow a vehicle along it at a cost (`MapMatchingConfiguration.closedRoadPenalty`): a
    /// delivery to a private yard, a gated estate or a dock ends at the delivery, not on the public road 150 m
    /// away (SUMO Baltimore probe9, seed 7: an arrival announced 145 m short).
    public var closedRoadForward = false
    public var closedRoadBackward = false
    /// toll, ferry, highway, roundabout, tunnel, bridge, oneway (per-direction speed-limit flags come later).
    public var flags: EdgeFlags
    public var name: String
    public var ref: String
    /// Parsed `maxspeed:forward` ?? `maxspeed` ?? a zone tag; nil when absent.
    public var maxspeedForward: Maxspeed?
    public var maxspeedBackward: Maxspeed?
    /// True when a maxspeed tag was present but unreadable.
    public var maxspeedInvalid: Bool
    /// Country prefix of any zone tag on the way (for the country hint).
    public var zoneCountry: String?
    /// Motor-vehicle free-flow speed for the class, before the speed limit is considered (km/h).
    public var classSpeedKph: Double
    public var cyclingSpeedKph: Double
    public var walkingSpeedKph: Double
    /// Ferry crossing time from `duration`, seconds.
    public var ferryDurationSeconds: Double?

    /// Speed limit and motor free-flow speed in one direction.
    ///
    /// - limit: the tagged limit (or zone); else `DefaultSpeedLimits` for `country` with `.speedLimitInferred`;
    ///   `none` gives a nil limit with `.noSpeedLimit`.
    /// - free-flow: min(limit, 1.3 × class speed) when a limit is known (urban streets rarely flow at their limit),
    ///   1.2 × class speed when unlimited, else the class speed (`TravelProfiles` table).
    public func resolvedSpeeds(forward: Bool, country: String?) -> (limitKph: Double?, flags: EdgeFlags, motorKph: Double) {
        var flags: EdgeFlags = []
        var limit = forward ? maxspeedForward : maxspeedBackward
        if limit == nil, let inferred = DefaultSpeedLimits.limit(country: country, highwayClass: highwayClass) {
            limit = inferred
            flags.insert(.speedLimitInferred)
        }
        switch limit {
        case .kph(let v):
            return (v, flags, max(1, min(v, classSpeedKph * 1.3)))
        case .unlimited:
            flags.insert(.noSpeedLimit)
            return (nil, flags, classSpeedKph * 1.2)
        case .variable, nil:
            return (nil, flags, classSpeedKph)
        }
    }
}

public enum WayClassification: Sendable, Hashable {
    case road(RoadWay)
    case skipped(WaySkipReason)
}

/// Tag interpretation for the five travel modes. Pure functions over tag dictionaries (unit-tested and fuzzable).
///
/// Access: each mode takes the first decisive value along its OSM access hierarchy, else the class default:
///
/// | mode | keys, most specific first | class defaults (yes) |
/// | --- | --- | --- |
/// | driving | motorcar, motor_vehicle, vehicle, access | motorway … service, road, living_street (track only if tagged) |
/// | twoWheeler | motorcycle, motor_vehicle, vehicle, access | as driving |
/// | taxi | taxi, psv, then whatever driving decides | as driving; busway only with taxi=yes or psv=yes |
/// | cycling | bicycle, vehicle, access | everything but motorway(_link), busway, footway, pedestrian, steps, bridleway; trunk unless motorroad=yes |
/// | walking | foot, access | everything but motorway(_link), busway, bridleway; trunk unless motorroad=yes |
///
/// `key:forward` / `key:backward` variants of these keys apply in that direction only.
/// Allowing values: yes, permissive, designated, destination, delivery, customers, official, permit,
/// discouraged, dismount. Denying: no, private, agricultural, forestry, emergency, military, use_sidepath, psv, bus.
/// `service=emergency_access` closes a way to motor vehicles by default. Destination-type values (destination,
/// delivery, customers, permit) open only road classes to motor vehicles, never a cycleway/footway/path/track
/// (the graph has no destination-only state, so such ways would become through routes).
///
/// One-way: `oneway` yes/1/true (forward), -1/reverse (backward), no/false/0 (both), reversible/alternating
/// (closed to vehicles); implied by junction=roundabout/circular and highway=motorway. Mode overrides:
/// `oneway:motorcycle`, `oneway:taxi` / `oneway:psv`, `oneway:bicycle`, and for cycling also `cycleway*=opposite*`
/// or `cycleway:left|right:oneway=no|-1` (contraflow). Walking ignores `oneway` (only `oneway:foot` counts).
///
/// Motor-vehicle free-flow speeds by class (km/h; `RoadWay.resolvedSpeeds` combines them with limits):
///
/// | class | km/h | class | km/h |
/// | --- | --- | --- | --- |
/// | motorway | 110 | motorway_link | 60 |
/// | trunk | 90 | trunk_link | 50 |
/// | primary | 70 | primary_link | 45 |
/// | secondary | 60 | secondary_link | 40 |
/// | tertiary | 50 | tertiary_link | 35 |
/// | unclassified | 40 | residential | 30 |
/// | living_street | 10 | service | 15 (parking_aisle, driveway, drive-through 10) |
/// | track | 15 | road | 25 |
/// | busway | 40 | ferry | `duration` or 20 |
///
/// Cycling: 18 km/h on roads and cycleways, 14 on paths, 12 on tracks, living streets and unpaved surfaces,
/// 10 on footways / pedestrian streets where allowed, 5 where the tag says `dismount`, 4 on steps.
/// Walking: 5 km/h, 3 on steps. Both take the ferry's speed on ferries.
public enum TravelProfiles {
    static let motorClassSpeeds: [HighwayClass: Double] = [
        .motorway: 110, .motorwayLink: 60, .trunk: 90, .trunkLink: 50, .primary: 70, .primaryLink: 45,
        .secondary: 60, .secondaryLink: 40, .tertiary: 50, .tertiaryLink: 35, .unclassified: 40,
        .residential: 30, .livingStreet: 10, .service: 15, .track: 15, .road: 25, .busway: 40, .ferry: 20,
    ]
    public static let defaultFerrySpeedKph = 20.0
    public static let walkingSpeedKph = 5.0
    public static let cyclingSpeedKph = 18.0

    static let unsupportedHighways: Set<String> = [
        "construction", "proposed", "planned", "abandoned", "disused", "razed", "platform", "raceway", "rest_area",
        "services", "bus_stop", "elevator", "corridor", "via_ferrata", "escape", "emergency_bay", "bus_guideway",
        "traffic_island", "crossing", "no", "turning_circle", "turning_loop", "street_lamp", "milestone",
    ]

    // MARK: Access

    /// Interprets one access value: true allows, false denies, nil is not decisive (unknown value).
    public static func accessValue(_ raw: String) -> Bool? {
        let v = raw.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch v {
        case "yes", "permissive", "designated", "destination", "delivery", "customers", "official", "permit",
             "discouraged", "dismount", "allowed", "true", "1":
            return true
        case "no", "private", "agricultural", "forestry", "emergency", "military", "use_sidepath", "psv", "bus",
             "false", "0", "restricted":
            return false
        default:
            return nil
        }
    }

    static func decision(_ tags: OSMTags, _ keys: [String]) -> Bool? {
        for k in keys {
            if let v = tags[k], let d = accessValue(v) { return d }
        }
        return nil
    }

    /// Access values that permit only traffic with a destination on the way (see `modeAccess`).
    static let localAccessValues: Set<String> = ["destination", "delivery", "customers", "permit"]

    static let drivingKeys = ["motorcar", "motor_vehicle", "vehicle", "access"]
    static let twoWheelerKeys = ["motorcycle", "motor_vehicle", "vehicle", "access"]
    static let taxiKeys = ["taxi", "psv"]
    static let cyclingKeys = ["bicycle", "vehicle", "access"]
    static let walkingKeys = ["foot", "access"]

    /// Which modes may use a way of this class/tags at all (ignoring direction).
    static func modeAccess(_ tags: OSMTags, highwayClass: HighwayClass) -> ModeMask {
        let motorroad = tags["motorroad"] == "yes"
        var motorDefault: Bool
        var bikeDefault: Bool
        var footDefault: Bool
        switch highwayClass {
        case .motorway, .motorwayLink:
            (motorDefault, bikeDefault, footDefault) = (true, false, false)
        case .trunk, .trunkLink:
            (motorDefault, bikeDefault, footDefault) = (true, !motorroad, !motorroad)
        case .primary, .primaryLink, .secondary, .secondaryLink, .tertiary, .tertiaryLink, .unclassified,
             .residential, .livingStreet, .road:
            (motorDefault, bikeDefault, footDefault) = (true, !motorroad, !motorroad)
        case .service:
            (motorDefault, bikeDefault, footDefault) = (tags["service"] != "emergency_access", true, true)
        case .track:
            (motorDefault, bikeDefault, footDefault) = (false, true, true)
        case .busway:
            (motorDefault, bikeDefault, footDefault) = (false, false, false)
        case .pedestrian, .footway, .steps:
            (motorDefault, bikeDefault, footDefault) = (false, false, true)
        case .cycleway, .path:
            (motorDefault, bikeDefault, footDefault) = (false, true, true)
        case .bridleway:
            (motorDefault, bikeDefault, footDefault) = (false, false, false)
        case .ferry, .other:
            (motorDefault, bikeDefault, footDefault) = (true, true, true)
        }
        var mask: ModeMask = []
        // A destination-type permission (destination, delivery, customers, permit) opens a way that is no road for
        // motor vehicles by class (cycleway, footway, path, track…) only for local access, never as a through
        // route; the graph has no destination-only state, so such ways stay closed to motor vehicles (as in OSRM's
        // car.lua, where these values only count on road classes).
        func motorDecision(_ keys: [String]) -> Bool? {
            for k in keys {
                guard let v = tags[k], let d = accessValue(v) else { continue }
                if d && !motorDefault && localAccessValues.contains(v.lowercased()) { return false }
                return d
            }
            return nil
        }
        let driving = motorDecision(drivingKeys) ?? motorDefault
        if driving { mask.insert(.driving) }
        if motorDecision(twoWheelerKeys) ?? motorDefault { mask.insert(.twoWheeler) }
        if decision(tags, taxiKeys) ?? driving { mask.insert(.taxi) }
        if decision(tags, cyclingKeys) ?? bikeDefault { mask.insert(.cycling) }
        if decision(tags, walkingKeys) ?? footDefault { mask.insert(.walking) }
        return mask
    }

    // MARK: Direction

    enum Direction { case both, forward, backward, closed }

    static func onewayValue(_ raw: String?) -> Direction? {
        guard let raw else { return nil }
        switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
        case "yes", "1", "true": return .forward
        case "-1", "reverse": return .backward
        case "no", "false", "0": return .both
        case "reversible", "alternating": return .closed
        default: return nil
        }
    }

    static func hasCyclingContraflow(_ tags: OSMTags) -> Bool {
        for key in ["cycleway", "cycleway:left", "cycleway:right", "cycleway:both"] {
            if let v = tags[key], v.hasPrefix("opposite") { return true }
        }
        for key in ["cycleway:left:oneway", "cycleway:right:oneway", "cycleway:both:oneway"] {
            if let v = tags[key], v == "no" || v == "-1" { return true }
        }
        return false
    }

    // MARK: Ways

    public static func classify(_ tags: OSMTags) -> WayClassification {
        let highway = tags["highway"]
        let isFerry = tags["route"] == "ferry"
        let highwayClass: HighwayClass
        if isFerry {
            highwayClass = .ferry
        } else if let highway {
            if unsupportedHighways.contains(highway) { return .skipped(.unsupportedHighway) }
            guard let c = HighwayClass(osmValue: highway) else { return .skipped(.unsupportedHighway) }
            highwayClass = c
        } else {
            return .skipped(.notARoad)
        }
        if tags["area"] == "yes" { return .skipped(.area) }
        if tags["impassable"] == "yes" || tags["status"] == "impassable" { return .skipped(.noAccess) }

        // Direction-specific access (`motor_vehicle:backward=no`, `bicycle:forward=yes` …) overrides the plain key in
        // that direction only.
        let hasDirectional = tags.keys.contains { $0.hasSuffix(":forward") || $0.hasSuffix(":backward") }
        let modesForward = hasDirectional ? modeAccess(directionalView(tags, "forward"), highwayClass: highwayClass)
                                          : modeAccess(tags, highwayClass: highwayClass)
        let modesBackward = hasDirectional ? modeAccess(directionalView(tags, "backward"), highwayClass: highwayClass)
                                           : modesForward

        let roundabout = tags["junction"] == "roundabout" || tags["junction"] == "circular"
        let vehicleDirection = onewayValue(tags["oneway"]) ?? ((roundabout || highwayClass == .motorway) ? .forward : .both)
        let twoWheelerDirection = onewayValue(tags["oneway:motorcycle"]) ?? vehicleDirection
        let taxiDirection = onewayValue(tags["oneway:taxi"]) ?? onewayValue(tags["oneway:psv"]) ?? vehicleDirection
        let cyclingDirection = onewayValue(tags["oneway:bicycle"])
            ?? (hasCyclingContraflow(tags) && vehicleDirection != .closed ? .both : vehicleDirection)
        let walkingDirection = onewayValue(tags["oneway:foot"]) ?? .both

        var forward: ModeMask = []
        var backward: ModeMask = []
        func apply(_ mode: ModeMask, _ direction: Direction) {
            switch direction {
            case .both, .forward: if modesForward.contains(mode) { forward.insert(mode) }
            case .backward, .closed: break
            }
            switch direction {
            case .both, .backward: if modesBackward.contains(mode) { backward.insert(mode) }
            case .forward, .closed: break
            }
        }
        apply(.driving, vehicleDirection)
        apply(.twoWheeler, twoWheelerDirection)
        apply(.taxi, taxiDirection)
        apply(.cycling, cyclingDirection)
        apply(.walking, walkingDirection)
        var closedRoadForward = false, closedRoadBackward = false
        if forward.isEmpty && backward.isEmpty {
            guard highwayClass.isRoadForMotorVehicles else { return .skipped(.noAccess) }
            switch vehicleDirection {
            case .both: (closedRoadForward, closedRoadBackward) = (true, true)
            case .forward: closedRoadForward = true
            case .backward: closedRoadBackward = true
            case .closed: return .skipped(.noAccess)
            }
        }

        var flags: EdgeFlags = []
        if isFerry { flags.insert(.ferry) }
        if roundabout { flags.insert(.roundabout) }
        if [.motorway, .motorwayLink, .trunk, .trunkLink].contains(highwayClass) { flags.insert(.highway) }
        if tags["toll"] == "yes" || tags["toll:motorcar"] == "yes" { flags.insert(.toll) }
        if let t = tags["tunnel"], t != "no" { flags.insert(.tunnel) }
        if let b = tags["bridge"], b != "no" { flags.insert(.bridge) }
        if vehicleDirection != .both { flags.insert(.oneway) }

        // Speed limits.
        var invalid = false
        func parsed(_ key: String) -> Maxspeed? {
            guard let v = tags[key] else { return nil }
            let p = MaxspeedParser.parse(v)
            if p == nil { invalid = true }
            return p
        }
        var zoneCountry: String?
        var zone: Maxspeed?
        for key in ["maxspeed:type", "source:maxspeed", "zone:maxspeed", "zone:traffic"] {
            guard let v = tags[key], v.contains(":") else { continue }
            zoneCountry = zoneCountry ?? ZoneSpeedLimits.country(ofZone: v)
            if zone == nil { zone = ZoneSpeedLimits.limit(forZone: v) }
        }
        if let v = tags["maxspeed"], v.contains(":") { zoneCountry = ZoneSpeedLimits.country(ofZone: v) ?? zoneCountry }
        let both = parsed("maxspeed") ?? zone
        let maxForward = parsed("maxspeed:forward") ?? both
        let maxBackward = parsed("maxspeed:backward") ?? both

        // Speeds.
        var classSpeed = motorClassSpeeds[highwayClass] ?? 30
        if highwayClass == .service, let s = tags["service"], ["parking_aisle", "driveway", "drive-through"].contains(s) {
            classSpeed = 10
        }
        var ferryDuration: Double?
        if isFerry, let d = tags["duration"] { ferryDuration = parseDurationSeconds(d) }
        let surface = tags["surface"] ?? ""
        let unpaved: Set<String> = ["unpaved", "gravel", "fine_gravel", "dirt", "earth", "ground", "grass", "sand", "mud", "compacted", "pebblestone"]
        var cycling: Double
        switch highwayClass {
        case .path: cycling = 14
        case .track, .livingStreet: cycling = 12
        case .footway, .pedestrian: cycling = 10
        case .steps: cycling = 4
        default: cycling = cyclingSpeedKph
        }
        if unpaved.contains(surface) { cycling = min(cycling, 12) }
        if tags["bicycle"] == "dismount" { cycling = walkingSpeedKph }
        var walking = highwayClass == .steps ? 3.0 : walkingSpeedKph
        if isFerry {
            cycling = defaultFerrySpeedKph
            walking = defaultFerrySpeedKph
        }

        return .road(RoadWay(
            highwayClass: highwayClass, forward: forward, backward: backward,
            closedRoadForward: closedRoadForward, closedRoadBackward: closedRoadBackward, flags: flags,
            name: tags["name"] ?? "", ref: tags["ref"] ?? "",
            maxspeedForward: maxForward, maxspeedBackward: maxBackward, maxspeedInvalid: invalid,
            zoneCountry: zoneCountry, classSpeedKph: classSpeed, cyclingSpeedKph: cycling, walkingSpeedKph: walking,
            ferryDurationSeconds: ferryDuration))
    }

    static let accessKeys: Set<String> = ["access", "vehicle", "motor_vehicle", "motorcar", "motorcycle", "psv", "taxi", "bicycle", "foot"]

    /// The tags as seen travelling in `direction` ("forward"/"backward"): `key:direction` replaces `key` for access keys.
    static func directionalView(_ tags: OSMTags, _ direction: String) -> OSMTags {
        var view = tags
        let suffix = ":" + direction
        for (key, value) in tags where key.hasSuffix(suffix) {
            let base = String(key.dropLast(suffix.count))
            if accessKeys.contains(base) { view[base] = value }
        }
        return view
    }

    /// `duration` of a ferry: "HH:MM", "HH:MM:SS", plain minutes, or ISO 8601 "PT1H30M". Seconds; nil if unreadable.
    public static func parseDurationSeconds(_ raw: String) -> Double? {
        let s = raw.trimmingCharacters(in: .whitespaces)
        if s.hasPrefix("PT") {
            var total = 0.0, number = ""
            for ch in s.dropFirst(2) {
                if ch.isNumber || ch == "." { number.append(ch); continue }
                guard let n = Double(number) else { return nil }
                switch ch {
                case "H": total += n * 3600
                case "M": total += n * 60
                case "S": total += n
                default: return nil
                }
                number = ""
            }
            return total > 0 ? total : nil
        }
        let parts = s.split(separator: ":").map { Double($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let p = parts.map { $0! }
        let seconds: Double
        switch p.count {
        case 1: seconds = p[0] * 60
        case 2: seconds = p[0] * 3600 + p[1] * 60
        case 3: seconds = p[0] * 3600 + p[1] * 60 + p[2]
        default: return nil
        }
        return seconds > 0 ? seconds : nil
    }

    // MARK: Nodes

    /// Modes that may pass a node, from `barrier=*` and the barrier's own access tags:
    ///
    /// | barrier | passable by default |
    /// | --- | --- |
    /// | bollard, block, chain, jersey_barrier, cycle_barrier, motorcycle_barrier, bus_trap, sump_buster | cycling, walking |
    /// | kissing_gate, stile, turnstile, full-height_turnstile | walking |
    /// | wall, fence, hedge, retaining_wall, ditch, debris | none |
    /// | gate, lift_gate, swing_gate, sliding_gate, toll_booth, border_control, entrance, cattle_grid, height_restrictor, kerb, other | all |
    ///
    /// `locked=yes` closes the barrier to everyone; then access tags on the node (same hierarchy as ways) open or
    /// close it per mode, e.g. a gate with access=private and foot=yes lets only walkers through.
    public static func passableModes(nodeTags tags: OSMTags) -> ModeMask {
        guard let barrier = tags["barrier"] else { return .all }
        var mask: ModeMask
        switch barrier {
        case "bollard", "block", "chain", "jersey_barrier", "cycle_barrier", "motorcycle_barrier", "bus_trap", "sump_buster":
            mask = [.cycling, .walking]
        case "kissing_gate", "stile", "turnstile", "full-height_turnstile":
            mask = [.walking]
        case "wall", "fence", "hedge", "retaining_wall", "ditch", "debris", "city_wall":
            mask = []
        default:
            mask = .all
        }
        if tags["locked"] == "yes" { mask = [] }
        func set(_ m: ModeMask, _ keys: [String]) {
            if let d = decision(tags, keys) {
                if d { mask.insert(m) } else { mask.remove(m) }
            }
        }
        set(.driving, drivingKeys)
        set(.twoWheeler, twoWheelerKeys)
        set(.cycling, cyclingKeys)
        set(.walking, walkingKeys)
        if let d = decision(tags, taxiKeys) {
            if d { mask.insert(.taxi) } else { mask.remove(.taxi) }
        } else if mask.contains(.driving) {
            mask.insert(.taxi)
        } else {
            mask.remove(.taxi)
        }
        return mask
    }

    /// highway=traffic_signals on the node.
    public static func hasTrafficSignals(nodeTags tags: OSMTags) -> Bool {
        tags["highway"] == "traffic_signals"
    }
}
