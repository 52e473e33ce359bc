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

    public init(matcher: MapMatcher) { self.matcher = matcher }

    public convenience init(index: RoadGeometryIndex, mode: TravelMode = .driving,
                            configuration: MapMatchingConfiguration = MapMatchingConfiguration()) {
        self.init(matcher: MapMatcher(index: index, mode: mode, configuration: configuration))
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
        let update = matcher.update(LocationFix(
            coordinate: fix.coordinate, timestamp: fix.timestamp.timeIntervalSince1970, altitudeMeters: fix.altitudeMeters,
            speedMetersPerSecond: fix.speedMetersPerSecond, courseDegrees: fix.courseDegrees,
            horizontalAccuracyMeters: fix.horizontalAccuracyMeters))
        let s = update.provisional
        var match: RouteMatch?
        var onRoute = false
        if let leg = activeLeg {
            let from = leg.progressMeters - windowBehindMeters, to = leg.progressMeters + windowAheadMeters
            match = leg.project(fix.coordinate, fromMeters: from, toMeters: to)
            if s.matched, s.isOnRoute, let onLeg = leg.project(s.coordinate, fromMeters: from, toMeters: to),
               onLeg.distanceFromRouteMeters < 1
            {
                // Along-route position from the snapped point; distance from the route from the raw fix.
                match = RouteMatch(edgeIndex: onLeg.edgeIndex, edge: onLeg.edge, offsetOnEdgeMeters: onLeg.offsetOnEdgeMeters,
                                   distanceAlongLegMeters: onLeg.distanceAlongLegMeters, point: onLeg.point,
                                   distanceFromRouteMeters: match?.distanceFromRouteMeters ?? 0,
                                   routeBearingDegrees: onLeg.routeBearingDegrees)
                onRoute = true
            }
        }
        guard s.matched, let edge = s.edge else {
            return SnappedFix(fix: fix, coordinate: fix.coordinate, edge: nil, offsetOnEdgeMeters: 0, isOnRoute: false,
                              routeMatch: match, courseDegrees: nil, speedMetersPerSecond: fix.speedMetersPerSecond,
                              speedLimitKph: nil, osmWayID: nil, roadName: nil)
        }
        return SnappedFix(
            fix: fix, coordinate: s.coordinate, edge: edge, offsetOnEdgeMeters: s.edgeOffsetMeters, isOnRoute: onRoute,
            routeMatch: match, courseDegrees: s.courseDegrees >= 0 ? s.courseDegrees : nil,
            speedMetersPerSecond: s.speedMetersPerSecond >= 0 ? s.speedMetersPerSecond : nil, speedLimitKph: s.speedLimitKph,
            osmWayID: s.osmWayID, roadName: s.roadName)
    }
}
