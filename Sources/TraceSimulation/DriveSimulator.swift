import Foundation
import Geo
import MapMatching
import RoadGraph
import Routing
import SeededRandom

/// The package's seeded generator (`SeededRandom`), named here so that simulator users need no second import.
public typealias SplitMix64 = SeededRandom.SplitMix64

/// A period without fixes (tunnel, garage, receiver off).
public struct SimulatedGap: Sendable, Hashable {
    /// Seconds after the start of the drive.
    public var startSeconds: Double
    public var durationSeconds: Double
    public init(startSeconds: Double, durationSeconds: Double) {
        self.startSeconds = startSeconds
        self.durationSeconds = durationSeconds
    }
}

/// Where in its lanes the vehicle drives (right-hand traffic), as a traffic simulator places it: the truth is in a
/// lane, not on the OSM centre line. Lanes per direction come from the road class and oneway flag
/// (`lanesPerDirection`); on a two-way road lane i (0 = innermost) lies (i + ½)·`laneWidthMeters` right of the
/// centre line, on a oneway road the lanes are centred on it.
public struct LaneModel: Sendable, Hashable {
    /// Metres. Default 3.2.
    public var laneWidthMeters: Double = 3.2
    /// Chance of moving to a neighbouring lane on entering an edge (where there is one). Default 0.15.
    public var laneChangeProbabilityPerEdge: Double = 0.15
    /// Lateral speed of a lane change, m/s (3.2 m in about 3 s). Default 1.
    public var laneChangeSpeedMetersPerSecond: Double = 1
    public init() {}

    /// Lanes in each direction of travel: two-way motorway and trunk 2, primary 2, else 1; oneway carriageways
    /// of motorway and trunk 3, primary and secondary 2, else 1. (OSM's `lanes` tag is not in the graph.)
    public func lanesPerDirection(of highwayClass: HighwayClass, oneway: Bool) -> Int {
        switch highwayClass {
        case .motorway, .trunk: oneway ? 3 : 2
        case .primary: 2
        case .secondary: oneway ? 2 : 1
        default: 1
        }
    }

    /// Offset to the right of the centre line of lane `lane` (0 = leftmost) of `lanes`, metres.
    public func offsetMeters(lane: Int, lanes: Int, oneway: Bool) -> Double {
        oneway ? (Double(lane) - Double(lanes - 1) / 2) * laneWidthMeters : (Double(lane) + 0.5) * laneWidthMeters
    }
}

/// Queues at signals and junctions, as a traffic simulator makes them: a stopping vehicle waits anywhere from the
/// stop line to `queueDistanceMeters` before it (behind the cars ahead), and creeps forward in a few short moves
/// while it waits (stop-and-go), accelerating and braking as it drives.
public struct QueueModel: Sendable, Hashable {
    /// How far before the stop line the vehicle first stops (uniform), metres. Default 0...50.
    public var queueDistanceMeters: ClosedRange<Double> = 0...50
    /// Number of forward moves during one stop (uniform). Default 0...3.
    public var creepMoves: ClosedRange<Int> = 0...3
    /// The moves together cover this share of the queue distance (uniform; the rest of the queue is still ahead
    /// when the light turns green). Default 0.3...1.
    public var creepShare: ClosedRange<Double> = 0.3...1
    public init() {}
}

/// How the simulated vehicle drives and how its GPS errs. Defaults: a 1 Hz phone-grade receiver in a city.
public struct DriveSimulationConfiguration: Sendable, Hashable {
    /// Lane positions of the truth (nil: on the centre line). Default nil.
    public var lanes: LaneModel? = nil
    /// Queues before stop lines (nil: every stop is at the stop line). Default nil.
    public var queueing: QueueModel? = nil

    /// The defaults plus what a traffic simulator (SUMO-like) does differently: lanes, queues with stop-and-go,
    /// and car-following speeds below the limit (cruising at 50–95 % of it).
    public static var trafficLike: DriveSimulationConfiguration {
        var c = DriveSimulationConfiguration()
        c.lanes = LaneModel()
        c.queueing = QueueModel()
        c.cruiseFraction = 0.5...0.95
        return c
    }

