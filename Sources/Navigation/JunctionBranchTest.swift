import Foundation
import Geo
import RoadGraph
import Routing

/// A short polyline (a few hundred metres) in a local metric frame around its first vertex, with the distance along
/// it at each vertex and each segment's direction, for projecting fixes and comparing courses without trigonometry
/// per fix.
struct MeasuredPolyline: Sendable {
    let points: [Coordinate]
    /// Metres from the first vertex; the last is the length.
    let cumulativeMeters: [Double]
    private let frame: LocalProjection
    private let xs: [Double]
    private let ys: [Double]
    /// Direction of segment i (from vertex i to i + 1), degrees clockwise from north.
    private let bearings: [Double]

    init(_ points: [Coordinate]) {
        var deduplicated: [Coordinate] = []
        deduplicated.reserveCapacity(points.count)
        for p in points where deduplicated.last != p { deduplicated.append(p) }
        self.points = deduplicated
        let frame = LocalProjection(origin: deduplicated.first ?? Coordinate(latitude: 0, longitude: 0))
        self.frame = frame
        let local = deduplicated.map { frame.project($0) }
        xs = local.map(\.x)
        ys = local.map(\.y)
        var sums = [0.0]
        var bearings: [Double] = []
        for i in local.indices.dropFirst() {
            let dx = local[i].x - local[i - 1].x, dy = local[i].y - local[i - 1].y
            sums.append(sums[i - 1] + (dx * dx + dy * dy).squareRoot())
            bearings.append(Geodesy.normalizedDegrees(atan2(dx, dy) * 180 / .pi))
        }
        cumulativeMeters = sums
        self.bearings = bearings
    }

    var lengthMeters: Double { cumulativeMeters.last ?? 0 }

    /// `c` in the polyline's frame.
    func local(_ c: Coordinate) -> (x: Double, y: Double) { frame.project(c) }

    /// Distance from `(x, y)` to segment `s`, and the fraction along it of the closest point.
    private func segmentDistance(_ s: Int, _ x: Double, _ y: Double) -> (meters: Double, fraction: Double) {
        let ax = xs[s], ay = ys[s], dx = xs[s + 1] - ax, dy = ys[s + 1] - ay
        let length2 = dx * dx + dy * dy
        let t = length2 > 0 ? min(1, max(0, ((x - ax) * dx + (y - ay) * dy) / length2)) : 0
        let ex = ax + t * dx - x, ey = ay + t * dy - y
        return ((ex * ex + ey * ey).squareRoot(), t)
    }

    /// The closest point to a position in the frame: metres from it, and metres along the polyline.
    func project(_ x: Double, _ y: Double) -> (distanceMeters: Double, alongMeters: Double)? {
        guard !xs.isEmpty else { return nil }
        guard xs.count >= 2 else { return ((x * x + y * y).squareRoot(), 0) }
        var best: (distanceMeters: Double, alongMeters: Double)?
        for s in 0..<(xs.count - 1) {
            let d = segmentDistance(s, x, y)
            if best == nil || d.meters < best!.distanceMeters {
                best = (d.meters, cumulativeMeters[s] + (cumulativeMeters[s + 1] - cumulativeMeters[s]) * d.fraction)
            }
        }
        return best
    }

    /// The smallest difference between `course` and the direction of a segment passing within `withinMeters` of the
    /// position, degrees (0…180); 180 for a single point. By distance rather than along the polyline, so a path that
    /// passes the same place twice offers both directions.
    /// Segments ending before `fromMeters` along the polyline, or within a metre after it (the local frame's
    /// rounding), are left out.
    func smallestCourseDifferenceDegrees(
        _ course: Double, x: Double, y: Double, withinMeters: Double, fromMeters: Double = 0
    ) -> Double {
        var smallest = 180.0
        for s in bearings.indices
        where (fromMeters <= 0 || cumulativeMeters[s + 1] > fromMeters + 1)
            && segmentDistance(s, x, y).meters <= withinMeters
        {
            smallest = min(smallest, Geodesy.bearingDifferenceDegrees(course, bearings[s]))
        }
        return smallest
    }

