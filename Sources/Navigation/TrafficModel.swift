import Foundation
import RoadGraph
import Routing

/// A speed seen on an OSM way at some time: from the caller's traffic feed or the vehicle itself.
public struct TrafficObservation: Sendable, Hashable, Codable {
    public var osmWayID: Int64
    /// km/h (> 0).
    public var speedKph: Double
    public var observedAt: Date

    public init(osmWayID: Int64, speedKph: Double, observedAt: Date) {
        self.osmWayID = osmWayID
        self.speedKph = speedKph
        self.observedAt = observedAt
    }
}

/// How observations age and combine.
public struct TrafficModelConfiguration: Sendable, Hashable {
    /// An observation's weight is exp(-age / this): after this long it counts 37 %. Default 900 s (15 min).
    public var fadeTimeConstantSeconds: Double = 900
    /// Observations older than this are ignored entirely (and no longer count as traffic data). Default 3600 s.
    public var maximumAgeSeconds: Double = 3600
    /// The vehicle's own observations weigh this much relative to the feed's of the same age. Default 0.5: one car
    /// is one sample, a feed is an aggregate.
    public var ownObservationWeight: Double = 0.5
    /// A fresh feed observation's weight: the share of the feed in a way's time, the rest being the time with no
    /// traffic known (cruise speed and every junction delay). Default 1: on the SUMO drives 0.6 and 0.4 made the
    /// mid-leg remaining time no better (BENCHMARKS.md "Remaining time when traffic is known").
    public var feedObservationWeight: Double = 1
    /// The feed's observations of one way are averaged with weights exp(-age / this), the newest weighing 1; 0
    /// keeps only the newest. Default 300 s. Why: a feed published every minute from what vehicles did in that
    /// minute says whether the way's signal was red for them; the vehicle that gets there in a few minutes meets
    /// another phase. Averaging the last few minutes estimates the way's typical time instead.
    public var feedAveragingSeconds: Double = 300
    /// Average the feed's speeds of one way geometrically (the mean of log time per metre) rather than as time per
    /// metre. Default true. Why: a feed gives no vehicle counts, so one minute in which the way's only vehicle
    /// stood at its red light (3 km/h) outweighs four free-flowing minutes in a time-per-metre mean (its time is
    /// 10× theirs); the geometric mean lets no single minute dominate. On the SUMO drives the time-per-metre mean
    /// of the last minutes predicted the probes' time on their remaining ways +2 to +20 % long (Baltimore), the
    /// newest minute alone −0.4 to +0.5 % (`Benchmarks/sumo/feed_bias.py`); the geometric mean keeps the
    /// averaging's smoothing without that bias (BENCHMARKS.md "Remaining time when traffic is known").
    public var feedAveragesGeometrically = true
    /// A feed speed below this counts as this, km/h, in the average. Default 3: a minute in which the only vehicle on
    /// a way stood at its red light says ~0 km/h, which as time per metre would outweigh every other minute.
    public var feedMinimumSpeedKph: Double = 3
    /// For the remaining time, a feed speed above the cruise speed counts, up to this many times it. Default 1.3.
    /// Why: the cruise speed is an estimate (the limit); a feed, noisy way by way, is as often above it as below,
    /// and counting only the slower ways made the SUMO Liechtenstein legs 10 % longer than without a feed. The
    /// router keeps "traffic only slows down" (`durationMultiplier`): its lower bounds need it.
    public var feedMaximumSpeedOverCruise: Double = 1.3
    public init() {}
}

/// What traffic says about one way at one instant: the feed's and the vehicle's own slow-down (travel time ÷ the
/// time at the compared free-flow speed, ≥ 1) and how much each counts (its fading weight: 0 = nothing known).
public struct WayTraffic: Sendable, Hashable {
    /// The feed's travel-time multiplier: a feed speed holds the time stood in queues and at signals on the way.
    /// Below 1 where the feed is faster than the compared speed (`feedMaximumSpeedOverCruise`).
    public var feedSlowdown = 1.0
    public var feedWeight = 0.0
    /// The vehicle's own moving-speed multiplier (standing excluded; see `NavigatorCore.observeOwnTraffic`).
    public var ownSlowdown = 1.0
    public var ownWeight = 0.0

    /// Whether any live observation covers the way.
    public var covered: Bool { feedWeight > 0 || ownWeight > 0 }

    /// The shares (free flow, feed, own) of a blend that sum to 1: the observations' shares are their weights,
    /// scaled down to a confidence of min(1, total weight), so the blend fades towards free flow as they age.
    public var shares: (freeFlow: Double, feed: Double, own: Double) {
        let total = feedWeight + ownWeight
        guard total > 0 else { return (1, 0, 0) }
        let confidence = min(1, total)
        return (1 - confidence, confidence * feedWeight / total, confidence * ownWeight / total)
    }
}

/// Traffic per OSM way: the caller's feed plus the vehicle's own speeds, fading with age. For the router traffic
/// only slows down: a speed above free flow counts as free flow (so routing lower bounds stay valid); the remaining
/// time also takes a feed faster than the cruise speed (`feedMaximumSpeedOverCruise`). A value type; the navigator
/// keeps one and bumps `generation` whenever it changes.
///
/// The two sources mean different things (topics.md, `{prefix}/traffic`): a feed speed is a way's length ÷ the
/// time to traverse it, waits at its signals and in its queues included (what a traffic simulator's edge data and
/// flow feeds give); the vehicle's own is its moving speed on the way, standing excluded.
public struct TrafficModel: Sendable {
    public var configuration: TrafficModelConfiguration
    /// Per way: Σ w × (hours per km, or its logarithm with `feedAveragesGeometrically`) and Σ w of the feed's
    /// observations, weights as of `referenceTime` (exp(-(referenceTime − observedAt) / `feedAveragingSeconds`)),
    /// and the newest observation's time.
    private struct FeedAverage: Sendable {
        var weightedPace: Double
        var weight: Double
        var referenceTime: Date
        var newest: Date
    }
    private var feed: [Int64: FeedAverage] = [:]
    private var own: [Int64: TrafficObservation] = [:]
    /// Incremented on every change to the feed (not to own observations).
    public private(set) var feedGeneration = 0
    /// Incremented on every change.
    public private(set) var generation = 0

