import Foundation
import Geo
import MapMatching
import RoadGraph
import Routing
import TraceSimulation

/// How realistic simulated fixes are. Without realism the vehicle drives every edge at its free-flow speed and
/// reports exact positions.
public struct SimulationRealism: Sendable, Hashable {
    /// Speeds follow road class and limit, slow for turns and stop at some signals and junctions
    /// (`TraceSimulation.DriveSimulator`'s kinematics).
    public var drive = DriveSimulationConfiguration()
    /// GPS noise per axis, metres. Default 8.
    public var positionSigmaMeters: Double = 8
    /// Share of fixes that are outliers. Default 0.02.
    public var outlierProbability: Double = 0.02
    /// Outlier distance, metres. Default 50...150.
    public var outlierDistanceMeters: ClosedRange<Double> = 50...150
    /// Doppler speed noise, m/s; nil = no speed reported. Default 0.3.
    public var speedSigmaMetersPerSecond: Double? = 0.3
    /// Course noise, degrees; nil = no course reported. Default 5.
    public var courseSigmaDegrees: Double? = 5
    /// Reported horizontal accuracy, metres; nil = none. Default 10.
    public var reportedAccuracyMeters: Double? = 10
    /// No fixes on tunnel edges. Default true.
    public var dropFixesInTunnels = true
    public var seed: UInt64 = 1
    public init() {}
}

public struct LocationSimulatorConfiguration: Sendable, Hashable {
    /// Seconds between fixes (simulation time, not trip time: a speed multiplier moves the vehicle faster, fixes
    /// keep their rate). Default 1.
    public var fixIntervalSeconds: Double = 1
    /// nil: exact positions at free-flow speed.
    public var realism: SimulationRealism?
    public init(fixIntervalSeconds: Double = 1, realism: SimulationRealism? = nil) {
        self.fixIntervalSeconds = fixIntervalSeconds
        self.realism = realism
    }
}

/// The SDK's location simulator without a clock: the caller advances simulated time and receives the fixes that
/// fall in it, to feed to a navigator (`NavigatorCore.process`). Deterministic for a given seed.
public final class LocationSimulator {
    public let graph: RoadGraph
    public let configuration: LocationSimulatorConfiguration
    private let index: RoadGeometryIndex?

    /// Trip samples: trip time (s) → position, course, speed, edge.
    private struct Sample {
        var tripSeconds: Double
        var coordinate: Coordinate
        var courseDegrees: Double
        var speed: Double
        var tunnel: Bool
    }
    private var samples: [Sample] = []
    private var tripSeconds = 0.0
    private var now: Date?
    private var nextFix: Date?
    private var rng = SplitMix64(seed: 1)
    private var parked: Coordinate?

    public private(set) var isSimulating = false
    /// While paused, fixes keep coming and the position stays.
    public var isPaused = false
    /// Default 1; values ≤ 0 are ignored, as in the SDK.
    public var speedMultiplier: Double = 1 {
        didSet { if !(speedMultiplier > 0 && speedMultiplier.isFinite) { speedMultiplier = oldValue } }
    }

    /// `index` is needed only with realism (its kinematics come from `DriveSimulator`); built from `graph` when nil.
    public init(
        graph: RoadGraph, configuration: LocationSimulatorConfiguration = LocationSimulatorConfiguration(),
        index: RoadGeometryIndex? = nil
    ) {
        self.graph = graph
        self.configuration = configuration
        self.index = configuration.realism == nil ? nil : (index ?? RoadGeometryIndex(graph: graph))
        rng = SplitMix64(seed: configuration.realism?.seed ?? 1)
    }

    /// Starts driving the navigator's remaining legs from `time`. Does nothing (returns false) without a route.
    @discardableResult
    public func simulateLocationsAlongExistingRoute(_ navigator: NavigatorCore, at time: Date) -> Bool {
        let legs = navigator.remainingRouteLegs
        guard !legs.isEmpty else { return false }
        samples = configuration.realism == nil ? freeFlowSamples(legs) : realisticSamples(legs)
        guard !samples.isEmpty else { return false }
        tripSeconds = 0
        now = time
        nextFix = time
        parked = nil
        isPaused = false
        isSimulating = true
        return true
    }

    /// Stands at `coordinate` (the SDK's `simulateLocation(at:)`): fixes keep coming from there.
    public func simulateLocation(at coordinate: Coordinate, from time: Date) {
        samples = []
        parked = coordinate
        now = time
        nextFix = time
        isSimulating = true
    }

    public func pause() { isPaused = true }
    public func resume() { isPaused = false }
    public func stop() {
        isSimulating = false
        samples = []
        parked = nil
    }

    /// Advances simulated time by `seconds` and returns the fixes due in that span (the fix at the start instant
    /// included on the first call).
    public func advance(by seconds: Double) -> [RawFix] {
        guard isSimulating, let start = now, seconds >= 0 else { return [] }
        let end = start.addingTimeInterval(seconds)
        var fixes: [RawFix] = []
        var cursor = start
        while let due = nextFix, due <= end {
            if !isPaused { tripSeconds += due.timeIntervalSince(cursor) * speedMultiplier }
            cursor = due
            if let f = fix(at: due) { fixes.append(f) }
            nextFix = due.addingTimeInterval(configuration.fixIntervalSeconds)
        }
        if !isPaused { tripSeconds += end.timeIntervalSince(cursor) * speedMultiplier }
        now = end
        return fixes
    }

    /// True once the trip's end is reached (fixes then keep reporting the end, standing).
    public var hasFinished: Bool { parked != nil || (samples.last.map { tripSeconds >= $0.tripSeconds } ?? true) }