    /// The point `along` metres from the first vertex (clamped) and the direction there.
    func pointAndBearing(atDistance along: Double) -> (point: Coordinate, bearingDegrees: Double)? {
        guard let first = points.first else { return nil }
        guard points.count >= 2 else { return (first, 0) }
        let d = min(max(0, along), lengthMeters)
        var s = 0
        while s < points.count - 2 && cumulativeMeters[s + 1] < d { s += 1 }
        let span = cumulativeMeters[s + 1] - cumulativeMeters[s]
        let t = span > 0 ? (d - cumulativeMeters[s]) / span : 0
        return (frame.unproject(x: xs[s] + t * (xs[s + 1] - xs[s]), y: ys[s] + t * (ys[s + 1] - ys[s])), bearings[s])
    }
}

/// Thresholds of the junction branch test (see `JunctionBranchTest`), with their defaults and why.
public struct JunctionBranchTestConfiguration: Sendable, Hashable {
    /// Off route when the log-likelihood ratio (natural log) of "took branch b" over "on the route" reaches this.
    /// Default 6 (≈ 400 : 1): at least two fixes, since one fix adds at most `maximumStepPerFix` (BENCHMARKS.md,
    /// "Navigation", session 4). `.infinity` turns the test off.
    public var decisionLogOdds: Double = 6
    /// The branch is dropped (the route is confirmed) when the ratio falls to minus this. Default 6.
    public var dropLogOdds: Double = 6
    /// How far each hypothesis path reaches past the junction, and how far past it (by the navigator's accepted
    /// progress along the leg) the test stays open. Default 150 m (three 5 s fixes at 36 km/h).
    public var branchLengthMeters: Double = 150
    /// Both paths begin this far before the junction on the leg (so a fix not yet past it weighs nothing either
    /// way). Default 40 m.
    public var approachMeters: Double = 40
    /// A junction's test opens once the progress estimate is within this (plus one fix interval's travel) of it.
    /// Default 30 m.
    public var lookaheadMeters: Double = 30
    /// Added (in quadrature) to the fix's reported accuracy for the position term: vehicles drive in lanes
    /// 1.5–8 m off the mapped centre line, and the centre line itself is only drawn to a few metres. Default 4 m.
    public var laneSigmaMeters: Double = 4
    /// Course noise assumed at and above `courseFullSpeedMetersPerSecond`, degrees; growing as 1 ÷ speed below it.
    /// Default 10° (twice the simulated GPS course noise: lane changes and real receivers swing more).
    public var courseSigmaDegrees: Double = 10
    /// Default 4 m/s.
    public var courseFullSpeedMetersPerSecond: Double = 4
    /// The course counts only from this speed. Default 2 m/s.
    public var courseMinimumSpeedMetersPerSecond: Double = 2
    /// Course differences are capped at this before squaring (a vehicle swerving, a course outlier). Default 45°.
    public var courseDifferenceCapDegrees: Double = 45
    /// Each direction of a path whose segment passes within this of the fix, beyond the path's nearest segment,
    /// is a candidate (a vehicle turning through the junction agrees with both sides of the turn). Default 15 m.
    public var courseSpanMeters: Double = 15
    /// … but where the route turns away from the approach (45° or more over 20 m) and the branch goes straight on
    /// (within 30°), once the fix lies this far past the junction along the branch, the shared approach's directions
    /// no longer count for the route: a vehicle that went straight on keeps the approach's direction, which the
    /// route's candidates near the corner otherwise included, and its course said nothing until its distance from
    /// the route outgrew the noise (SUMO Helsinki probe9 at 1 s: six fixes at 5.5 m/s). Default 15 m (about two σ
    /// of a σ = 8 m fix's error along the road: a vehicle still on the approach 5 m before the junction lies that
    /// far past it by noise 0.6 % of the time). Without the turn condition (and leaving the approach out for either
    /// path) routes that jog or curve at a junction lost the direction they go on in: 39 of 106 following Helsinki
    /// drives and 115 of 120 Liechtenstein drives at 1 s were rerouted (BENCHMARKS.md, "Session 7").
    /// `.infinity` turns it off.
    public var pastJunctionMeters: Double = 15
    /// … and only while the navigator's progress estimate (filtered over the fixes) has come within this of the
    /// junction, metres: one noisy fix that lands past the junction on the branch is no sign that the vehicle
    /// passed it. Own Liechtenstein drive 79 at 1 s: 11 m before a junction on an approach running 286°, a fix 25 m
    /// off the truth lay 15 m up the branch (300°), with the route going on at 240°; its course (292°, the
    /// approach's) then counted as the branch's, and two fixes decided (a false reroute, and a second from the
    /// wrong route). Default 5 m. `.infinity` turns the condition off.
    public var pastJunctionEstimateMeters: Double = 5
    /// A fix whose position moved from the previous fix's by more than 1.5 × speed × interval plus this many times
    /// its accuracy is an outlier (or the return from one) and adds nothing, course included (its course is compared
    /// with the paths' directions where the fix lies). Default 3.5 (35 m for the simulated fixes; two σ = 8 m fixes
    /// lie that far apart by noise 0.8 % of the time).
    public var jumpSlackAccuracies: Double = 3.5
    /// A fix farther than this from both paths fits neither (an outlier, or the vehicle is not at this junction
    /// after all) and adds nothing. Default 35 m.
    public var neitherPathMeters: Double = 35
    /// Most a fix's position term adds to or takes from the ratio. Default 2 (an outlier the jump test misses
    /// counts no more than a fix 25 m from the route on the branch).
    public var maximumPositionStep: Double = 2
    /// Most a fix's course term adds or takes. Default 3: a vehicle turning 45° or more away from the route at
    /// the junction shows it in its course at once, and two such fixes decide (3 in place of 2 caught 3 more of 86
    /// Helsinki 1 s departures within three fixes, with the same false reroutes).
    public var maximumCourseStep: Double = 3
    /// Most one fix adds in all. Default 3.5 (never one fix alone).
    public var maximumStepPerFix: Double = 3.5