    public init(configuration: TrafficModelConfiguration = TrafficModelConfiguration()) {
        self.configuration = configuration
    }

    /// Adds the feed's observations to each way's average; non-positive speeds are ignored, and so is an
    /// observation of a way at the time of one already taken (a payload received twice).
    public mutating func update(_ observations: [TrafficObservation]) {
        var changed = false
        let averaging = configuration.feedAveragingSeconds
        for o in observations where o.speedKph > 0 && o.speedKph.isFinite {
            let hoursPerKm = 1 / max(o.speedKph, configuration.feedMinimumSpeedKph, 1e-3)
            let pace = configuration.feedAveragesGeometrically ? log(hoursPerKm) : hoursPerKm
            guard var a = feed[o.osmWayID], averaging > 0 else {
                if let old = feed[o.osmWayID], old.newest >= o.observedAt { continue }  // newest only
                feed[o.osmWayID] = FeedAverage(weightedPace: pace, weight: 1, referenceTime: o.observedAt, newest: o.observedAt)
                changed = true
                continue
            }
            if o.observedAt == a.newest { continue }
            // Weights are kept relative to the newest observation time: a newer one moves the reference (and fades the
            // rest), an older one comes in at its own weight.
            if o.observedAt > a.referenceTime {
                let decay = exp(-o.observedAt.timeIntervalSince(a.referenceTime) / averaging)
                a.weightedPace *= decay
                a.weight *= decay
                a.referenceTime = o.observedAt
            }
            let w = exp(o.observedAt.timeIntervalSince(a.referenceTime) / averaging)
            a.weightedPace += w * pace
            a.weight += w
            a.newest = max(a.newest, o.observedAt)
            feed[o.osmWayID] = a
            changed = true
        }
        if changed {
            feedGeneration += 1
            generation += 1
        }
    }

    public mutating func observeOwn(_ observation: TrafficObservation) {
        guard observation.speedKph > 0, observation.speedKph.isFinite else { return }
        own[observation.osmWayID] = observation
        generation += 1
    }

    public mutating func removeAll() {
        feed.removeAll()
        own.removeAll()
        feedGeneration += 1
        generation += 1
    }

    private func weight(observedAt: Date, at time: Date) -> Double {
        let age = max(0, time.timeIntervalSince(observedAt))
        guard age <= configuration.maximumAgeSeconds else { return 0 }
        return exp(-age / configuration.fadeTimeConstantSeconds)
    }

    /// The feed's and the vehicle's own word on `wayID` at `time`, against a free-flow speed of `freeFlowKph`.
    public func wayTraffic(wayID: Int64, freeFlowKph: Double, at time: Date) -> WayTraffic {
        var out = WayTraffic()
        if let a = feed[wayID], a.weight > 0 {
            let w = weight(observedAt: a.newest, at: time) * configuration.feedObservationWeight
            if w > 0 {
                out.feedWeight = w
                let mean = a.weightedPace / a.weight
                let hoursPerKm = configuration.feedAveragesGeometrically ? exp(mean) : mean
                out.feedSlowdown = max(1 / configuration.feedMaximumSpeedOverCruise, freeFlowKph * hoursPerKm)
            }
        }
        if let o = own[wayID] {
            let w = weight(observedAt: o.observedAt, at: time) * configuration.ownObservationWeight
            if w > 0 {
                out.ownWeight = w
                out.ownSlowdown = max(1, freeFlowKph / o.speedKph)
            }
        }
        return out
    }

    /// Travel-time multiplier (≥ 1) for an edge of `wayID` whose free-flow speed is `freeFlowKph`, and whether
    /// any live observation covers the way: the router's view, both sources blended (`WayTraffic.shares`).
    public func durationMultiplier(wayID: Int64, freeFlowKph: Double, at time: Date) -> (
        multiplier: Double, covered: Bool
    ) {
        let t = wayTraffic(wayID: wayID, freeFlowKph: freeFlowKph, at: time)
        let s = t.shares
        return (s.freeFlow + s.feed * max(1, t.feedSlowdown) + s.own * t.ownSlowdown, t.covered)
    }

    /// A frozen view for the router (`RouteRequest.traffic`).
    public func snapshot(graph: RoadGraph, mode: TravelMode, at time: Date) -> TrafficSnapshot {
        TrafficSnapshot(model: self, graph: graph, mode: mode, time: time)
    }
}

/// The traffic model at one instant, as the router's `EdgeTravelTimeAdjusting` hook.
public struct TrafficSnapshot: EdgeTravelTimeAdjusting {
    let model: TrafficModel
    let graph: RoadGraph
    let mode: TravelMode
    let time: Date
    /// Traffic only slows down.
    public var lowerBoundFactor: Double { 1 }

    public func durationSeconds(of edge: EdgeID, mode: TravelMode, freeFlowSeconds: Double) -> Double {
        let m = model.durationMultiplier(
            wayID: graph.osmWayID(of: edge), freeFlowKph: graph.freeFlowSpeedKph(of: edge, mode: mode),
            at: time)
        return freeFlowSeconds * m.multiplier
    }
}
