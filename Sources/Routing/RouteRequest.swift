import Geo
import RoadGraph

/// What a route optimises, mirroring the Navigation SDK's routing strategies.
public enum RoutingStrategy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Shortest travel time (free-flow durations, times any traffic overlay). The default.
    case best
    /// Shortest legal distance for the travel mode.
    case shorter
}

/// Road kinds a route should not use.
public struct AvoidOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Motorways and trunk roads (`EdgeFlags.highway`).
    public static let highways = AvoidOptions(rawValue: 1 << 0)
    /// Edges flagged `EdgeFlags.toll`.
    public static let tolls = AvoidOptions(rawValue: 1 << 1)
    /// Ferry lines (`EdgeFlags.ferry`); avoided by default, as in the Navigation SDK.
    public static let ferries = AvoidOptions(rawValue: 1 << 2)

    /// The edge flags that make an edge unusable under these options.
    public var excludedFlags: EdgeFlags {
        var flags: EdgeFlags = []
        if contains(.highways) { flags.insert(.highway) }
        if contains(.tolls) { flags.insert(.toll) }
        if contains(.ferries) { flags.insert(.ferry) }
        return flags
    }
}

/// A place the route starts at or must reach.
public struct Waypoint: Sendable, Hashable, Codable {
    /// (latitude, longitude) in degrees, WGS84.
    public var coordinate: Coordinate
    /// Arrive on the side of the road the coordinate lies on (right-hand side of the arriving direction under
    /// right-hand traffic). Ignored for the origin. May not be combined with `preferredHeadingDegrees`.
    public var preferSameSideOfRoad: Bool
    /// Start (origin) or arrive (destinations) travelling in this direction, degrees clockwise from north;
    /// honoured within `RouterConfiguration.headingToleranceDegrees` when a nearby road allows it.
    public var preferredHeadingDegrees: Double?
    /// Free text carried into the leg (e.g. the SDK waypoint title); not used for routing.
    public var title: String

    public init(
        _ coordinate: Coordinate, preferSameSideOfRoad: Bool = false, preferredHeadingDegrees: Double? = nil,
        title: String = ""
    ) {
        self.coordinate = coordinate
        self.preferSameSideOfRoad = preferSameSideOfRoad
        self.preferredHeadingDegrees = preferredHeadingDegrees
        self.title = title
    }
}

/// One routing question: from an origin through up to 25 destinations, one leg per destination.
public struct RouteRequest: Sendable {
    public var origin: Waypoint
    public var destinations: [Waypoint]
    public var travelMode: TravelMode
    public var strategy: RoutingStrategy
    /// Defaults to `[.ferries]`, as in the Navigation SDK.
    public var avoid: AvoidOptions
    /// Per-edge travel-time adjustments (live traffic); nil means free flow.
    public var traffic: (any EdgeTravelTimeAdjusting)?

    public init(
        origin: Waypoint, destinations: [Waypoint], travelMode: TravelMode = .driving,
        strategy: RoutingStrategy = .best, avoid: AvoidOptions = [.ferries],
        traffic: (any EdgeTravelTimeAdjusting)? = nil
    ) {
        self.origin = origin
        self.destinations = destinations
        self.travelMode = travelMode
        self.strategy = strategy
        self.avoid = avoid
        self.traffic = traffic
    }
}

/// The shortest-path method. All are exact and give equal costs; they differ in speed.
public enum SearchAlgorithm: String, Sendable, Hashable, Codable, CaseIterable {
    /// Plain unidirectional Dijkstra on directed edges (the simplest reference).
    case dijkstra
    /// Bidirectional Dijkstra on directed edges (the reference every faster method is tested against).
    case bidirectionalDijkstra
    /// Bidirectional A* with ALT landmark lower bounds and average potentials (Goldberg & Harrelson 2005), using
    /// the `RouterConfiguration.activeLandmarkCount` landmarks that bound the query best. The fastest method.
    /// Needs a `LandmarkIndex` for the mode and strategy; without one the router falls back to bidirectional
    /// Dijkstra.
    case alt
    /// Unidirectional A* with the same landmark bounds (the previous default, kept for comparison); the same
    /// fallback.
    case unidirectionalAlt
}

