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
    /// When the matcher holds the vehicle on an edge of the leg whose only passes lie beyond the search window ahead,
    /// both projections are made on the first such pass instead (`legPassBeyondWindow`). Default true.
    public var followsMatcherOntoLegBeyondWindow = true
    /// … the raw fix is projected within this of that pass, metres (a fix lies up to `maximumRawDistanceMeters` off
    /// the road and as far along it). Default 100 m.
    public var passRawMarginMeters: Double = 100

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

    /// The first pass of the leg over `edge` (metres along the leg, from its start to its end) lying wholly beyond
    /// the search window ahead of the progress estimate; nil when a pass overlaps the window (the windowed search
    /// finds the vehicle there) or none lies ahead of it.
    func legPassBeyondWindow(of edge: EdgeID, in leg: ActiveLeg) -> ClosedRange<Double>? {
        let windowStart =
            leg.progressMeters - windowBehindMeters - leg.progressSlackBehindMeters - leg.progressReachBehindMeters
        let windowEnd = leg.progressMeters + windowAheadMeters + leg.progressSlackMeters
        let edges = leg.leg.edges
        var first: ClosedRange<Double>?
        for (i, e) in edges.enumerated() where e == edge {
            let start = leg.edgeStartMeters[i]
            let end = max(start, i + 1 < edges.count ? leg.edgeStartMeters[i + 1] : leg.lengthMeters)
            if end >= windowStart && start <= windowEnd { return nil }
            if start > windowEnd && first == nil { first = start...end }
        }
        return first
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
            // The matcher holds the vehicle on the leg, but only on a pass the window around the progress estimate
            // does not reach: the vehicle joined its leg farther on by a way the router would not take (SUMO, which
            // ignores barrier nodes, drove Liechtenstein seed 17 probe4 through a bollard onto the last 140 m of a
            // 1.3 km leg planned round it). Projected in the window, every fix was off the leg while the matcher,
            // sure of the route, vetoed the reroute (`offRouteVetoLogOdds`): no progress, no remaining time and no
            // arrival for the last 19 s. Projected on that pass, the progress filter follows the vehicle there
            // (`NavigatorConfiguration.progressFollowsDrivingOnAhead`).
            let pass = followsMatcherOntoLegBeyondWindow && s.matched && s.isOnRoute
                ? s.edge.flatMap { legPassBeyondWindow(of: $0, in: leg) } : nil
            let raw =
                pass.map {
                    leg.project(
                        fix.coordinate, fromMeters: $0.lowerBound - passRawMarginMeters,
                        toMeters: $0.upperBound + passRawMarginMeters, courseDegrees: movingCourse)
                }
                ?? leg.locate(
                    fix.coordinate, courseDegrees: movingCourse, behindMeters: windowBehindMeters,
                    aheadMeters: windowAheadMeters)
            match = raw
            rawMatch = raw
            let snapped =
                !s.matched ? nil
                : pass.map {
                    leg.project(
                        s.coordinate, fromMeters: $0.lowerBound - 2 * onRouteToleranceMeters,
                        toMeters: $0.upperBound + 2 * onRouteToleranceMeters, courseDegrees: movingCourse)
                }
                ?? leg.locate(
                    s.coordinate, courseDegrees: movingCourse, behindMeters: windowBehindMeters,
                    aheadMeters: windowAheadMeters)
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
