import Foundation
import Geo
import RoadGraph
import Routing

/// A raw fix placed on the road network: what the road-snapped location provider reports, and what drives
/// progress, arrival, off-route detection and speeding.
public struct SnappedFix: Sendable, Hashable {
    /// The fix this was snapped from (timestamp, accuracy, altitude, raw speed and course).
    public var fix: RawFix
    /// The position on the road (the raw coordinate when no road was found).
    public var coordinate: Coordinate
    /// The directed road edge, nil when no road is near.
    public var edge: EdgeID?
    /// Along `edge` from its source node, metres.
    public var offsetOnEdgeMeters: Double
    /// The matcher's verdict: the vehicle is on the active leg. False without a route.
    public var isOnRoute: Bool
    /// The fix projected onto the active leg (also when off it: `distanceFromRouteMeters` says how far).
    public var routeMatch: RouteMatch?
    /// The raw fix itself projected onto the active leg (`routeMatch` may come from a matched position that runs
    /// ahead of or behind the fix); nil without a leg. Arrival needs both to agree.
    public var rawRouteMatch: RouteMatch?
    /// Direction of the road at `coordinate` in the travel direction, degrees; nil when unknown.
    public var courseDegrees: Double?
    /// metres per second: the fix's speed, or a matcher estimate; nil when unknown.
    public var speedMetersPerSecond: Double?
    /// The edge's legal limit, km/h; nil when unknown.
    public var speedLimitKph: Double?
    public var osmWayID: Int64?
    public var roadName: String?
    /// The matcher's log-odds (natural log) that the vehicle is on the active leg rather than on another road,
    /// accumulated over the fixes so far (`MapMatching.MatchUpdate.routeLogOdds`): positive = on the leg. Nil when
    /// the provider has no such model (the nearest-road snapper) or no leg is active.
    public var routeLogOdds: Double?

    public var timestamp: Date { fix.timestamp }
    public var horizontalAccuracyMeters: Double? { fix.horizontalAccuracyMeters }
    /// Distance along the active leg, metres, when on it.
    public var distanceAlongRouteMeters: Double? { isOnRoute ? routeMatch?.distanceAlongLegMeters : nil }

    public init(
        fix: RawFix, coordinate: Coordinate, edge: EdgeID?, offsetOnEdgeMeters: Double, isOnRoute: Bool,
        routeMatch: RouteMatch?, rawRouteMatch: RouteMatch? = nil, courseDegrees: Double?,
        speedMetersPerSecond: Double?, speedLimitKph: Double?, osmWayID: Int64?, roadName: String?,
        routeLogOdds: Double? = nil
    ) {
        self.fix = fix
        self.coordinate = coordinate
        self.edge = edge
        self.offsetOnEdgeMeters = offsetOnEdgeMeters
        self.isOnRoute = isOnRoute
        self.routeMatch = routeMatch
        self.rawRouteMatch = rawRouteMatch
        self.courseDegrees = courseDegrees
        self.speedMetersPerSecond = speedMetersPerSecond
        self.speedLimitKph = speedLimitKph
        self.osmWayID = osmWayID
        self.roadName = roadName
        self.routeLogOdds = routeLogOdds
    }
}

/// The road-snapped location provider as the navigator sees it: raw fixes in, positions on the road out. The
/// navigator passes the active leg so a matcher can prefer it and report `isOnRoute`. Implementations keep state
/// between fixes (an online matcher does), hence a class protocol; `reset()` forgets it (new trip, clear).
public protocol RoadSnappingProvider: AnyObject {
    func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix
    func reset()
}

/// Thresholds of `NearestRoadSnapper`.
public struct NearestRoadSnapperConfiguration: Sendable, Hashable {
    /// A fix within this of the active leg (and not heading against it) is on the route. Default 25 m
    /// (3 σ of the perpendicular error for σ = 8 m GPS noise).
    public var routeCorridorMeters: Double = 25
    /// Roads farther than this from the fix are not considered. Default 60 m.
    public var searchRadiusMeters: Double = 60
    /// The fix's course counts only at or above this speed (GPS course is noise when standing). Default 3 m/s.
    public var minimumSpeedForCourseMetersPerSecond: Double = 3
    /// A course differing from the road direction by more than this contradicts the road. Default 60°.
    public var courseToleranceDegrees: Double = 60
    /// Metres added to a candidate's distance when the course contradicts its direction. Default 40 m.
    public var courseMismatchPenaltyMeters: Double = 40
    /// The leg is searched from this far behind the progress estimate … Default 60 m.
    public var windowBehindMeters: Double = 60
    /// … to this far ahead of it, then (only when that finds nothing near) over the whole rest of the leg. Default 600 m.
    public var windowAheadMeters: Double = 600
    public init() {}
}

