import Foundation
import Geo
import Routing

/// One leg of the active route as reported in events and by `Navigator.routeLegs`.
public struct RouteLegSummary: Sendable, Hashable, Codable {
    /// The waypoint this leg ends at.
    public var destination: ResolvedWaypoint
    /// The end of the road leg (the waypoint snapped to the road; not always the waypoint itself).
    public var destinationCoordinate: Coordinate
    public var distanceMeters: Double
    /// Traffic-aware travel time including the junction and signal delays, seconds.
    public var durationSeconds: Double
    /// (latitude, longitude) points from the leg's start to its end.
    public var geometry: [Coordinate]
}

/// `didArriveAtWaypoint`: once per waypoint.
public struct ArrivalEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    public var waypoint: ResolvedWaypoint
    /// Destinations after this one still to visit.
    public var remainingWaypoints: Int
    /// The road-snapped vehicle position when arrival was decided.
    public var vehicleCoordinate: Coordinate
}

/// `didChangeRoute`, with EdgeNav's reason.
public struct RouteChangedEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    public var reason: RouteChangeReason
    public var routeStatus: RouteStatus
    /// Index (in the `setDestinations` list) of the waypoint the current leg leads to; nil without a route.
    public var currentLegIndex: Int?
    /// Sums over `legs`.
    public var distanceMeters: Double
    public var durationSeconds: Double
    public var legs: [RouteLegSummary]
}

/// `didUpdateRemainingTime` (to the next destination).
public struct RemainingTimeEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    public var remainingSeconds: Double
    /// Also carried so one `nav/eta` payload can be built from either event.
    public var remainingMeters: Double
    public var waypointIndex: Int
    /// Estimated time of arrival: the fix time plus the remaining time.
    public var eta: Date { timestamp.addingTimeInterval(remainingSeconds) }
}

/// `didUpdateRemainingDistance` (to the next destination).
public struct RemainingDistanceEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    public var remainingMeters: Double
    public var remainingSeconds: Double
    public var waypointIndex: Int
    public var eta: Date { timestamp.addingTimeInterval(remainingSeconds) }
}

/// `didUpdateDelayCategory`.
public struct DelayCategoryEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    public var category: DelayCategory
    public var code: Int { category.rawValue }
}

/// `didChangeSuggestedLightingMode`.
public struct LightingEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    public var mode: LightingMode
    public var sunElevationDegrees: Double
}

/// `didUpdateSpeedingPercentage` together with the speed alert severity.
public struct SpeedingEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    /// Percent above the limit; 0 when not speeding; -1 when speed or limit is unknown.
    public var percentageAboveLimit: Double
    public var severity: SpeedAlertSeverity
    /// nil when unknown.
    public var speedKph: Double?
    public var speedLimitKph: Double?
    public var osmWayID: Int64?
}

/// The road-snapped location provider's `didUpdateLocation`.
public struct SnappedLocationEvent: Sendable, Hashable, Codable {
    public var timestamp: Date
    public var coordinate: Coordinate
    /// nil when unknown (the SDK reports NaN).
    public var altitudeMeters: Double?
    /// Direction of the road travelled, degrees; nil when unknown (the SDK reports -1).
    public var courseDegrees: Double?
    /// metres per second; nil when unknown (the SDK reports -1).
    public var speedMetersPerSecond: Double?
    public var horizontalAccuracyMeters: Double?
    public var osmWayID: Int64?
    public var roadName: String?
    public var isOnRoute: Bool

    /// The SDK's encodings of unavailable values.
    public var sdkCourseDegrees: Double { courseDegrees ?? -1 }
    public var sdkSpeedMetersPerSecond: Double { speedMetersPerSecond ?? -1 }
    public var sdkAltitudeMeters: Double { altitudeMeters ?? .nan }
}

/// Everything the navigator reports, in the order it happened. Within one input the order is fixed:
/// location, route change, arrival, remaining time, remaining distance, delay category, speeding, lighting.
public enum NavigationEvent: Sendable, Hashable, Codable {
    case location(SnappedLocationEvent)
    case routeChanged(RouteChangedEvent)
    case arrival(ArrivalEvent)
    case remainingTime(RemainingTimeEvent)
    case remainingDistance(RemainingDistanceEvent)
    case delayCategory(DelayCategoryEvent)
    case speeding(SpeedingEvent)
    case lighting(LightingEvent)

    /// The time of the fix or input that caused the event.
    public var timestamp: Date {
        switch self {
        case .location(let e): e.timestamp
        case .routeChanged(let e): e.timestamp
        case .arrival(let e): e.timestamp
        case .remainingTime(let e): e.timestamp
        case .remainingDistance(let e): e.timestamp
        case .delayCategory(let e): e.timestamp
        case .speeding(let e): e.timestamp
        case .lighting(let e): e.timestamp
        }
    }
}
