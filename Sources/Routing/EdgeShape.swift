import Geo
import RoadGraph

/// Points and directions part-way along an edge's shape. Offsets are measured along the shape with haversine
/// segment lengths, rescaled to the graph's `lengthMeters` so that fractions agree with the stored length.
struct EdgeShape {
    let points: [Coordinate]
    /// Cumulative fraction (0...1) of the shape's length at each point.
    private let cumulative: [Double]

    init(graph: RoadGraph, edge: EdgeID) {
        points = graph.geometry(of: edge)
        var sums = [0.0]
        sums.reserveCapacity(points.count)
        var total = 0.0
        for i in 1..<max(points.count, 1) {
            total += Geodesy.distanceMeters(points[i - 1], points[i])
            sums.append(total)
        }
        cumulative = total > 0 ? sums.map { $0 / total } : sums.indices.map { Double($0) / Double(max(sums.count - 1, 1)) }
    }

    /// Index of the segment containing `fraction`, and the fraction within that segment.
    private func locate(_ fraction: Double) -> (segment: Int, within: Double) {
        guard points.count >= 2 else { return (0, 0) }
        let f = min(1, max(0, fraction))
        var segment = 0
        while segment < points.count - 2 && cumulative[segment + 1] < f { segment += 1 }
        let span = cumulative[segment + 1] - cumulative[segment]
        return (segment, span > 0 ? (f - cumulative[segment]) / span : 0)
    }

    func point(at fraction: Double) -> Coordinate {
        guard points.count >= 2 else { return points.first ?? Coordinate(latitude: 0, longitude: 0) }
        let (s, t) = locate(fraction)
        let a = points[s], b = points[s + 1]
        return Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t,
                          longitude: a.longitude + (b.longitude - a.longitude) * t)
    }

    /// Direction of travel at `fraction`, degrees clockwise from north.
    func bearingDegrees(at fraction: Double) -> Double {
        guard points.count >= 2 else { return 0 }
        var (s, _) = locate(fraction)
        // Skip zero-length segments, which have no direction.
        while s < points.count - 2 && points[s] == points[s + 1] { s += 1 }
        return Geodesy.initialBearingDegrees(from: points[s], to: points[s + 1])
    }

    /// The part of the shape between two fractions (from ≤ to), both ends included.
    func slice(from start: Double, to end: Double) -> [Coordinate] {
        guard points.count >= 2 else { return points }
        var line = [point(at: start)]
        for i in 1..<(points.count - 1) where cumulative[i] > start && cumulative[i] < end {
            line.append(points[i])
        }
        let last = point(at: end)
        if last != line.last { line.append(last) }
        return line
    }
}