/// Thresholds of the router, with their defaults.
public struct RouterConfiguration: Sendable, Hashable {
    /// A waypoint farther than this from every usable road is `locationUnavailable`. Default 250 m.
    public var snapRadiusMeters: Double = 250
    /// The nearest road is looked for within this radius first, and within `snapRadiusMeters` only when none is
    /// this near (the answer is the same; the first look scans far fewer grid cells). Default 50 m.
    public var nearSnapRadiusMeters: Double = 50
    /// How many nearby edges are considered when honouring a preferred heading. Default 12.
    public var snapCandidateLimit: Int = 12
    /// A destination without a heading or side preference may be reached on any usable road within this of the
    /// nearest one, metres; the search takes whichever is cheapest. Overlapping and closely parallel ways (a
    /// tram-and-car pair, the two halves of a split street, a slip lane) put the nearest road 1–5 m from the one the
    /// vehicle can reach directly, and a single candidate then made the leg loop round the block to arrive in the
    /// other direction. Only roads whose own nearest point lies within this of the nearest road's count (the same
    /// place: a parallel way, a way meeting it at the node by the waypoint): for a waypoint 32 m from every road (the
    /// middle of Kauppatori, `scripts/fault-burst`) a road 2 m farther but 11 m along the kerb from the nearest point
    /// was cheaper, the leg ended there, and the vehicle standing by the nearest road never came within the
    /// standing-arrival radius of it. Default 5 m (SUMO Helsinki: a waypoint at the node where two ways meet, the
    /// nearest edge's direction only reachable round a 450 m loop, arrived on the other way); 0: the nearest road.
    public var destinationTieMeters: Double = 5
    /// A road direction matches a preferred heading when its bearing differs by at most this. Default 45°.
    public var headingToleranceDegrees: Double = 45
    /// Traffic drives on the right (the same-side rule picks the direction whose right faces the waypoint).
    /// Default nil: the map's side (`RoadGraph.drivingSide`, from the country of the extract: left in Britain,
    /// Ireland, Japan, Australia …).
    public var rightHandTraffic: Bool?
    /// A waypoint closer than this to the road centre line has no side: both directions stay allowed.
    /// Default 0.5 m.
    public var sameSideMinimumOffsetMeters: Double = 0.5
    /// Most destinations per request (the Navigation SDK's limit). Default 25.
    public var maximumDestinations: Int = 25
    /// Two consecutive waypoints closer than this are duplicates. Default 0.01 m.
    public var duplicateWaypointToleranceMeters: Double = 0.01
    /// The search method used by `Router.route(_:)`. Default `.alt`.
    public var algorithm: SearchAlgorithm = .alt
    /// A waypoint whose road lies in a strongly connected part of the network (for the travel mode) with fewer
    /// nodes than this is on an island; when no route joins it, the router starts or ends at the nearest road of
    /// the main network within `islandSnapRadiusMeters` instead (OSRM does the same, at any distance). Default 1000
    /// (OSRM's default small component size).
    public var islandNodeLimit: Int = 1000
    /// How far from an island waypoint the main-network road may be. Default 1000 m.
    public var islandSnapRadiusMeters: Double = 1000
    /// How many nearby edges are searched for that main-network road. Default 256.
    public var islandSnapCandidateLimit: Int = 256
    /// When no route reaches a destination's nearest road (and it is no island), this many of the next nearest roads
    /// within `snapRadiusMeters` are tried, and for the first leg as many round the origin (a vehicle on a road no route
    /// leaves), in pairs, fewest metres off both ends first, at most twice this many searches (only on that failure).
    /// Default 8; 0 turns it off.
    public var nextRoadCandidateLimit: Int = 8
    /// … the origin's next roads only within this, metres: they stand in for a fix a few metres off, not for a vehicle
    /// on an island of the network (`islandSnapRadiusMeters` decides that). Default 50 (3 σ of a 10 m fix error,
    /// and wider than a dual carriageway's two ways).
    public var nextOriginRoadRadiusMeters: Double = 50
    /// A waypoint (or a rerouted vehicle) on a road closed to the motor travel mode by its tags (motor_vehicle=no,
    /// access=no or agricultural, a pedestrian street: `RoadGraph.motorModesClosedByTags`) starts or ends its leg
    /// there when that road is nearer than every open road by at least this, metres: the leg then drives the closed
    /// road only from the waypoint to the nearest open roads (`ClosedRoadStretch`), never through it from one open
    /// road to another. Delivery vans drive pedestrian zones, farmers farm roads, and a traffic simulator may ignore
    /// the tags (SUMO Liechtenstein probe17 starts on one: routed from the nearest open road it was rerouted 43
    /// times in two minutes and never arrived). Default 10 m: a waypoint beside a street and a footpath-like closed
    /// road still goes to the street; the matcher puts a fix on a closed road only when open roads are about 2.4
    /// σ farther (`MapMatchingConfiguration.closedRoadPenalty`). `.infinity` disables (closed roads are never
    /// used). Walking and cycling are never affected.
    public var closedRoadSnapMarginMeters: Double = 10
    /// Whether a destination on a pedestrian street (`highway=pedestrian`) ends its leg there, as on other closed
    /// roads. Default false: the leg ends on the nearest open road, where a car driver stops, at the edge of the
    /// pedestrian zone; ending inside it, a car parked at the edge would never arrive. A vehicle the matcher puts
    /// on a pedestrian street (a delivery van in the zone) is still routed from there (the origin is not affected).
    /// Traffic simulators do not drive cars on pedestrian streets, but do ignore motor_vehicle=no and farm-road tags.
    public var closedRoadDestinationsOnPedestrianStreets = false
    /// The same margin for the origin, metres. The navigator routes from the vehicle's matched position, which lies
    /// on the road the matcher chose: on a closed road only when the fix fits it better than every open road (by
    /// `MapMatchingConfiguration.closedRoadPenalty`), although an open road may then pass a few metres from the
    /// snapped point. Routed from that open road instead, the vehicle would be off its new route at once and
    /// rerouted at every fix. Default 2 m (only a road the origin lies on, or all but on).
    public var closedRoadOriginMarginMeters: Double = 2
    /// The closed road must pass within this of the waypoint, metres. Default 25 m.
    public var closedRoadSnapRadiusMeters: Double = 25
    /// A closed road's time (`.best`) or length (`.shorter`) counts this many times in the search: of two ways off
    /// a closed road, the one with less closed road wins unless the other saves more than that. Default 2.
    public var closedRoadCostFactor: Double = 2
    /// Speed assumed on a closed road whose tags give the mode none, km/h. Default 20.
    public var closedRoadSpeedKph: Double = 20
    /// The stretch along closed roads from a waypoint to the open network is looked for up to this far, metres.
    /// Default 3000.
    public var maximumClosedStretchMeters: Double = 3000
    /// How many of the index's landmarks a query uses: those with the largest bounds between its origin and
    /// destination. Fewer is cheaper per node, more prunes more. Default 4.
    public var activeLandmarkCount: Int = 4

    public init() {}
}