    /// Seconds between fixes. Default 1.
    public var fixIntervalSeconds: Double = 1
    /// Standard deviation of the position error on each axis (east and north), metres. Default 8.
    public var positionSigmaMeters: Double = 8
    /// Share of fixes replaced by an outlier, 0...1. Default 0.02.
    public var outlierProbability: Double = 0.02
    /// Outliers land this far from the true position (uniform), metres, in a uniform direction. Default 50...150.
    public var outlierDistanceMeters: ClosedRange<Double> = 50...150
    /// Standard deviation of the reported speed, m/s; nil: fixes carry no speed. Default 0.3.
    public var speedSigmaMetersPerSecond: Double? = 0.3
    /// Standard deviation of the reported course, degrees; nil: fixes carry no course. Default 5. The course is
    /// omitted below 1 m/s, as receivers do.
    public var courseSigmaDegrees: Double? = 5
    /// Reported horizontal accuracy, metres; nil: not reported. Default nil.
    public var reportedAccuracyMeters: Double? = nil
    /// The driver cruises at this fraction of the speed limit (else of the free-flow speed), drawn per edge.
    /// Default 0.75...1.0.
    public var cruiseFraction: ClosedRange<Double> = 0.75...1.0
    /// Speed through a right-angle turn, km/h (sharper turns slower, straighter faster). Default 25.
    public var turnSpeedKph: Double = 25
    /// m/s². Default 1.5.
    public var accelerationMetersPerSecondSquared: Double = 1.5
    /// m/s². Default 2.5.
    public var decelerationMetersPerSecondSquared: Double = 2.5
    /// Chance of stopping at a signalised junction. Default 0.5.
    public var stopProbabilityAtSignals: Double = 0.5
    /// Which signal nodes along the route are one junction (a vehicle stops at most once there) and which are
    /// pedestrian crossings (`SignalJunctions`, the navigator's reading of the same tags). nil: every signal node
    /// is a junction of its own, as before 2026-11-30 (Helsinki drives then stopped up to three times at one
    /// crossing). Default `SignalJunctions()`.
    public var signalJunctions: SignalJunctions? = SignalJunctions()
    /// Chance of stopping at a signal that is a pedestrian crossing (with `signalJunctions`). Default 0.15.
    public var stopProbabilityAtCrossingSignals: Double = 0.15
    /// Chance of stopping at any other junction (give way, traffic) where the vehicle does not go straight on along
    /// the most important road (with `signalJunctions`; without, at every junction). Default 0.1.
    public var stopProbabilityAtJunctions: Double = 0.1
    /// Vehicles stop this far before the junction node (the stop line), metres; 2 m before a traffic-signal node
    /// (OSM puts the signal at the stop line). Never nearer than a third of a short edge to either end. Default 6.
    public var stopLineSetbackMeters: Double = 6
    /// Length of a stop, seconds. Default 5...40.
    public var stopDurationSeconds: ClosedRange<Double> = 5...40
    /// Fixes are dropped inside tunnels. Default true.
    public var dropFixesInTunnels: Bool = true
    /// Extra periods without fixes.
    public var gaps: [SimulatedGap] = []
    /// Timestamp of the first fix, seconds since 1970. Default 1 700 000 000.
    public var startTimestamp: Double = 1_700_000_000
    /// Simulation step, seconds. Default 0.1.
    public var integrationStepSeconds: Double = 0.1
    public var seed: UInt64 = 1

    public init() {}
}

/// The true state of the vehicle when a fix was (or would have been) taken.
public struct TruthSample: Sendable, Hashable {
    public var timestamp: Double
    public var coordinate: Coordinate
    public var edge: EdgeID
    public var offsetMeters: Double
    public var osmWayID: Int64
    /// m/s.
    public var speedMetersPerSecond: Double
    /// Degrees from north, along the road.
    public var courseDegrees: Double
    /// Distance driven since the start, metres.
    public var distanceMeters: Double
    public var isStopped: Bool
    /// Offset of the true position to the right of the road's centre line, metres (negative: to its left, as
    /// where traffic keeps left; 0 without `lanes`).
    public var laneOffsetMeters: Double = 0
}

/// A simulated drive: the fixes a receiver reported, and the truth at each of them.
public struct SimulatedDrive: Sendable {
    /// Reported fixes, in time order (dropped fixes absent).
    public var fixes: [LocationFix]
    /// Truth at each reported fix (same indices as `fixes`).
    public var truth: [TruthSample]
    /// Whether each reported fix is an outlier.
    public var isOutlier: [Bool]
    /// Truth at the instants whose fix was dropped (gaps, tunnels).
    public var droppedTruth: [TruthSample]
    /// The driven edges in order.
    public var edges: [EdgeID]
}

/// Drives a route through the graph with speeds that follow road class and speed limit, slows for turns, stops at
/// some junctions, and samples a noisy GPS receiver. Deterministic for a given seed.
public struct DriveSimulator {
    public let index: RoadGeometryIndex
    public let mode: TravelMode
    public let configuration: DriveSimulationConfiguration