/// The baseline road-snapping provider: the active leg when the fix lies within its corridor and does not head
/// against it, otherwise the nearest road whose direction agrees with the fix's course. No transition model and
/// no memory: it is what the navigator falls back to without the HMM map matcher, and what the unit tests use.
public final class NearestRoadSnapper: RoadSnappingProvider {
    public let graph: RoadGraph
    public let mode: TravelMode
    public var configuration: NearestRoadSnapperConfiguration

    public init(
        graph: RoadGraph, mode: TravelMode = .driving,
        configuration: NearestRoadSnapperConfiguration = NearestRoadSnapperConfiguration()
    ) {
        self.graph = graph
        self.mode = mode
        self.configuration = configuration
    }

    public func reset() {}

    private func usableCourse(_ fix: RawFix) -> Double? {
        guard let course = fix.courseDegrees, course >= 0,
            let speed = fix.speedMetersPerSecond, speed >= configuration.minimumSpeedForCourseMetersPerSecond
        else { return nil }
        return course
    }

    public func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
        let course = usableCourse(fix)
        var match: RouteMatch?
        if let route = activeLeg {
            let c = configuration
            match = route.locate(
                fix.coordinate, courseDegrees: course, behindMeters: c.windowBehindMeters,
                aheadMeters: c.windowAheadMeters)
            if let m = match, m.distanceFromRouteMeters > c.routeCorridorMeters,
                let wide = route.project(
                    fix.coordinate, fromMeters: route.progressMeters - c.windowBehindMeters, courseDegrees: course),
                wide.distanceFromRouteMeters < m.distanceFromRouteMeters
            {
                match = wide
            }
            if let m = match, m.distanceFromRouteMeters <= c.routeCorridorMeters,
                course.map({
                    route.courseAgrees(
                        $0, atDistance: m.distanceAlongLegMeters, toleranceDegrees: c.courseToleranceDegrees)
                })
                    ?? true
            {
                return SnappedFix(
                    fix: fix, coordinate: m.point, edge: m.edge, offsetOnEdgeMeters: m.offsetOnEdgeMeters,
                    isOnRoute: true, routeMatch: m, rawRouteMatch: m, courseDegrees: m.routeBearingDegrees,
                    speedMetersPerSecond: fix.speedMetersPerSecond, speedLimitKph: graph.speedLimitKph(of: m.edge),
                    osmWayID: graph.osmWayID(of: m.edge), roadName: graph.name(of: m.edge))
            }
        }
        let candidates = graph.nearestEdges(
            to: fix.coordinate, mode: mode, radiusMeters: configuration.searchRadiusMeters,
            limit: 8)
        var best: (snap: EdgeSnap, bearing: Double, score: Double)?
        for snap in candidates {
            let bearing = edgeBearing(snap.edge, offsetMeters: snap.offsetMeters)
            var score = snap.distanceMeters
            if let course, Geodesy.bearingDifferenceDegrees(course, bearing) > configuration.courseToleranceDegrees {
                score += configuration.courseMismatchPenaltyMeters
            }
            if best == nil || score < best!.score { best = (snap, bearing, score) }
        }
        guard let best else {
            return SnappedFix(
                fix: fix, coordinate: fix.coordinate, edge: nil, offsetOnEdgeMeters: 0, isOnRoute: false,
                routeMatch: match, rawRouteMatch: match, courseDegrees: nil, speedMetersPerSecond: fix.speedMetersPerSecond,
                speedLimitKph: nil, osmWayID: nil, roadName: nil)
        }
        let e = best.snap.edge
        return SnappedFix(
            fix: fix, coordinate: best.snap.point, edge: e, offsetOnEdgeMeters: best.snap.offsetMeters,
            isOnRoute: false,
            routeMatch: match, rawRouteMatch: match, courseDegrees: best.bearing, speedMetersPerSecond: fix.speedMetersPerSecond,
            speedLimitKph: graph.speedLimitKph(of: e), osmWayID: graph.osmWayID(of: e), roadName: graph.name(of: e))
    }

    /// Direction of `edge` at an offset along it, degrees.
    private func edgeBearing(_ edge: EdgeID, offsetMeters: Double) -> Double {
        let points = graph.geometry(of: edge)
        var along = 0.0
        for i in 1..<points.count {
            let d = Geodesy.distanceMeters(points[i - 1], points[i])
            if along + d >= offsetMeters && d > 0 || i == points.count - 1 {
                return Geodesy.initialBearingDegrees(from: points[i - 1], to: points[i])
            }
            along += d
        }
        return 0
    }
}
