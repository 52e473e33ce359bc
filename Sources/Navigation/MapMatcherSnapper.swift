import Foundation
import Geo
import MapMatching
import RoadGraph
import Routing

/// The road-snapping provider backed by `MapMatching.MapMatcher` (online HMM with route awareness): the production
/// provider. The navigator uses each fix's provisional answer (the fixed-lag decisions arrive later and are not
/// needed for guidance). The matcher is told the current leg's edges whenever the leg changes.
public final class MapMatcherSnapper: RoadSnappingProvider {
    public let matcher: MapMatcher
    /// The leg whose edges the matcher was last given.
    private var routeEdges: [EdgeID] = []
    /// Search window along the leg for the route projection, behind and ahead of the progress estimate, metres.
    public var windowBehindMeters: Double = 60
    public var windowAheadMeters: Double = 600
    /// The snapped point within this of the leg counts as on it. Default 10 m.
    public var onRouteToleranceMeters: Double = 10
    /// The raw fix within this of the leg counts as on it (2.5 σ of the perpendicular error for σ = 8 m, so three
    /// fixes in a row beyond it by noise alone are one in a million). Default 20 m.
    public var rawCorridorMeters: Double = 20
    /// Beyond this the raw fix is off the leg whatever the matcher says. Default 40 m (5 σ).
    public var maximumRawDistanceMeters: Double = 40
    /// When the matcher says on route, the raw fix may be this far from the leg. Default 30 m.
    public var routeCorridorMeters: Double = 30
    /// A moving vehicle's course more than this off the leg's direction is not on it. Default 60°.
    public var courseToleranceDegrees: Double = 60
    /// … counted from this speed up (crawling through a junction the course swings with every step). Default 4 m/s.
    public var minimumSpeedForCourseMetersPerSecond: Double = 4

    public init(matcher: MapMatcher) { self.matcher = matcher }

    /// `searchScratch`: see `MapMatcher.init` (share one per thread among many vehicles' snappers). The default
    /// configuration keeps the matcher's short lag: the navigator reads only the provisional answers.
    public convenience init(
        index: RoadGeometryIndex, mode: TravelMode = .driving,
        configuration: MapMatchingConfiguration = .provisionalOnly, searchScratch: RoadSearchScratch? = nil
    ) {
        self.init(matcher: MapMatcher(index: index, mode: mode, configuration: configuration,
                                      searchScratch: searchScratch))
    }

    public func reset() {
        matcher.reset()
    }

    public func snap(_ fix: RawFix, activeLeg: ActiveLeg?) -> SnappedFix {
        let edges = activeLeg?.leg.edges ?? []
        if edges != routeEdges {
            matcher.setRoute(edges: edges)
            routeEdges = edges
        }
        let update = matcher.update(
            LocationFix(
                coordinate: fix.coordinate, timestamp: fix.timestamp.timeIntervalSince1970,
                altitudeMeters: fix.altitudeMeters,
                speedMetersPerSecond: fix.speedMetersPerSecond, courseDegrees: fix.courseDegrees,
                horizontalAccuracyMeters: fix.horizontalAccuracyMeters))
        let s = update.provisional
        var match: RouteMatch?
        var rawMatch: RouteMatch?
        var onRoute = false
        if let leg = activeLeg {
            let movingCourse = fix.courseDegrees.flatMap { course in
                (fix.speedMetersPerSecond ?? 0) >= minimumSpeedForCourseMetersPerSecond && course >= 0 ? course : nil
            }
            let raw = leg.locate(
                fix.coordinate, courseDegrees: movingCourse, behindMeters: windowBehindMeters,
                aheadMeters: windowAheadMeters)
            match = raw
            rawMatch = raw
            let snapped =
                s.matched
                ? leg.locate(
                    s.coordinate, courseDegrees: movingCourse, behindMeters: windowBehindMeters,
                    aheadMeters: windowAheadMeters) : nil
            // The matcher's edge flickers between the route and crossing roads at junctions, and it coasts on a
            // wrong road while the vehicle stands, so "on the route" is decided on geometry: the snapped point or
            // the raw fix lies on the leg (or the matcher says so and the fix is within the corridor), and a
            // moving vehicle's course does not contradict the leg's direction around that point.
            let rawDistance = raw?.distanceFromRouteMeters ?? .infinity
            let snappedDistance = snapped?.distanceFromRouteMeters ?? .infinity
            // A fix far from the leg is off it even when the matcher coasts along the route (it treats a few far
            // fixes as outliers): the navigator's hysteresis, not the matcher's, decides whether they are.
            let near =
                (snappedDistance <= onRouteToleranceMeters && rawDistance <= maximumRawDistanceMeters)
                || rawDistance <= rawCorridorMeters || (s.isOnRoute && rawDistance <= routeCorridorMeters)
            let best = snappedDistance <= onRouteToleranceMeters ? snapped : raw
            var contradicts = false
            if let best, let course = fix.courseDegrees, course >= 0, let speed = fix.speedMetersPerSecond,
                speed >= minimumSpeedForCourseMetersPerSecond, rawDistance > onRouteToleranceMeters / 2
            {
                contradicts = !leg.courseAgrees(
                    course, atDistance: best.distanceAlongLegMeters,
                    toleranceDegrees: courseToleranceDegrees)
            }
            if near && !contradicts, let best {
                // Along-route position from the best point; distance from the route from the raw fix.
                var m = best
                m.distanceFromRouteMeters = rawDistance.isFinite ? rawDistance : 0
                match = m
                onRoute = true
            }
        }
        guard s.matched, let edge = s.edge else {
            return SnappedFix(
                fix: fix, coordinate: fix.coordinate, edge: nil, offsetOnEdgeMeters: 0, isOnRoute: false,
                routeMatch: match, rawRouteMatch: rawMatch, courseDegrees: nil, speedMetersPerSecond: fix.speedMetersPerSecond,
                speedLimitKph: nil, osmWayID: nil, roadName: nil,
                routeLogOdds: activeLeg == nil ? nil : update.routeLogOdds)
        }
        return SnappedFix(
            fix: fix, coordinate: s.coordinate, edge: edge, offsetOnEdgeMeters: s.edgeOffsetMeters, isOnRoute: onRoute,
            routeMatch: match, rawRouteMatch: rawMatch, courseDegrees: s.courseDegrees >= 0 ? s.courseDegrees : nil,
            speedMetersPerSecond: s.speedMetersPerSecond >= 0 ? s.speedMetersPerSecond : nil,
            speedLimitKph: s.speedLimitKph,
            osmWayID: s.osmWayID, roadName: s.roadName, routeLogOdds: activeLeg == nil ? nil : update.routeLogOdds)
    }
}