    // MARK: Positions

    private func position(atTrip t: Double) -> Sample {
        guard let last = samples.last else {
            return Sample(
                tripSeconds: t, coordinate: parked ?? Coordinate(latitude: 0, longitude: 0), courseDegrees: -1,
                speed: 0,
                tunnel: false)
        }
        if t >= last.tripSeconds {
            return Sample(
                tripSeconds: t, coordinate: last.coordinate, courseDegrees: last.courseDegrees, speed: 0,
                tunnel: last.tunnel)
        }
        var lo = 0, hi = samples.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if samples[mid].tripSeconds <= t { lo = mid } else { hi = mid - 1 }
        }
        let a = samples[lo], b = samples[min(lo + 1, samples.count - 1)]
        let span = b.tripSeconds - a.tripSeconds
        let f = span > 0 ? (t - a.tripSeconds) / span : 0
        return Sample(
            tripSeconds: t,
            coordinate: Coordinate(
                latitude: a.coordinate.latitude + (b.coordinate.latitude - a.coordinate.latitude) * f,
                longitude: a.coordinate.longitude + (b.coordinate.longitude - a.coordinate.longitude) * f),
            courseDegrees: a.courseDegrees, speed: a.speed + (b.speed - a.speed) * f, tunnel: a.tunnel)
    }

    private func fix(at time: Date) -> RawFix? {
        var p = position(atTrip: tripSeconds)
        let standing = isPaused || parked != nil
        if standing { p.speed = 0 }
        let speed = p.speed * (standing ? 0 : speedMultiplier)
        guard let realism = configuration.realism else {
            return RawFix(
                coordinate: p.coordinate, timestamp: time, horizontalAccuracyMeters: 5,
                courseDegrees: speed > 0 ? p.courseDegrees : nil, speedMetersPerSecond: speed)
        }
        // Draw every random number even for dropped fixes so a tunnel does not shift the rest of the trace.
        var east = realism.positionSigmaMeters * rng.normal(), north = realism.positionSigmaMeters * rng.normal()
        let isOutlier = Double.random(in: 0..<1, using: &rng) < realism.outlierProbability
        let distance = Double.random(in: realism.outlierDistanceMeters, using: &rng)
        let direction = Double.random(in: 0..<(2 * .pi), using: &rng)
        let speedNoise = rng.normal(), courseNoise = rng.normal()
        if isOutlier {
            east += distance * sin(direction)
            north += distance * cos(direction)
        }
        if realism.dropFixesInTunnels && p.tunnel { return nil }
        var fix = RawFix(
            coordinate: LocalProjection(origin: p.coordinate).unproject(x: east, y: north), timestamp: time,
            horizontalAccuracyMeters: realism.reportedAccuracyMeters)
        if let s = realism.speedSigmaMetersPerSecond { fix.speedMetersPerSecond = max(0, speed + s * speedNoise) }
        if let c = realism.courseSigmaDegrees, speed >= 1 {
            fix.courseDegrees = Geodesy.normalizedDegrees(p.courseDegrees + c * courseNoise)
        }
        return fix
    }

    // MARK: Trip profiles

    private func freeFlowSamples(_ legs: [RouteLeg]) -> [Sample] {
        var out: [Sample] = []
        var t = 0.0
        for leg in legs {
            let active = ActiveLeg(leg: leg, graph: graph)
            let step = 0.5
            var along = 0.0
            while true {
                let i = active.edgeIndex(atDistance: along)
                let e = leg.edges.isEmpty ? nil : leg.edges[i]
                let speed = e.map { graph.freeFlowSpeedKph(of: $0, mode: .driving) / 3.6 } ?? 10
                let p = active.point(atDistance: along)
                let ahead = active.point(atDistance: min(active.lengthMeters, along + 1))
                let behind = active.point(atDistance: max(0, along - 1))
                out.append(
                    Sample(
                        tripSeconds: t, coordinate: p,
                        courseDegrees: Geodesy.initialBearingDegrees(from: behind, to: ahead),
                        speed: speed, tunnel: e.map { graph.flags(of: $0).contains(.tunnel) } ?? false))
                if along >= active.lengthMeters { break }
                along = min(active.lengthMeters, along + max(0.1, speed) * step)
                t += step
            }
            t += 0.001
        }
        return out
    }

    private func realisticSamples(_ legs: [RouteLeg]) -> [Sample] {
        guard let index, let realism = configuration.realism else { return [] }
        var edges: [EdgeID] = []
        for leg in legs { for e in leg.edges where edges.last != e { edges.append(e) } }
        guard let first = legs.first, let last = legs.last, !edges.isEmpty else { return [] }
        func scaled(_ p: RoadPosition) -> Double {
            p.offsetMeters * index.length(of: p.edge) / max(graph.lengthMeters(of: p.edge), 1e-9)
        }
        var drive = realism.drive
        drive.fixIntervalSeconds = 0.5
        drive.positionSigmaMeters = 0
        drive.outlierProbability = 0
        drive.speedSigmaMetersPerSecond = nil
        drive.courseSigmaDegrees = nil
        drive.dropFixesInTunnels = false
        drive.gaps = []
        drive.startTimestamp = 0
        drive.seed = realism.seed
        let simulated = DriveSimulator(index: index, configuration: drive)
            .drive(edges: edges, startOffset: scaled(first.start), endOffset: scaled(last.end))
        return simulated.truth.map {
            Sample(
                tripSeconds: $0.timestamp, coordinate: $0.coordinate, courseDegrees: $0.courseDegrees,
                speed: $0.speedMetersPerSecond,
                tunnel: graph.flags(of: $0.edge).contains(.tunnel))
        }
    }
}