    public init() {}
}

/// "On the route" against "took branch b" at each junction the leg passes: a sequential probability ratio test
/// between two hypotheses whose geometry is known exactly. Each branch is a road leaving the junction that the leg
/// does not take; its path is the leg's last `approachMeters` before the junction followed by the branch (and the
/// straightest continuation) for `branchLengthMeters`, the route's path the same stretch of the leg past the
/// junction. Every fix adds to the log-likelihood ratio:
/// - its position: (d_route² − d_branch²) ÷ 2σ², σ² = accuracy² + lane², capped, times the fix's weight as
///   evidence (`NavigatorConfiguration.evidenceDecorrelationMeters`: standing fixes count little);
/// - its course, from a moving vehicle: (Δ_route² − Δ_branch²) ÷ 2σ_c², with Δ the smallest difference to a
///   direction of the path near the fix's projection (each capped), capped.
/// A fix before the junction lies on both paths and weighs nothing; a position outlier is left out whole. A lane offset moves the fixes the same way for
/// both paths: it can favour the branch only while the paths are closer than twice the offset, by at most
/// offset² ÷ 2σ² a fix (≈ 0.1 for 5 m), and only while the vehicle moves.
struct JunctionBranchTest: Sendable {
    /// One open hypothesis.
    struct Hypothesis: Sendable {
        /// Where the junction lies along the leg, metres.
        let junctionAlongMeters: Double
        let routePath: MeasuredPolyline
        let branchPath: MeasuredPolyline
        /// log P(fixes | branch) − log P(fixes | route).
        var logLikelihoodRatio = 0.0
        /// The route turns away from the approach at the junction while the branch keeps its direction (see
        /// `JunctionBranchTestConfiguration.pastJunctionMeters`).
        let branchGoesStraightWhereRouteTurns: Bool

        init(junctionAlongMeters: Double, routePath: MeasuredPolyline, branchPath: MeasuredPolyline,
             approachMeters: Double)
        {
            self.junctionAlongMeters = junctionAlongMeters
            self.routePath = routePath
            self.branchPath = branchPath
            // Directions over the 20 m before and after the junction.
            func direction(_ path: MeasuredPolyline, from: Double, to: Double) -> Double? {
                guard let a = path.pointAndBearing(atDistance: from)?.point,
                    let b = path.pointAndBearing(atDistance: to)?.point, a != b
                else { return nil }
                return Geodesy.initialBearingDegrees(from: a, to: b)
            }
            if let approach = direction(routePath, from: approachMeters - 20, to: approachMeters),
                let route = direction(routePath, from: approachMeters, to: approachMeters + 20),
                let branch = direction(branchPath, from: approachMeters, to: approachMeters + 20)
            {
                branchGoesStraightWhereRouteTurns =
                    Geodesy.bearingDifferenceDegrees(approach, route) >= 45
                    && Geodesy.bearingDifferenceDegrees(approach, branch) <= 30
            } else {
                branchGoesStraightWhereRouteTurns = false
            }
        }
    }

