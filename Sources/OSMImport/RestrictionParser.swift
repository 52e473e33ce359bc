import RoadGraph

/// Why a restriction relation was not applied.
public enum RestrictionSkipReason: String, Error, Sendable, Hashable, CaseIterable, Codable {
    /// The restriction key names only vehicles we do not route (hgv, bus …), or `except=` exempts all our modes.
    case notForOurModes = "not_for_our_modes"
    /// `restriction:conditional` (time- or weight-dependent): not modelled.
    case conditional
    /// The value is not a no_* / only_* restriction.
    case unknownValue = "unknown_value"
    /// Missing or extra from / via / to members.
    case malformed
    /// The via member is a way: not representable by `RoadGraph.isTurnAllowed` (one-step turns).
    case viaWay = "via_way"
    /// A member way or the via node is not in the graph (outside the extract or not routable).
    case memberNotInGraph = "member_not_in_graph"
    /// The from/to ways do not end at the via node.
    case notAtVia = "not_at_via"
}

/// A restriction relation, interpreted but not yet resolved to graph edges.
public struct ParsedRestriction: Sendable, Hashable {
    public var id: Int64
    public var kind: TurnRestriction.Kind
    public var modes: ModeMask
    public var fromWays: [Int64]
    public var viaNode: Int64
    public var toWays: [Int64]
}

/// Interprets `type=restriction` relations.
///
/// Keys: `restriction` applies to every vehicle mode (driving, taxi, twoWheeler, cycling — never walking);
/// `restriction:motorcar` → driving, taxi; `restriction:motor_vehicle` → driving, taxi, twoWheeler;
/// `restriction:motorcycle` → twoWheeler; `restriction:bicycle` → cycling; `restriction:psv` / `:taxi` → taxi;
/// other vehicle keys (hgv, bus …) are skipped. `except=` (semicolon list) removes modes: motorcar → driving,
/// taxi; motor_vehicle → all motor modes; motorcycle → twoWheeler; bicycle → cycling; psv, taxi → taxi.
/// Values `no_*` → `.no`, `only_*` → `.only`. Members: ≥1 `from` way, exactly one `via` node, ≥1 `to` way.
public enum RestrictionParser {
    static let keyModes: [String: ModeMask] = [
        "restriction": [.driving, .taxi, .twoWheeler, .cycling],
        "restriction:motorcar": [.driving, .taxi],
        "restriction:motor_vehicle": [.driving, .taxi, .twoWheeler],
        "restriction:motorcycle": [.twoWheeler],
        "restriction:bicycle": [.cycling],
        "restriction:psv": [.taxi],
        "restriction:taxi": [.taxi],
    ]
    static let exceptModes: [String: ModeMask] = [
        "motorcar": [.driving, .taxi], "motor_vehicle": [.driving, .taxi, .twoWheeler], "motorcycle": [.twoWheeler],
        "bicycle": [.cycling], "psv": [.taxi], "taxi": [.taxi], "vehicle": [.driving, .taxi, .twoWheeler, .cycling],
    ]

    /// Whether a relation is a turn restriction at all (others are ignored silently, not counted).
    public static func isRestriction(_ tags: OSMTags) -> Bool {
        tags["type"] == "restriction"
    }

    public static func parse(id: Int64, tags: OSMTags, members: [OSMMember]) -> Result<[ParsedRestriction], RestrictionSkipReason> {
        var kinds = [(TurnRestriction.Kind, ModeMask)]()
        var sawConditional = false
        var sawOtherVehicle = false
        var sawUnknownValue = false
        for (key, value) in tags where key == "restriction" || key.hasPrefix("restriction:") {
            if key.hasSuffix(":conditional") { sawConditional = true; continue }
            guard let modes = keyModes[key] else { sawOtherVehicle = true; continue }
            let v = value.trimmingCharacters(in: .whitespaces)
            if v.hasPrefix("no_") {
                kinds.append((.no, modes))
            } else if v.hasPrefix("only_") {
                kinds.append((.only, modes))
            } else {
                sawUnknownValue = true
            }
        }
        if kinds.isEmpty {
            if sawUnknownValue { return .failure(.unknownValue) }
            if sawConditional { return .failure(.conditional) }
            if sawOtherVehicle { return .failure(.notForOurModes) }
            return .failure(.unknownValue)
        }
        var exempt: ModeMask = []
        if let except = tags["except"] {
            for item in except.split(separator: ";") {
                exempt.formUnion(exceptModes[item.trimmingCharacters(in: .whitespaces)] ?? [])
            }
        }
        var from = [Int64](), to = [Int64](), viaNodes = [Int64]()
        var viaWays = 0
        for m in members {
            switch (m.role, m.kind) {
            case ("from", .way): from.append(m.ref)
            case ("to", .way): to.append(m.ref)
            case ("via", .node): viaNodes.append(m.ref)
            case ("via", .way): viaWays += 1
            default: continue
            }
        }
        if viaWays > 0 { return .failure(.viaWay) }
        guard !from.isEmpty, !to.isEmpty, viaNodes.count == 1 else { return .failure(.malformed) }
        var out = [ParsedRestriction]()
        for (kind, modes) in kinds {
            let effective = modes.subtracting(exempt)
            guard !effective.isEmpty else { continue }
            out.append(ParsedRestriction(id: id, kind: kind, modes: effective, fromWays: from, viaNode: viaNodes[0], toWays: to))
        }
        return out.isEmpty ? .failure(.notForOurModes) : .success(out)
    }
}
