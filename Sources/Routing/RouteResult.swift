import Geo
import RoadGraph

/// Outcome of a route request; the cases mirror `GMSRouteStatus`.
public enum RouteStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case ok
    /// The waypoints are on roads, but no legal path joins them.
    case noRouteFound
    /// A waypoint has no road usable by the mode within the snap radius (e.g. it lies in the sea).
    case locationUnavailable
    /// An invalid coordinate, more than 25 destinations, or `preferSameSideOfRoad` with a preferred heading.
    case waypointError
    /// The graph has no road the travel mode may use.
    case travelModeUnsupported
    /// Two consecutive waypoints (origin included) are the same place.
    case duplicateWaypointsError
    /// No destination was given.
    case noWaypointsError
    /// A bug or an inconsistent index (e.g. landmarks built for another graph).
    case internalError
}

/// Where a leg starts or ends on the road graph: a point part-way along a directed edge (a phantom node).
public struct RoadPosition: Sendable, Hashable {
    public var edge: EdgeID
    /// Distance from the edge's source node along its shape, metres.
    public var offsetMeters: Double
    /// The snapped point on the road.
    public var point: Coordinate

    public init(edge: EdgeID, offsetMeters: Double, point: Coordinate) {
        self.edge = edge
        self.offsetMeters = offsetMeters
        self.point = point
    }
}

/// The route from one waypoint to the next.
public struct RouteLeg: Sendable {
    /// The waypoint this leg ends at.
    public var destination: Waypoint
    public var start: RoadPosition
    public var end: RoadPosition
    /// Length along the roads from `start.point` to `end.point`, metres.
    public var distanceMeters: Double
    /// Travel time with free-flow speeds times any traffic overlay, seconds.
    public var durationSeconds: Double
    /// The optimised cost: seconds for `.best`, metres for `.shorter`.
    public var weight: Double
    /// (latitude, longitude) points from `start.point` to `end.point`, cut at the snapped offsets.
    public var geometry: [Coordinate]
    /// Directed edges in driving order; the first and last are used only from/to the snapped offsets.
    public var edges: [EdgeID]
    /// OSM way ids in driving order, consecutive repeats removed.
    public var osmWayIDs: [Int64]

    /// GeoJSON LineString coordinates: [longitude, latitude] pairs, as GeoJSON requires.
    public var geoJSONCoordinates: [[Double]] { geometry.map { [$0.longitude, $0.latitude] } }
    /// Encoded polyline (Google algorithm) at precision 6.
    public var encodedPolyline: String { EncodedPolyline.encode(geometry, precision: 6) }
}

/// A multi-leg route.
public struct Route: Sendable {
    public var legs: [RouteLeg]
    public var travelMode: TravelMode
    public var strategy: RoutingStrategy

    public var distanceMeters: Double { legs.reduce(0) { $0 + $1.distanceMeters } }
    public var durationSeconds: Double { legs.reduce(0) { $0 + $1.durationSeconds } }
    public var weight: Double { legs.reduce(0) { $0 + $1.weight } }
    /// All legs' points joined, the shared waypoint point kept once.
    public var geometry: [Coordinate] {
        var points: [Coordinate] = []
        for leg in legs {
            points.append(contentsOf: points.last == leg.geometry.first ? leg.geometry.dropFirst() : leg.geometry[...])
        }
        return points
    }
    /// GeoJSON LineString coordinates: [longitude, latitude] pairs.
    public var geoJSONCoordinates: [[Double]] { geometry.map { [$0.longitude, $0.latitude] } }
    /// Encoded polyline at precision 6.
    public var encodedPolyline: String { EncodedPolyline.encode(geometry, precision: 6) }
}

/// The answer to a `RouteRequest`: a status, and the route when the status is `.ok`.
public struct RouteResponse: Sendable {
    public var status: RouteStatus
    public var route: Route?
    /// Index of the offending waypoint for waypoint-specific failures: 0 is the origin, i + 1 is destinations[i].
    public var waypointIndex: Int?
    /// Human-readable detail; not a stable interface (use `status`).
    public var message: String

    public init(status: RouteStatus, route: Route? = nil, waypointIndex: Int? = nil, message: String = "") {
        self.status = status
        self.route = route
        self.waypointIndex = waypointIndex
        self.message = message
    }
}
