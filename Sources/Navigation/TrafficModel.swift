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

/// How observations age.
public struct TrafficModelConfiguration: Sendable, Hashable {
    /// An observation's weight is exp(-age / this): after this long it counts 37 %. Default 900 s (15 min).
    public var fadeTimeConstantSeconds: Double = 900
    /// Observations older than this are ignored entirely (and no longer count as traffic data). Default 3600 s.
    public var maximumAgeSeconds: Double = 3600
    /// The vehicle's own observations weigh this much relative to the feed's of the same age. Default 0.5: one car
    /// is one sample, a feed is an aggregate.
    public var ownObservationWeight: Double = 0.5
    public init() {}
}

/// Traffic per OSM way: the caller's feed plus the vehicle's own speeds, fading with age. Traffic only slows
/// down: a speed above free flow counts as free flow (so routing lower bounds stay valid). A value type; the
/// navigator keeps one and bumps `generation` whenever it changes.
public struct TrafficModel: Sendable {
    public var configuration: TrafficModelConfiguration
    private var feed: [Int64: TrafficObservation] = [:]
    private var own: [Int64: TrafficObservation] = [:]
    /// Incremented on every change to the feed (not to own observations).
    public private(set) var feedGeneration = 0
    /// Incremented on every change.
    public private(set) var generation = 0

    public init(configuration: TrafficModelConfiguration = TrafficModelConfiguration()) {
        self.configuration = configuration
    }

    /// Takes the newest observation per way; non-positive speeds are ignored.
    public mutating func update(_ observations: [TrafficObservation]) {
        var changed = false
        for o in observations where o.speedKph > 0 && o.speedKph.isFinite {
            if let old = feed[o.osmWayID], old.observedAt > o.observedAt { continue }
            feed[o.osmWayID] = o
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

    private func weight(_ o: TrafficObservation, at time: Date) -> Double {
        let age = max(0, time.timeIntervalSince(o.observedAt))
        guard age <= configuration.maximumAgeSeconds else { return 0 }
        return exp(-age / configuration.fadeTimeConstantSeconds)
    }

    /// Travel-time multiplier (≥ 1) for an edge of `wayID` whose free-flow speed is `freeFlowKph`, and whether
    /// any live observation covers the way.
    public func durationMultiplier(wayID: Int64, freeFlowKph: Double, at time: Date) -> (
        multiplier: Double, covered: Bool
    ) {
        var totalWeight = 0.0, weightedSlowdown = 0.0
        if let o = feed[wayID] {
            let w = weight(o, at: time)
            if w > 0 { totalWeight += w; weightedSlowdown += w * max(1, freeFlowKph / o.speedKph) }
        }
        if let o = own[wayID] {
            let w = weight(o, at: time) * configuration.ownObservationWeight
            if w > 0 { totalWeight += w; weightedSlowdown += w * max(1, freeFlowKph / o.speedKph) }
        }
        guard totalWeight > 0 else { return (1, false) }
        // The blend fades towards free flow as the (strongest) observation ages: confidence = min(1, total weight).
        let confidence = min(1, totalWeight)
        let observed = weightedSlowdown / totalWeight
        return (1 + confidence * (observed - 1), true)
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