    let configuration: JunctionBranchTestConfiguration
    /// Route edges before this index have had their end junction considered.
    private var nextEdge = 0
    /// The leg's edges, once a junction is first examined.
    private var routeEdges: Set<EdgeID>?
    private(set) var open: [Hypothesis] = []

    init(configuration: JunctionBranchTestConfiguration) {
        self.configuration = configuration
    }

    /// Opens the tests of the junctions within reach of `progressMeters`, and closes those the accepted progress
    /// `alongMeters` has passed by `branchLengthMeters`.
    mutating func advance(
        leg: ActiveLeg, progressMeters: Double, alongMeters: Double, reachMeters: Double, graph: RoadGraph,
        mode: TravelMode
    ) {
        let edges = leg.leg.edges
        while nextEdge < edges.count - 1, leg.edgeStartMeters[nextEdge + 1] <= progressMeters + reachMeters {
            if routeEdges == nil { routeEdges = Set(edges) }
            let routeEdges = routeEdges!
            let k = nextEdge
            nextEdge += 1
            let junction = leg.edgeStartMeters[k + 1]
            guard junction + configuration.branchLengthMeters > alongMeters else { continue }
            let incoming = edges[k]
            let node = graph.target(of: incoming)
            let back = graph.reverseEdge(of: incoming)
            for branch in graph.outgoingEdges(of: node)
            where branch != edges[k + 1] && branch != back && !routeEdges.contains(branch)
                && !(graph.reverseEdge(of: branch).map { routeEdges.contains($0) } ?? false)
                && graph.access(of: branch).contains(mode) && graph.isTurnAllowed(from: incoming, to: branch, mode: mode)
            {
                let before = leg.subpath(fromMeters: junction - configuration.approachMeters, toMeters: junction)
                open.append(
                    Hypothesis(
                        junctionAlongMeters: junction,
                        routePath: MeasuredPolyline(
                            leg.subpath(
                                fromMeters: junction - configuration.approachMeters,
                                toMeters: junction + configuration.branchLengthMeters)),
                        branchPath: MeasuredPolyline(
                            before
                                + graph.straightestPath(
                                    after: branch, startingWith: graph.geometry(of: branch),
                                    lengthMeters: configuration.branchLengthMeters, mode: mode, avoiding: routeEdges)),
                        approachMeters: configuration.approachMeters))
            }
        }
        open.removeAll { $0.junctionAlongMeters + configuration.branchLengthMeters < alongMeters }
    }