    public init(index: RoadGeometryIndex, mode: TravelMode = .driving,
                configuration: DriveSimulationConfiguration = DriveSimulationConfiguration()) {
        self.index = index
        self.mode = mode
        self.configuration = configuration
    }

    /// Drives a routed trip (all legs, from the first leg's start to the last leg's end).
    public func drive(_ route: Route) -> SimulatedDrive {
        var edges: [EdgeID] = []
        for leg in route.legs {
            for e in leg.edges where edges.last != e { edges.append(e) }
        }
        guard let first = route.legs.first, let last = route.legs.last else {
            return SimulatedDrive(fixes: [], truth: [], isOutlier: [], droppedTruth: [], edges: [])
        }
        let s0 = first.start.offsetMeters * index.length(of: first.start.edge) / max(index.graph.lengthMeters(of: first.start.edge), 1e-9)
        let s1 = last.end.offsetMeters * index.length(of: last.end.edge) / max(index.graph.lengthMeters(of: last.end.edge), 1e-9)
        return drive(edges: edges, startOffset: s0, endOffset: s1)
    }

    /// Drives `edges` (consecutive: each starts where the previous ends) from `startOffset` metres along the first
    /// to `endOffset` metres along the last (nil: its end).
    public func drive(edges: [EdgeID], startOffset: Double = 0, endOffset: Double? = nil) -> SimulatedDrive {
        let graph = index.graph
        var rng = SplitMix64(seed: configuration.seed)
        guard !edges.isEmpty else { return SimulatedDrive(fixes: [], truth: [], isOutlier: [], droppedTruth: [], edges: []) }
        // Along-route position of each edge start.
        var starts: [Double] = []
        var total = 0.0
        for e in edges {
            starts.append(total)
            total += index.length(of: e)
        }
        let begin = min(startOffset, index.length(of: edges[0]))
        let finish = max(begin, starts[edges.count - 1] + min(endOffset ?? index.length(of: edges.last!), index.length(of: edges.last!)))

        // Per-edge cruise speed, m/s.
        var cruise: [Double] = []
        for e in edges {
            let base = graph.speedLimitKph(of: e) ?? graph.freeFlowSpeedKph(of: e, mode: mode)
            let fraction = Double.random(in: configuration.cruiseFraction, using: &rng)
            cruise.append(max(2, base * fraction / 3.6))
        }
        // Speed constraints at edge ends: turn speed, and stops.
        struct Constraint { var at: Double; var speed: Double; var stopSeconds: Double }
        var constraints: [Constraint] = []
        var lastStop = -Double.infinity
        let signalKinds = configuration.signalJunctions.map { signals in
            signals.kinds(
                along: edges,
                portionsMeters: edges.indices.map { i in
                    max(0, min(finish, starts[i] + index.length(of: edges[i])) - max(begin, starts[i]))
                },
                graph: graph)
        }
        for i in 0..<(edges.count - 1) {
            let e = edges[i], next = edges[i + 1]
            let at = starts[i + 1]
            let turn = Geodesy.bearingDifferenceDegrees(index.bearing(on: e, at: index.length(of: e)), index.bearing(on: next, at: 0))
            var speed = Double.infinity
            if turn > 20 {
                // 90° → turnSpeed; 180° → half of it; 20° → no limit to speak of.
                speed = configuration.turnSpeedKph / 3.6 * max(0.5, min(3, 90 / turn))
            }
            let node = graph.target(of: e)
            // Roads closed to every mode (a private drive) make no junction a vehicle gives way at.
            let junction = graph.outgoingEdges(of: node).lazy.filter { !graph.access(of: $0).isEmpty }.count > 2
            var stop = 0.0
            let p: Double
            switch signalKinds?[i] {
            case .junction?: p = configuration.stopProbabilityAtSignals
            case .sameJunction?: p = 0  // waited (or not) at the junction's first signal
            case .crossing?: p = configuration.stopProbabilityAtCrossingSignals
            case .none?:
                // Give way (or wait behind a turning car) only where the vehicle does not have the right of way.
                let priority = turn <= 30 && SignalJunctions.hasPriority(e, continuingTo: next, graph: graph)
                p = junction && !priority ? configuration.stopProbabilityAtJunctions : 0
            case nil:
                p = graph.flags(of: e).contains(.trafficSignalsAtTarget) ? configuration.stopProbabilityAtSignals
                    : (junction ? configuration.stopProbabilityAtJunctions : 0)
            }
            if p > 0 && Double.random(in: 0..<1, using: &rng) < p {
                stop = Double.random(in: configuration.stopDurationSeconds, using: &rng)
                speed = 0
            }
            // Stop lines lie a little before the junction (at a signal node: just before the signal), and never at
            // either end of a short edge (where a car would stand on the junction itself).
            let setback = graph.flags(of: e).contains(.trafficSignalsAtTarget) ? 2.0 : configuration.stopLineSetbackMeters
            let length = index.length(of: e)
            let stopAt = stop > 0 ? at - min(max(setback, min(2, length / 3)), length * 2 / 3) : at
            guard speed.isFinite && stopAt > begin && at < finish else { continue }
            if stop > 0, let queue = configuration.queueing {
                // Queued: the first stop lies up to `queueDistanceMeters` before the stop line (not before the
                // previous stop or the start), then a few forward moves split the wait.
                let back = Double.random(in: queue.queueDistanceMeters, using: &rng)
                let first = max(stopAt - back, min(stopAt, max(begin + 1, lastStop + 8)))
                let moves = Int.random(in: queue.creepMoves, using: &rng)
                let covered = (stopAt - first) * Double.random(in: queue.creepShare, using: &rng)
                var shares = (0...moves).map { _ in Double.random(in: 0.5...1.5, using: &rng) }
                let shareSum = shares.reduce(0, +)
                shares = shares.map { $0 / shareSum }
                var position = first
                for m in 0...moves {
                    if m > 0 { position += covered / Double(moves) }
                    constraints.append(Constraint(at: position, speed: 0, stopSeconds: max(1, stop * shares[m])))
                }
                lastStop = position
                continue
            }
            constraints.append(Constraint(at: stopAt, speed: speed, stopSeconds: stop))
            if stop > 0 { lastStop = stopAt }
        }
        constraints.append(Constraint(at: finish, speed: 0, stopSeconds: 0))
        // Queues reach back past earlier junctions: keep the constraints in driving order.
        constraints.sort { $0.at < $1.at }
        // Lanes: per edge, the lane count from the road class, a lane kept from the previous edge where it exists
        // (else drawn), and now and then a change to a neighbouring lane.
        var laneOffsets: [Double] = []
        // Lanes lie right of a two-way road's centre line, left of it where traffic keeps left.
        let keepSide = graph.drivingSide == .left ? -1.0 : 1.0
        if let lanes = configuration.lanes {
            var lane = 0
            var previousCount = 0
            for e in edges {
                let oneway = graph.flags(of: e).contains(.oneway)
                let count = max(1, lanes.lanesPerDirection(of: graph.highwayClass(of: e), oneway: oneway))
                if count != previousCount {
                    lane = Int.random(in: 0..<count, using: &rng)
                } else if count > 1 && Double.random(in: 0..<1, using: &rng) < lanes.laneChangeProbabilityPerEdge {
                    lane = lane == 0 ? 1 : (lane == count - 1 ? lane - 1 : lane + (Bool.random(using: &rng) ? 1 : -1))
                }
                previousCount = count
                laneOffsets.append(keepSide * lanes.offsetMeters(lane: lane, lanes: count, oneway: oneway))
            }
        }
        var lateral = laneOffsets.first ?? 0

        var fixes: [LocationFix] = []
        var truth: [TruthSample] = []
        var outliers: [Bool] = []
        var dropped: [TruthSample] = []
        var s = begin, v = 0.0, t = 0.0
        var edgeIndex = 0
        var nextConstraint = 0
        var dwell = 0.0
        var nextFixTime = 0.0
        let h = configuration.integrationStepSeconds
        var steps = 0
        while steps < 10_000_000 {
            steps += 1
            while edgeIndex + 1 < edges.count && s >= starts[edgeIndex + 1] { edgeIndex += 1 }
            if t + 1e-9 >= nextFixTime {
                let e = edges[edgeIndex]
                let offset = min(index.length(of: e), max(0, s - starts[edgeIndex]))
                var point = index.point(on: e, at: offset)
                let course = index.bearing(on: e, at: offset)
                if lateral != 0 {
                    // To the right of the direction of travel.
                    let theta = course * .pi / 180
                    point = LocalProjection(origin: point).unproject(x: lateral * cos(theta), y: -lateral * sin(theta))
                }
                let sample = TruthSample(
                    timestamp: configuration.startTimestamp + t, coordinate: point, edge: e, offsetMeters: offset,
                    osmWayID: graph.osmWayID(of: e), speedMetersPerSecond: v, courseDegrees: course,
                    distanceMeters: s - begin, isStopped: v < 0.1, laneOffsetMeters: lateral)
                let inGap = configuration.gaps.contains { t >= $0.startSeconds && t < $0.startSeconds + $0.durationSeconds }
                let inTunnel = configuration.dropFixesInTunnels && graph.flags(of: e).contains(.tunnel)
                // Draw the noise even for dropped fixes so that gaps do not shift the rest of the trace.
                let sigma = configuration.positionSigmaMeters
                var east = sigma * rng.normal(), north = sigma * rng.normal()
                let isOutlier = Double.random(in: 0..<1, using: &rng) < configuration.outlierProbability
                let outlierDistance = Double.random(in: configuration.outlierDistanceMeters, using: &rng)
                let outlierDirection = Double.random(in: 0..<(2 * .pi), using: &rng)
                let speedNoise = rng.normal(), courseNoise = rng.normal()
                if isOutlier {
                    east += outlierDistance * sin(outlierDirection)
                    north += outlierDistance * cos(outlierDirection)
                }
                if inGap || inTunnel {
                    dropped.append(sample)
                } else {
                    let projection = LocalProjection(origin: point)
                    var fix = LocationFix(coordinate: projection.unproject(x: east, y: north),
                                          timestamp: sample.timestamp)
                    if let ss = configuration.speedSigmaMetersPerSecond { fix.speedMetersPerSecond = max(0, v + ss * speedNoise) }
                    if let cs = configuration.courseSigmaDegrees, v >= 1 {
                        fix.courseDegrees = Geodesy.normalizedDegrees(course + cs * courseNoise)
                    }
                    fix.horizontalAccuracyMeters = configuration.reportedAccuracyMeters
                    fixes.append(fix)
                    truth.append(sample)
                    outliers.append(isOutlier)
                }
                nextFixTime += configuration.fixIntervalSeconds
            }
            if s >= finish - 1e-6 && v <= 1e-6 { break }
            if let lanes = configuration.lanes, edgeIndex < laneOffsets.count {
                // Lane changes are lateral moves at a bounded speed (only while moving).
                let step = lanes.laneChangeSpeedMetersPerSecond * h * (v > 0.5 ? 1 : 0)
                lateral += max(-step, min(step, laneOffsets[edgeIndex] - lateral))
            }
            // Speed control.
            if dwell > 0 {
                dwell -= h
                t += h
                if dwell <= 0 { nextConstraint += 1 }
                continue
            }
            while nextConstraint < constraints.count && constraints[nextConstraint].at < s - 0.5 { nextConstraint += 1 }
            var allowed = cruise[edgeIndex]
            var k = nextConstraint
            while k < constraints.count && constraints[k].at - s < 400 {
                let c = constraints[k]
                let d = max(0, c.at - s)
                allowed = min(allowed, (c.speed * c.speed + 2 * configuration.decelerationMetersPerSecondSquared * max(0, d - 1)).squareRoot())
                k += 1
            }
            if v < allowed {
                v = min(allowed, v + configuration.accelerationMetersPerSecondSquared * h)
            } else {
                v = max(allowed, v - 2 * configuration.decelerationMetersPerSecondSquared * h)
            }
            if nextConstraint < constraints.count {
                let c = constraints[nextConstraint]
                if c.speed == 0 && c.at - s < max(1, v * h) {
                    s = c.at
                    v = 0
                    t += h
                    if c.stopSeconds > 0 { dwell = c.stopSeconds } else { nextConstraint += 1 }
                    if c.at >= finish - 1e-6 { continue }
                    continue
                }
            }
            if v < 0.3 && allowed < 0.3 { v = 0.3 }  // creep up to a stop line
            s = min(finish, s + v * h)
            t += h
        }
        return SimulatedDrive(fixes: fixes, truth: truth, isOutlier: outliers, droppedTruth: dropped, edges: edges)
    }
}

extension SimulatedDrive {
    /// Fixes as JSON lines (the `edgenav match` input) and truth as JSON lines, side by side.
    public func jsonLines() -> (fixes: String, truth: String) {
        var f = "", g = ""
        for fix in fixes { f += MatchingJSON.encode(fix) + "\n" }
        for (i, s) in truth.enumerated() {
            g += "{\"timestamp\":\(s.timestamp),\"lat\":\(s.coordinate.latitude),\"lon\":\(s.coordinate.longitude)"
            g += ",\"osmWayId\":\(s.osmWayID),\"edge\":\(s.edge),\"offsetMeters\":\(s.offsetMeters)"
            g += ",\"speed\":\(s.speedMetersPerSecond),\"course\":\(s.courseDegrees),\"stopped\":\(s.isStopped)"
            g += ",\"outlier\":\(isOutlier[i]),\"laneOffsetMeters\":\(s.laneOffsetMeters)}\n"
        }
        return (f, g)
    }
}
