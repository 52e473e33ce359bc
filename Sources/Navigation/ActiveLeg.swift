import Foundation
import Geo
import RoadGraph
import Routing

/// Where a position lies on the active leg.
public struct RouteMatch: Sendable, Hashable {
    /// Index into the leg's `edges`.
    public var edgeIndex: Int
    public var edge: EdgeID
    /// Offset along `edge` from its source node, metres.
    public var offsetOnEdgeMeters: Double
    /// Distance along the leg from its start, metres.
    public var distanceAlongLegMeters: Double
    /// The closest point of the leg's geometry.
    public var point: Coordinate
    /// From the raw fix to `point`, metres.
    public var distanceFromRouteMeters: Double
    /// Direction of the route at `point`, degrees clockwise from north.
    public var routeBearingDegrees: Double
}

/// The leg the navigator is guiding along, as handed to the road-snapping provider: the leg's geometry with
/// cumulative distances, where each route edge begins along it, and the navigator's current progress.
public struct ActiveLeg: Sendable {
    public let leg: RouteLeg
    /// (latitude, longitude) vertices of the leg, `leg.geometry`.
    public let points: [Coordinate]
    /// Distance along the leg at each vertex, metres; the last is the leg's length.
    public let cumulativeMeters: [Double]
    /// Distance along the leg where the used part of `leg.edges[i]` begins, metres.
    public let edgeStartMeters: [Double]
    /// The navigator's estimate of the vehicle's distance along the leg, metres (a hint for windowed searches).
    public internal(set) var progressMeters: Double = 0
    /// How far the vehicle may be beyond `progressMeters` unseen, metres: 0 while fixes come every second, growing
    /// with the time since the last accepted position (a tunnel, sparse fixes). Windowed searches widen by it.
    public internal(set) var progressSlackMeters: Double = 0
    /// How far the vehicle may be short of `progressMeters`, metres: 0 when the fix carries its own speed (the hint
    /// advances at it), else how far the hint was carried past the last accepted position on the filter's speed
    /// alone (a vehicle that braked to a stop unseen by any speed field is still there). Windowed searches reach
    /// back by it, so that the hint running ahead of a standing vehicle does not lose it.
    public internal(set) var progressSlackBehindMeters: Double = 0
    /// How much farther back the window reaches after a gap for a fix with its own speed, metres (the vehicle may
    /// have slowed unseen), without widening the along-leg tolerance behind `progressMeters`: a leg that comes back
    /// past an earlier stretch must not have that pass preferred for being near in distance.
    public internal(set) var progressReachBehindMeters: Double = 0

    public var lengthMeters: Double { cumulativeMeters.last ?? 0 }

    public init(leg: RouteLeg, graph: RoadGraph) {
        self.leg = leg
        points = leg.geometry
        var sums = [0.0]
        sums.reserveCapacity(points.count)
        var total = 0.0
        for i in 1..<max(points.count, 1) {
            total += Geodesy.distanceMeters(points[i - 1], points[i])
            sums.append(total)
        }
        cumulativeMeters = sums
        // Edge portions from the graph's lengths, rescaled to the geometry's length so both agree.
        var starts: [Double] = []
        var along = 0.0
        let last = leg.edges.count - 1
        var portions: [Double] = []
        for (i, e) in leg.edges.enumerated() {
            let length = graph.lengthMeters(of: e)
            let from = i == 0 ? leg.start.offsetMeters : 0
            let to = i == last ? leg.end.offsetMeters : length
            portions.append(max(0, to - from))
        }
        let portionSum = portions.reduce(0, +)
        let scale = portionSum > 0 ? total / portionSum : 0
        for p in portions {
            starts.append(along)
            along += p * scale
        }
        edgeStartMeters = starts
    }

