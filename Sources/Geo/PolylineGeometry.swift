import Foundation

/// The closest point of a segment to a query point.
public struct SegmentProjection: Sendable, Hashable {
    /// The closest point on the segment.
    public var point: Coordinate
    /// Position of `point` along the segment, 0 at its start, 1 at its end.
    public var fraction: Double
    /// Distance from the query point to `point`, metres.
    public var distanceMeters: Double

    public init(point: Coordinate, fraction: Double, distanceMeters: Double) {
        self.point = point
        self.fraction = fraction
        self.distanceMeters = distanceMeters
    }
}

/// The closest point of a whole polyline to a query point.
public struct PolylineProjection: Sendable, Hashable {
    public var point: Coordinate
    /// Index of the segment (from vertex `segmentIndex` to `segmentIndex + 1`).
    public var segmentIndex: Int
    /// Fraction along that segment, 0...1.
    public var fraction: Double
    /// Distance from the query point, metres.
    public var distanceMeters: Double
    /// Distance along the polyline from its first vertex to `point`, metres.
    public var offsetMeters: Double
}

public enum PolylineGeometry {
    /// Projects `p` onto segment a→b in a local equirectangular frame around `p` (street-scale accurate);
    /// the distance is the haversine distance to the projected point.
    public static func project(_ p: Coordinate, ontoSegment a: Coordinate, _ b: Coordinate) -> SegmentProjection {
        let proj = LocalProjection(origin: p)
        let (ax, ay) = proj.project(a)
        let (bx, by) = proj.project(b)
        let dx = bx - ax
        let dy = by - ay
        let len2 = dx * dx + dy * dy
        var t = 0.0
        if len2 > 0 {
            t = (-ax * dx - ay * dy) / len2
            t = min(1, max(0, t))
        }
        let point: Coordinate
        if t == 0 {
            point = a
        } else if t == 1 {
            point = b
        } else {
            point = Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t,
                               longitude: a.longitude + (b.longitude - a.longitude) * t)
        }
        return SegmentProjection(point: point, fraction: t, distanceMeters: Geodesy.distanceMeters(p, point))
    }

    /// Closest point of the polyline to `p`; nil for an empty line. A single point projects onto itself.
    public static func project(_ p: Coordinate, ontoPolyline line: [Coordinate]) -> PolylineProjection? {
        guard let first = line.first else { return nil }
        if line.count == 1 {
            return PolylineProjection(point: first, segmentIndex: 0, fraction: 0,
                                      distanceMeters: Geodesy.distanceMeters(p, first), offsetMeters: 0)
        }
        var best: PolylineProjection?
        var along = 0.0
        for i in 0..<(line.count - 1) {
            let s = project(p, ontoSegment: line[i], line[i + 1])
            let segLen = Geodesy.distanceMeters(line[i], line[i + 1])
            if best == nil || s.distanceMeters < best!.distanceMeters {
                best = PolylineProjection(point: s.point, segmentIndex: i, fraction: s.fraction,
                                          distanceMeters: s.distanceMeters, offsetMeters: along + segLen * s.fraction)
            }
            along += segLen
        }
        return best
    }

    /// Sum of haversine segment lengths, metres.
    public static func lengthMeters(_ line: [Coordinate]) -> Double {
        guard line.count > 1 else { return 0 }
        var total = 0.0
        for i in 1..<line.count { total += Geodesy.distanceMeters(line[i - 1], line[i]) }
        return total
    }

    /// The point `offsetMeters` along the polyline from its start (clamped to the ends); nil for an empty line.
    public static func point(along line: [Coordinate], offsetMeters: Double) -> Coordinate? {
        guard let first = line.first else { return nil }
        if offsetMeters <= 0 || line.count == 1 { return first }
        var remaining = offsetMeters
        for i in 1..<line.count {
            let seg = Geodesy.distanceMeters(line[i - 1], line[i])
            if remaining <= seg, seg > 0 {
                let t = remaining / seg
                let a = line[i - 1], b = line[i]
                return Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t,
                                  longitude: a.longitude + (b.longitude - a.longitude) * t)
            }
            remaining -= seg
        }
        return line[line.count - 1]
    }
}
