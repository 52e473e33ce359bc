import Foundation
import Geo
import RoadGraph
import Routing

/// One raw position from the GPS (or the location simulator). Time comes only from `timestamp`: the navigator
/// never reads a clock, so a trace replayed at any speed gives the same events.
public struct RawFix: Sendable, Hashable, Codable {
    /// (latitude, longitude), WGS84 degrees.
    public var coordinate: Coordinate
    /// When the position was measured.
    public var timestamp: Date
    /// Radius of 68 % confidence, metres; nil when the receiver does not say.
    public var horizontalAccuracyMeters: Double?
    /// Metres above the WGS84 ellipsoid; nil when unknown (the SDK reports NaN).
    public var altitudeMeters: Double?
    /// Direction of travel, degrees clockwise from north (0..<360); nil when unknown (the SDK reports -1).
    public var courseDegrees: Double?
    /// Ground speed, metres per second; nil when unknown (the SDK reports -1).
    public var speedMetersPerSecond: Double?

    public init(
        coordinate: Coordinate, timestamp: Date, horizontalAccuracyMeters: Double? = nil, altitudeMeters: Double? = nil,
        courseDegrees: Double? = nil, speedMetersPerSecond: Double? = nil
    ) {
        self.coordinate = coordinate
        self.timestamp = timestamp
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.altitudeMeters = altitudeMeters
        self.courseDegrees = courseDegrees
        self.speedMetersPerSecond = speedMetersPerSecond
    }
}

/// A destination as the caller gives it, mirroring `GMSNavigationWaypoint`: by coordinate or by place id.
public struct NavigationWaypoint: Sendable, Hashable, Codable {
    public enum Location: Sendable, Hashable, Codable {
        /// (latitude, longitude), WGS84 degrees.
        case coordinate(Coordinate)
        /// A place id resolved through the navigator's `PlaceResolving` lookup.
        case placeID(String)
    }

    public var location: Location
    public var title: String
    /// Arrive on the side of the road the waypoint lies on. Excludes `preferredHeadingDegrees`. Default false.
    public var preferSameSideOfRoad: Bool
    /// Arrive travelling in this direction, degrees 0...360 clockwise from north; nil = unset (the SDK's -1).
    public var preferredHeadingDegrees: Double?

    public init(
        coordinate: Coordinate, title: String = "", preferSameSideOfRoad: Bool = false,
        preferredHeadingDegrees: Double? = nil
    ) {
        self.location = .coordinate(coordinate)
        self.title = title
        self.preferSameSideOfRoad = preferSameSideOfRoad
        self.preferredHeadingDegrees = preferredHeadingDegrees
    }

    public init(
        placeID: String, title: String = "", preferSameSideOfRoad: Bool = false,
        preferredHeadingDegrees: Double? = nil
    ) {
        self.location = .placeID(placeID)
        self.title = title
        self.preferSameSideOfRoad = preferSameSideOfRoad
        self.preferredHeadingDegrees = preferredHeadingDegrees
    }

    public var placeID: String? {
        if case .placeID(let id) = location { return id }
        return nil
    }
}

/// Resolves place ids to coordinates (the caller's geocoder or address book). nil = unknown place.
public protocol PlaceResolving: Sendable {
    func coordinate(forPlaceID placeID: String) -> Coordinate?
}

/// A destination after place resolution: what events and `routeLegs` report.
public struct ResolvedWaypoint: Sendable, Hashable, Codable {
    /// Position in the list given to the last `setDestinations` (0-based); stable across
    /// `continueToNextDestination` so the agent can name the waypoint a job refers to.
    public var index: Int
    public var waypoint: NavigationWaypoint
    /// The waypoint's own coordinate (the resolved one for place ids).
    public var coordinate: Coordinate

    public var title: String { waypoint.title }
    public var placeID: String? { waypoint.placeID }
}

/// Why the route changed (the SDK gives no reason; EdgeNav adds one).
public enum RouteChangeReason: String, Sendable, Hashable, Codable, CaseIterable {
    case destinationsSet, offRoute, nextDestination, cleared, fasterRoute
}

/// Traffic delay to the next destination with the SDK's numeric codes.
public enum DelayCategory: Int, Sendable, Hashable, Codable, CaseIterable {
    case noData = 0, heavy = 1, medium = 2, light = 3

    public var name: String {
        switch self {
        case .noData: "noData"
        case .heavy: "heavy"
        case .medium: "medium"
        case .light: "light"
        }
    }
}

/// Suggested map lighting, with the SDK's codes: normal 0, lowLight 1.
public enum LightingMode: Int, Sendable, Hashable, Codable, CaseIterable {
    case normal = 0, lowLight = 1
    public var name: String { self == .normal ? "normal" : "lowLight" }
}

/// The SDK's speed alert severities; `unknown` when speed or limit is unavailable.
public enum SpeedAlertSeverity: String, Sendable, Hashable, Codable, CaseIterable {
    case unknown, notSpeeding, minor, major
}

/// `GMSNavigationSpeedAlertOptions`. Thresholds are fractions above the limit (0.1 = 10 % over).
///
/// Rules, as the SDK's: with only one threshold set the other severity never fires from thresholds; setting a minor
/// threshold above the major raises the major to match, and setting a major below the minor lowers the minor to
/// match; being above the minor threshold for longer than `severityUpgradeDurationSeconds` counts as major (only
/// when a minor threshold exists; it then applies even when no major threshold is set).
public struct SpeedAlertOptions: Sendable, Hashable, Codable {
    public var minorThreshold: Double? {
        didSet {
            if let minorThreshold, let majorThreshold, minorThreshold > majorThreshold {
                self.majorThreshold = minorThreshold
            }
        }
    }
    public var majorThreshold: Double? {
        didSet {
            if let minorThreshold, let majorThreshold, majorThreshold < minorThreshold {
                self.minorThreshold = majorThreshold
            }
        }
    }
    /// Seconds above the minor threshold after which the severity is major; nil = never upgrade.
    public var severityUpgradeDurationSeconds: Double?

    public init(
        minorThreshold: Double? = nil, majorThreshold: Double? = nil, severityUpgradeDurationSeconds: Double? = nil
    ) {
        self.minorThreshold = minorThreshold
        self.majorThreshold = majorThreshold
        if let minorThreshold, let majorThreshold, minorThreshold > majorThreshold {
            self.majorThreshold = minorThreshold
        }
        self.severityUpgradeDurationSeconds = severityUpgradeDurationSeconds
    }

    /// EdgeNav's default: minor at 10 % over, major at 20 % over (the SDK UI's +10/+20 km/h at 100 km/h), no upgrade.
    public static let standard = SpeedAlertOptions(minorThreshold: 0.10, majorThreshold: 0.20)
}

/// Options of one `setDestinations` call.
public struct DestinationOptions: Sendable, Hashable {
    /// Start guidance as soon as the route is found (the SDK needs a separate `isGuidanceActive = true`). Default true.
    public var startsGuidance: Bool = true
    public init(startsGuidance: Bool = true) { self.startsGuidance = startsGuidance }
}