    /// Adds one fix to every open test of a junction within `reachedMeters` along the leg (the progress estimate
    /// plus the lookahead). `weight`: how much the fix's position counts (0…1, see
    /// `NavigatorConfiguration.evidenceDecorrelationMeters`); `speed` in m/s (nil when unknown). The caller leaves out position outliers (`jumpSlackAccuracies`). A fix
    /// that projects onto the shared approach of both paths, or before the route path's first point, or lies farther
    /// than `neitherPathMeters` from both, adds nothing. Returns the branch decided on (the point of it nearest the fix and its direction there), if any.
    mutating func add(
        _ fix: RawFix, reachedMeters: Double, estimateMeters: Double, accuracyMeters: Double,
        speedMetersPerSecond speed: Double?, weight: Double
    ) -> (point: Coordinate, bearingDegrees: Double)? {
        guard !open.isEmpty else { return nil }
        let c = configuration
        let variance = accuracyMeters * accuracyMeters + c.laneSigmaMeters * c.laneSigmaMeters
        var decided: (point: Coordinate, bearingDegrees: Double)?
        for i in open.indices where open[i].junctionAlongMeters <= reachedMeters {
            // Both paths start at the same point, so one frame serves both.
            let (x, y) = open[i].routePath.local(fix.coordinate)
            // A fix whose nearest point of the route path is its first vertex lies before the approach: the vehicle
            // has not come to this junction (the test opens up to `lookaheadMeters` + a fix interval's travel ahead,
            // more while a braking vehicle's estimate runs ahead of it). The route path then explains it no better
            // than its distance from that first vertex, while a branch that comes back beside the leg (a slip road,
            // the other carriageway) may pass right by it: such fixes had a vehicle standing 70 m before a junction
            // win the branch's maximum position step fix after fix (SUMO Baltimore and Kouvola, positions only).
            guard let r = open[i].routePath.project(x, y), let b = open[i].branchPath.project(x, y),
                r.alongMeters >= 1,
                r.alongMeters >= c.approachMeters - 1 || b.alongMeters >= c.approachMeters - 1,
                min(r.distanceMeters, b.distanceMeters) <= c.neitherPathMeters
            else { continue }
            let position = (r.distanceMeters * r.distanceMeters - b.distanceMeters * b.distanceMeters) / (2 * variance)
            var step = weight * min(c.maximumPositionStep, max(-c.maximumPositionStep, position))
            if let course = fix.courseDegrees, course >= 0, let speed, speed >= c.courseMinimumSpeedMetersPerSecond {
                let sigma = c.courseSigmaDegrees * max(1, c.courseFullSpeedMetersPerSecond / speed)
                let pastOnBranch =
                    open[i].branchGoesStraightWhereRouteTurns
                    && b.alongMeters >= c.approachMeters + c.pastJunctionMeters
                    && estimateMeters >= open[i].junctionAlongMeters - c.pastJunctionEstimateMeters
                let dr = min(
                    c.courseDifferenceCapDegrees,
                    open[i].routePath.smallestCourseDifferenceDegrees(
                        course, x: x, y: y, withinMeters: r.distanceMeters + c.courseSpanMeters,
                        fromMeters: pastOnBranch ? c.approachMeters : 0))
                let db = min(
                    c.courseDifferenceCapDegrees,
                    open[i].branchPath.smallestCourseDifferenceDegrees(
                        course, x: x, y: y, withinMeters: b.distanceMeters + c.courseSpanMeters))
                let term = (dr * dr - db * db) / (2 * sigma * sigma)
                step += min(c.maximumCourseStep, max(-c.maximumCourseStep, term))
            }
            open[i].logLikelihoodRatio += min(c.maximumStepPerFix, step)
            if decided == nil, open[i].logLikelihoodRatio >= c.decisionLogOdds {
                decided = open[i].branchPath.pointAndBearing(atDistance: b.alongMeters)
            }
        }
        open.removeAll { $0.logLikelihoodRatio <= -c.dropLogOdds }
        return decided
    }

    /// The largest ratio among the open tests (diagnostics).
    var largestLogLikelihoodRatio: Double? { open.map(\.logLikelihoodRatio).max() }
}

extension RoadGraph {
    /// `path` (the geometry driven on `edge`, ending at its target node) continued at each node by the allowed edge
    /// closest to straight on, never turning back, never onto `avoiding`, until it is `lengthMeters` long or ends:
    /// where a vehicle that left a junction on `edge` (or drove on past a destination on it) most likely is.
    func straightestPath(
        after edge: EdgeID, startingWith path: [Coordinate], lengthMeters: Double, mode: TravelMode,
        avoiding: Set<EdgeID>
    ) -> [Coordinate] {
        var path = path
        var length = PolylineGeometry.lengthMeters(path)
        var current = edge
        var visited: Set<EdgeID> = [edge]
        while length < lengthMeters, path.count >= 2 {
            let heading = Geodesy.initialBearingDegrees(from: path[path.count - 2], to: path[path.count - 1])
            var best: (edge: EdgeID, geometry: [Coordinate], turn: Double)?
            for next in outgoingEdges(of: target(of: current))
            where next != reverseEdge(of: current) && !visited.contains(next) && !avoiding.contains(next)
                && access(of: next).contains(mode) && isTurnAllowed(from: current, to: next, mode: mode)
            {
                let g = geometry(of: next)
                guard g.count >= 2 else { continue }
                let turn = Geodesy.bearingDifferenceDegrees(heading, Geodesy.initialBearingDegrees(from: g[0], to: g[1]))
                if best == nil || turn < best!.turn { best = (next, g, turn) }
            }
            guard let best else { break }
            path += best.geometry.dropFirst()
            length += PolylineGeometry.lengthMeters(best.geometry)
            visited.insert(best.edge)
            current = best.edge
        }
        return path
    }
}