    /// Index of the route edge that contains `distanceAlongLegMeters`.
    public func edgeIndex(atDistance distance: Double) -> Int {
        guard edgeStartMeters.count > 1 else { return 0 }
        var lo = 0, hi = edgeStartMeters.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if edgeStartMeters[mid] <= distance { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The end of the route edge `index` along the leg, metres.
    public func edgeEndMeters(_ index: Int) -> Double {
        index + 1 < edgeStartMeters.count ? edgeStartMeters[index + 1] : lengthMeters
    }

    /// Offset along the graph edge at a distance along the leg.
    func offsetOnEdge(index: Int, distance: Double) -> Double {
        let base = index == 0 ? leg.start.offsetMeters : 0
        return base + max(0, distance - edgeStartMeters[index])
    }

    /// The vertex index of the segment containing `distance`.
    private func segmentIndex(atDistance distance: Double) -> Int {
        guard cumulativeMeters.count > 2 else { return 0 }
        var lo = 0, hi = cumulativeMeters.count - 2
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if cumulativeMeters[mid] <= distance { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The point of the leg `distance` metres from its start (clamped).
    public func point(atDistance distance: Double) -> Coordinate {
        guard points.count >= 2 else { return points.first ?? leg.end.point }
        let d = min(max(0, distance), lengthMeters)
        let s = segmentIndex(atDistance: d)
        let span = cumulativeMeters[s + 1] - cumulativeMeters[s]
        let t = span > 0 ? (d - cumulativeMeters[s]) / span : 0
        let a = points[s], b = points[s + 1]
        return Coordinate(
            latitude: a.latitude + (b.latitude - a.latitude) * t,
            longitude: a.longitude + (b.longitude - a.longitude) * t)
    }

    /// The leg's geometry between two distances along it (clamped): the interpolated end points and the vertices
    /// between them.
    public func subpath(fromMeters from: Double, toMeters to: Double) -> [Coordinate] {
        guard points.count >= 2 else { return points }
        let a = min(max(0, from), lengthMeters), b = min(max(a, to), lengthMeters)
        var path = [point(atDistance: a)]
        for i in points.indices where cumulativeMeters[i] > a && cumulativeMeters[i] < b { path.append(points[i]) }
        path.append(point(atDistance: b))
        return path
    }

    /// Direction of the leg at `distance` along it, degrees.
    public func bearing(atDistance distance: Double) -> Double {
        guard points.count >= 2 else { return 0 }
        var s = segmentIndex(atDistance: min(max(0, distance), lengthMeters))
        while s < points.count - 2 && points[s] == points[s + 1] { s += 1 }
        return Geodesy.initialBearingDegrees(from: points[s], to: points[s + 1])
    }

    /// Whether `course` agrees with the leg near `distance`: within `toleranceDegrees` of its direction there or
    /// `aroundMeters` before or after (so a vehicle turning with the route at a junction agrees on both sides).
    public func courseAgrees(
        _ course: Double, atDistance distance: Double, toleranceDegrees: Double,
        aroundMeters: Double = 15
    ) -> Bool {
        for d in [distance, distance - aroundMeters, distance + aroundMeters]
        where Geodesy.bearingDifferenceDegrees(course, bearing(atDistance: d)) <= toleranceDegrees {
            return true
        }
        return false
    }

    /// Where `coordinate` lies on the leg near the navigator's progress: the segments from `behindMeters` before
    /// `progressMeters` to `aheadMeters` (+ `progressSlackMeters`) after it, resolving a leg that passes the same
    /// place twice towards the pass nearest the progress and, for a moving vehicle, the pass whose direction
    /// agrees with `courseDegrees` (a leg that turns round at a dead end or after a waypoint runs both ways along
    /// one road; the raw position alone cannot tell the passes apart).
    public func locate(
        _ coordinate: Coordinate, courseDegrees: Double?, behindMeters: Double, aheadMeters: Double
    ) -> RouteMatch? {
        project(
            coordinate, fromMeters: progressMeters - behindMeters - progressSlackBehindMeters - progressReachBehindMeters,
            toMeters: progressMeters + aheadMeters + progressSlackMeters, near: progressMeters,
            nearToleranceMeters: 50 + progressSlackMeters + progressSlackBehindMeters,
            nearBehindToleranceMeters: progressReachBehindMeters > 0 ? 50 + progressSlackBehindMeters : nil,
            courseDegrees: courseDegrees)
    }

    /// Whether `course` agrees (within `toleranceDegrees`) with the direction of any segment of the leg overlapping
    /// `[distance - aroundMeters, distance + aroundMeters]`: stricter evidence of leaving than `courseAgrees` for a
    /// position whose distance along the leg is only known to a GPS error.
    public func courseAgreesAnywhere(
        _ course: Double, around distance: Double, aroundMeters: Double, toleranceDegrees: Double
    ) -> Bool {
        guard points.count >= 2 else { return true }
        let first = segmentIndex(atDistance: min(max(0, distance - aroundMeters), lengthMeters))
        let last = segmentIndex(atDistance: min(max(0, distance + aroundMeters), lengthMeters))
        for s in first...max(first, last) where points[s] != points[s + 1] {
            let bearing = Geodesy.initialBearingDegrees(from: points[s], to: points[s + 1])
            if Geodesy.bearingDifferenceDegrees(course, bearing) <= toleranceDegrees { return true }
        }
        return false
    }

    /// Closest point of the leg to `coordinate` among the segments overlapping
    /// `[fromMeters, toMeters]` along the leg; nil for an empty leg.
    ///
    /// With `near`, a leg that passes the same place twice (round a block, back on the other carriageway) is
    /// resolved towards the pass closest along the leg to `near`: a candidate's score is its distance plus
    /// `alongPenalty` × how far it lies more than `nearToleranceMeters` along the leg from `near`
    /// (`nearBehindToleranceMeters`, when given, for candidates before `near`).
    /// With `courseDegrees`, a segment heading more than 90° away from it scores `coursePenaltyMeters` worse.
    public func project(_ coordinate: Coordinate, fromMeters: Double = 0, toMeters: Double = .infinity,
                        near: Double? = nil, alongPenalty: Double = 0.2, nearToleranceMeters: Double = 50,
                        nearBehindToleranceMeters: Double? = nil,
                        courseDegrees: Double? = nil, coursePenaltyMeters: Double = 40) -> RouteMatch? {
        guard !points.isEmpty else { return nil }
        if points.count == 1 {
            return RouteMatch(
                edgeIndex: 0, edge: leg.edges.first ?? 0, offsetOnEdgeMeters: leg.start.offsetMeters,
                distanceAlongLegMeters: 0, point: points[0],
                distanceFromRouteMeters: Geodesy.distanceMeters(coordinate, points[0]),
                routeBearingDegrees: 0)
        }
        let first = segmentIndex(atDistance: max(0, fromMeters))
        let last = toMeters >= lengthMeters ? points.count - 2 : segmentIndex(atDistance: toMeters)
        // The segments are compared in one equirectangular frame around the fix (the same frame and fraction as
        // `PolylineGeometry.project`, set up once instead of per segment, and the planar distance instead of a
        // haversine per segment: the two differ by millimetres at these distances); the winner is projected exactly.
        // Per fix this ran over dozens of segments: 17 % of the navigator's step on Helsinki went to it.
        let frame = LocalProjection(origin: coordinate)
        var winner: (segment: Int, fraction: Double, score: Double)?
        var (bx, by) = frame.project(points[first])
        for s in first...max(first, last) {
            let (ax, ay) = (bx, by)
            (bx, by) = frame.project(points[s + 1])
            let dx = bx - ax, dy = by - ay
            let len2 = dx * dx + dy * dy
            let t = len2 > 0 ? min(1, max(0, (-ax * dx - ay * dy) / len2)) : 0
            let qx = ax + t * dx, qy = ay + t * dy
            var score = (qx * qx + qy * qy).squareRoot()
            if let near {
                let along = cumulativeMeters[s] + (cumulativeMeters[s + 1] - cumulativeMeters[s]) * t
                let tolerance = along < near ? nearBehindToleranceMeters ?? nearToleranceMeters : nearToleranceMeters
                score += alongPenalty * max(0, abs(along - near) - tolerance)
            }
            // The bearing only matters for a segment that would otherwise win (saves the trigonometry).
            if let w = winner, score >= w.score { continue }
            if let courseDegrees, points[s] != points[s + 1],
                Geodesy.bearingDifferenceDegrees(
                    courseDegrees, Geodesy.initialBearingDegrees(from: points[s], to: points[s + 1])) > 90
            {
                score += coursePenaltyMeters
            }
            if winner == nil || score < winner!.score { winner = (s, t, score) }
        }
        guard let winner else { return nil }
        let s = winner.segment
        let projection = PolylineGeometry.project(coordinate, ontoSegment: points[s], points[s + 1])
        let along = cumulativeMeters[s] + (cumulativeMeters[s + 1] - cumulativeMeters[s]) * projection.fraction
        var bearingSegment = s
        while bearingSegment < points.count - 2 && points[bearingSegment] == points[bearingSegment + 1] {
            bearingSegment += 1
        }
        let index = edgeIndex(atDistance: along)
        return RouteMatch(
            edgeIndex: index, edge: leg.edges.isEmpty ? 0 : leg.edges[index],
            offsetOnEdgeMeters: leg.edges.isEmpty ? 0 : offsetOnEdge(index: index, distance: along),
            distanceAlongLegMeters: along, point: projection.point,
            distanceFromRouteMeters: projection.distanceMeters,
            routeBearingDegrees: Geodesy.initialBearingDegrees(
                from: points[bearingSegment], to: points[bearingSegment + 1]))
    }
}
