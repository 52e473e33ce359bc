import Geo
import RoadGraph

/// One raw position report from a GPS receiver, as a `CLLocation` carries it. Time comes from the fix, never
/// from a clock: the matcher is deterministic for a given sequence of fixes.
public struct LocationFix: Sendable, Hashable, Codable {
    /// (latitude, longitude) in degrees, WGS84.
    public var coordinate: Coordinate
    /// Seconds since 1970-01-01T00:00:00Z (any monotone epoch works: only differences are used).
    public var timestamp: Double
    /// Metres above sea level; nil when unknown.
    public var altitudeMeters: Double?
    /// Ground speed reported by the receiver (Doppler), metres per second; nil (or negative) when unknown.
    public var speedMetersPerSecond: Double?
    /// Direction of travel reported by the receiver, degrees clockwise from true north; nil (or negative) when
    /// unknown.
    public var courseDegrees: Double?
    /// Radius of 68 % confidence of the position, metres (as `CLLocation.horizontalAccuracy`); nil when unknown.
    public var horizontalAccuracyMeters: Double?

    public init(
        coordinate: Coordinate, timestamp: Double, altitudeMeters: Double? = nil, speedMetersPerSecond: Double? = nil,
        courseDegrees: Double? = nil, horizontalAccuracyMeters: Double? = nil
    ) {
        self.coordinate = coordinate
        self.timestamp = timestamp
        self.altitudeMeters = altitudeMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
    }

    /// The reported speed when it is valid (finite, ≥ 0).
    public var validSpeed: Double? {
        guard let s = speedMetersPerSecond, s.isFinite, s >= 0 else { return nil }
        return s
    }

    /// The reported course when it is valid (finite, ≥ 0).
    public var validCourse: Double? {
        guard let c = courseDegrees, c.isFinite, c >= 0 else { return nil }
        return Geodesy.normalizedDegrees(c)
    }

    /// The reported accuracy when it is valid (finite, > 0).
    public var validAccuracy: Double? {
        guard let a = horizontalAccuracyMeters, a.isFinite, a > 0 else { return nil }
        return a
    }
}

/// The road-snapped location for one fix, as `GMSRoadSnappedLocationProvider` delivers it, plus the road it is on.
/// Unavailable values follow the Navigation SDK: course and speed -1, altitude NaN.
public struct SnappedLocation: Sendable, Hashable {
    /// The snapped position; for walking and cycling the raw fix position (the SDK snaps driving modes only).
    public var coordinate: Coordinate
    /// Metres above sea level, from the fix; NaN when unknown.
    public var altitudeMeters: Double
    /// Direction of travel along the matched road, degrees clockwise from north; -1 when unknown.
    public var courseDegrees: Double
    /// Metres per second: the fix's speed when valid, else derived along the road; -1 when unknown.
    public var speedMetersPerSecond: Double
    /// The fix's timestamp, seconds.
    public var timestamp: Double
    /// The fix's horizontal accuracy, metres; -1 when unknown.
    public var horizontalAccuracyMeters: Double
    /// False when the fix could not be placed on any road (no road near, after a break in the trace).
    public var matched: Bool
    /// The matched directed edge, when matched.
    public var edge: EdgeID?
    /// Along `edge` from its source node, metres.
    public var edgeOffsetMeters: Double
    /// OSM way id of the matched road; 0 when unmatched.
    public var osmWayID: Int64
    /// Street name of the matched road ("" when none or unmatched).
    public var roadName: String
    /// Legal limit of the matched road, km/h; nil when unknown or unmatched.
    public var speedLimitKph: Double?
    /// How the position was obtained.
    public var source: Source
    /// True when an active route is set and the matched position lies on it.
    public var isOnRoute: Bool
    /// Along the active route from its start to the matched position, metres; nil when off route or no route.
    public var routeDistanceMeters: Double?
    /// True when `edge` is closed to the matched mode (a street tagged motor_vehicle=no, a pedestrian zone: see
    /// `MapMatchingConfiguration.closedRoadPenalty`): the router cannot start a route on it for that mode.
    public var isOnClosedRoad = false

    public enum Source: String, Sendable, Hashable, Codable {
        /// Snapped from this fix's own position (and smoothed along the road with its neighbours).
        case snapped
        /// The fix was rejected as an outlier or fell in a break: the position is dead-reckoned along the road
        /// between the road positions before and after it.
        case deadReckoned
        /// Not placed on a road: the raw position is reported.
        case unmatched
    }

    public init(
        coordinate: Coordinate, altitudeMeters: Double, courseDegrees: Double, speedMetersPerSecond: Double,
        timestamp: Double, horizontalAccuracyMeters: Double, matched: Bool, edge: EdgeID?, edgeOffsetMeters: Double,
        osmWayID: Int64, roadName: String, speedLimitKph: Double?, source: Source, isOnRoute: Bool,
        routeDistanceMeters: Double?
    ) {
        self.coordinate = coordinate
        self.altitudeMeters = altitudeMeters
        self.courseDegrees = courseDegrees
        self.speedMetersPerSecond = speedMetersPerSecond
        self.timestamp = timestamp
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.matched = matched
        self.edge = edge
        self.edgeOffsetMeters = edgeOffsetMeters
        self.osmWayID = osmWayID
        self.roadName = roadName
        self.speedLimitKph = speedLimitKph
        self.source = source
        self.isOnRoute = isOnRoute
        self.routeDistanceMeters = routeDistanceMeters
    }

    /// The raw fix reported as unmatched.
    public static func unmatched(_ fix: LocationFix) -> SnappedLocation {
        SnappedLocation(
            coordinate: fix.coordinate, altitudeMeters: fix.altitudeMeters ?? .nan,
            courseDegrees: fix.validCourse ?? -1, speedMetersPerSecond: fix.validSpeed ?? -1,
            timestamp: fix.timestamp, horizontalAccuracyMeters: fix.validAccuracy ?? -1, matched: false, edge: nil,
            edgeOffsetMeters: 0, osmWayID: 0, roadName: "", speedLimitKph: nil, source: .unmatched, isOnRoute: false,
            routeDistanceMeters: nil)
    }
}
