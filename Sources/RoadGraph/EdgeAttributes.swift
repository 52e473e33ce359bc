import Foundation
import Geo

/// Everything the graph stores about one directed edge besides its end nodes and shape.
public struct EdgeAttributes: Sendable, Hashable {
    /// Length along the shape, metres; computed from the geometry (haversine) when nil.
    public var lengthMeters: Double?
    /// Modes that may traverse the edge in its direction.
    public var access: ModeMask
    public var flags: EdgeFlags
    /// Free-flow speed for motor vehicles (driving, taxi, twoWheeler), km/h. Stored with 0.01 km/h resolution.
    public var freeFlowSpeedKph: Double
    /// Cycling speed on this edge, km/h.
    public var cyclingSpeedKph: Double
    /// Walking speed on this edge, km/h.
    public var walkingSpeedKph: Double
    /// Legal speed limit, km/h; nil when unknown (or none: see `EdgeFlags.noSpeedLimit`).
    public var speedLimitKph: Double?
    public var osmWayID: Int64
    public var name: String
    public var ref: String
    public var highwayClass: HighwayClass

    public init(lengthMeters: Double? = nil, access: ModeMask = .all, flags: EdgeFlags = [],
                freeFlowSpeedKph: Double = 50, cyclingSpeedKph: Double = 18, walkingSpeedKph: Double = 5,
                speedLimitKph: Double? = nil, osmWayID: Int64 = 0, name: String = "", ref: String = "",
                highwayClass: HighwayClass = .residential) {
        self.lengthMeters = lengthMeters
        self.access = access
        self.flags = flags
        self.freeFlowSpeedKph = freeFlowSpeedKph
        self.cyclingSpeedKph = cyclingSpeedKph
        self.walkingSpeedKph = walkingSpeedKph
        self.speedLimitKph = speedLimitKph
        self.osmWayID = osmWayID
        self.name = name
        self.ref = ref
        self.highwayClass = highwayClass
    }
}

/// A turn restriction at a via node, resolved to graph edges: `target(from) == via == source(to)`.
public struct TurnRestriction: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable, Codable {
        /// no_left_turn, no_right_turn, no_straight_on, no_u_turn, no_entry, no_exit: from → to is forbidden.
        case no = 0
        /// only_*: from `from`, only `to` (or one of several `only` targets) is allowed.
        case only = 1
    }

    public var from: EdgeID
    public var via: NodeID
    public var to: EdgeID
    public var kind: Kind
    /// Modes the restriction applies to (already minus `except=`).
    public var modes: ModeMask

    public init(from: EdgeID, via: NodeID, to: EdgeID, kind: Kind, modes: ModeMask = [.driving, .taxi, .twoWheeler, .cycling]) {
        self.from = from
        self.via = via
        self.to = to
        self.kind = kind
        self.modes = modes
    }
}

/// A point on an edge close to a query point.
public struct EdgeSnap: Sendable, Hashable {
    public var edge: EdgeID
    /// The closest point of the edge's geometry.
    public var point: Coordinate
    /// From the query point to `point`, metres.
    public var distanceMeters: Double
    /// Along the edge from its source node to `point`, metres.
    public var offsetMeters: Double

    public init(edge: EdgeID, point: Coordinate, distanceMeters: Double, offsetMeters: Double) {
        self.edge = edge
        self.point = point
        self.distanceMeters = distanceMeters
        self.offsetMeters = offsetMeters
    }
}

/// Descriptive information stored with a graph.
public struct GraphMetadata: Sendable, Hashable, Codable {
    /// File name of the OSM extract the graph was imported from ("" for hand-built graphs).
    public var sourceName: String
    /// When the graph was built.
    public var importedAt: Date
    /// Bounding box of all node and shape coordinates (nil for an empty graph).
    public var boundingBox: BoundingBox?
    public var nodeCount: Int
    public var edgeCount: Int
    public var turnRestrictionCount: Int
    /// ISO 3166-1 alpha-2 code the importer guessed for the extract (e.g. "FI"), nil when unknown.
    public var countryHint: String?
    /// Free-form importer facts (profile version, counts by reason …).
    public var notes: [String: String]

    public init(sourceName: String = "", importedAt: Date = Date(), boundingBox: BoundingBox? = nil, nodeCount: Int = 0,
                edgeCount: Int = 0, turnRestrictionCount: Int = 0, countryHint: String? = nil, notes: [String: String] = [:]) {
        self.sourceName = sourceName
        self.importedAt = importedAt
        self.boundingBox = boundingBox
        self.nodeCount = nodeCount
        self.edgeCount = edgeCount
        self.turnRestrictionCount = turnRestrictionCount
        self.countryHint = countryHint
        self.notes = notes
    }
}
