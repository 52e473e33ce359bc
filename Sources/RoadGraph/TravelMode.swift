import Geo

/// Dense graph node index, 0..<nodeCount.
public typealias NodeID = UInt32
/// Dense directed edge index, 0..<edgeCount. Edges are sorted by source node (CSR order).
public typealias EdgeID = UInt32

/// How the traveller moves. Taxi is driving plus ways/lanes open to taxis (psv); twoWheeler is a motorcycle.
public enum TravelMode: String, Sendable, Hashable, CaseIterable, Codable {
    case driving, cycling, walking, taxi, twoWheeler

    /// Motorised modes share the motor-vehicle free-flow speed and obey speed limits.
    public var isMotorized: Bool {
        switch self {
        case .driving, .taxi, .twoWheeler: return true
        case .cycling, .walking: return false
        }
    }
}

/// A set of travel modes, one bit per mode (stored as one byte per edge / node in the graph file).
public struct ModeMask: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let driving = ModeMask(rawValue: 1 << 0)
    public static let cycling = ModeMask(rawValue: 1 << 1)
    public static let walking = ModeMask(rawValue: 1 << 2)
    public static let taxi = ModeMask(rawValue: 1 << 3)
    public static let twoWheeler = ModeMask(rawValue: 1 << 4)

    public static let all: ModeMask = [.driving, .cycling, .walking, .taxi, .twoWheeler]
    /// driving, taxi, twoWheeler
    public static let motorized: ModeMask = [.driving, .taxi, .twoWheeler]

    public init(_ mode: TravelMode) {
        switch mode {
        case .driving: self = .driving
        case .cycling: self = .cycling
        case .walking: self = .walking
        case .taxi: self = .taxi
        case .twoWheeler: self = .twoWheeler
        }
    }

    public init(_ modes: some Sequence<TravelMode>) {
        self = []
        for m in modes { insert(ModeMask(m)) }
    }

    public func contains(_ mode: TravelMode) -> Bool { contains(ModeMask(mode)) }

    public var modes: [TravelMode] { TravelMode.allCases.filter { contains($0) } }

    public var description: String { "[" + modes.map(\.rawValue).joined(separator: ",") + "]" }
}

/// Per-edge boolean attributes. Bits 0...9 are public; bits 14 and 15 are reserved for the graph's own bookkeeping.
public struct EdgeFlags: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// toll=yes (or a toll for motor cars).
    public static let toll = EdgeFlags(rawValue: 1 << 0)
    /// route=ferry.
    public static let ferry = EdgeFlags(rawValue: 1 << 1)
    /// motorway, motorway_link, trunk, trunk_link: what "avoid highways" avoids.
    public static let highway = EdgeFlags(rawValue: 1 << 2)
    /// junction=roundabout / circular.
    public static let roundabout = EdgeFlags(rawValue: 1 << 3)
    /// The target node carries highway=traffic_signals.
    public static let trafficSignalsAtTarget = EdgeFlags(rawValue: 1 << 4)
    public static let tunnel = EdgeFlags(rawValue: 1 << 5)
    public static let bridge = EdgeFlags(rawValue: 1 << 6)
    /// maxspeed=none (e.g. German Autobahn): `speedLimitKph` is nil AND this is set.
    public static let noSpeedLimit = EdgeFlags(rawValue: 1 << 7)
    /// The speed limit was not tagged but inferred from the country's default for the road class / zone.
    public static let speedLimitInferred = EdgeFlags(rawValue: 1 << 8)
    /// The way was tagged oneway (or implied: roundabout, motorway) for motor vehicles.
    public static let oneway = EdgeFlags(rawValue: 1 << 9)

    static let publicMask: UInt16 = 0x03FF
    /// Internal: the edge is the `from` of at least one turn restriction.
    static let hasTurnRestrictions = EdgeFlags(rawValue: 1 << 15)
    /// Internal: the edge stores no shape of its own; its shape is its twin's, read backwards.
    static let shapeFromTwin = EdgeFlags(rawValue: 1 << 14)
}

/// OSM highway class of an edge (one byte in the file). `ferry` for route=ferry ways.
public enum HighwayClass: UInt8, Sendable, Hashable, CaseIterable, Codable {
    case motorway, motorwayLink, trunk, trunkLink, primary, primaryLink, secondary, secondaryLink,
         tertiary, tertiaryLink, unclassified, residential, livingStreet, service, track, road,
         busway, pedestrian, footway, cycleway, path, steps, bridleway, ferry, other

    /// The OSM `highway=*` value (nil for ferry / other).
    public var osmValue: String? {
        switch self {
        case .motorway: "motorway"
        case .motorwayLink: "motorway_link"
        case .trunk: "trunk"
        case .trunkLink: "trunk_link"
        case .primary: "primary"
        case .primaryLink: "primary_link"
        case .secondary: "secondary"
        case .secondaryLink: "secondary_link"
        case .tertiary: "tertiary"
        case .tertiaryLink: "tertiary_link"
        case .unclassified: "unclassified"
        case .residential: "residential"
        case .livingStreet: "living_street"
        case .service: "service"
        case .track: "track"
        case .road: "road"
        case .busway: "busway"
        case .pedestrian: "pedestrian"
        case .footway: "footway"
        case .cycleway: "cycleway"
        case .path: "path"
        case .steps: "steps"
        case .bridleway: "bridleway"
        case .ferry, .other: nil
        }
    }

    public init?(osmValue: String) {
        guard let c = HighwayClass.allCases.first(where: { $0.osmValue == osmValue }) else { return nil }
        self = c
    }

    /// True for the classes a car can physically drive: the road classes from motorway to living street and
    /// service, and pedestrian streets (delivery traffic). Not tracks, busways, footways, cycleways, paths, steps
    /// or bridleways: they run beside streets and a closed one must never attract a car.
    public var isRoadForMotorVehicles: Bool {
        switch self {
        case .motorway, .motorwayLink, .trunk, .trunkLink, .primary, .primaryLink, .secondary, .secondaryLink,
             .tertiary, .tertiaryLink, .unclassified, .residential, .livingStreet, .service, .road, .pedestrian:
            true
        case .track, .busway, .footway, .cycleway, .path, .steps, .bridleway, .ferry, .other:
            false
        }
    }
}
