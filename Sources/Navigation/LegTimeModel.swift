import Foundation
import Geo
import RoadGraph
import Routing

/// Expected time lost at junctions, by what happens there. City ETAs are decided here: OSRM (2 s per signal) came
/// out 22–27 % short and Valhalla 33–42 % short on traffic-simulated city drives, mostly time lost at signals.
///
/// A delay is charged at the end of every route edge except the last, from the turn between the edge and the next:
/// - traffic signal at the node (`EdgeFlags.trafficSignalsAtTarget`): `trafficSignalSeconds` — a 90 s cycle with
///   about half red gives an expected wait of 0.5 × 45 s / 2 ≈ 11 s, plus ≈ 7 s lost braking and accelerating
///   for the share of arrivals that stop; a turn at a signal adds its turn delay on top;
/// - the signal nodes of one junction (`signals`, see `SignalJunctions`: OSM tags each approach, carriageway and
///   crossing, Helsinki 2–4 nodes per crossing) are charged once, at the first; the others, and the junction node
///   just past a stop-line signal, count as signal-controlled without a wait of their own;
/// - a signal with no junction near ahead (a pedestrian crossing between junctions) is charged
///   `crossingSignalSeconds`: it is red for cars only when someone has asked to cross;
/// - no junction (the node joins only this way and its continuation) : a bend sharper than 60° costs
///   `sharpBendSeconds`, otherwise nothing;
/// - a junction without a signal (roads the travel mode may use: a footway crossing is no junction): straight on
///   (|turn| ≤ 30°) `uncontrolledCrossingSeconds` (yielding, slowing) unless the route is on a road more important
///   than every other road there (a main road past side streets),
///   a turn to the kerb side (right under right-hand traffic) `kerbSideTurnSeconds`, a turn across the oncoming
///   lane `crossingTurnSeconds`, a U-turn (|turn| > 150°) `uTurnSeconds`.
public struct JunctionDelayModel: Sendable, Hashable {
    /// Default 18 s.
    public var trafficSignalSeconds: Double = 18
    /// The part of `trafficSignalSeconds` lost braking and accelerating, not waiting. Default 3.5 s. The vehicle's
    /// own observation of a way is its moving speed (stops excluded), which already holds this part and every turn
    /// and crossing slow-down: on an edge it covers, only the rest (the expected wait) is charged. A feed's speed
    /// holds the waits and the turns too: on an edge the feed covers, no junction delay is charged.
    public var trafficSignalSlowdownSeconds: Double = 3.5
    /// Which signal nodes along a route belong to one junction and which are pedestrian crossings (see
    /// `SignalJunctions`: 40 m clusters, stop lines up to 25 m before the junction).
    public var signals = SignalJunctions()
    /// A signal between junctions (pedestrian crossing), seconds. Default 1: red for cars only when someone has
    /// asked to cross, and traffic simulators drop such signals altogether (SUMO's `--tls.discard-simple`, on in
    /// its OSM import defaults). On the SUMO Helsinki drives (2 such signals per leg) 5 s made the mid-leg
    /// remaining time 5 points longer with no wait seen there (BENCHMARKS.md "Remaining time on SUMO drives").
    public var crossingSignalSeconds: Double = 1
    /// The share of a turn or crossing delay still charged on an edge that the vehicle's own observation covers.
    /// Default 0.75: a way's median moving speed holds part of the slow-down (the braking and accelerating
    /// samples on the way), not all of it (a median passes over short slow stretches).
    public var turnDelayShareUnderTraffic: Double = 0.75
    /// The share of a turn or crossing delay (not a signal's wait) charged on an edge that a feed speed covers.
    /// Default 0. A simulator's edge speeds (SUMO's edgeData) leave out the time inside junctions, where the turn
    /// is: the feed alone predicted the SUMO probes' remaining time 8–18 % short without their junction time
    /// (`Benchmarks/sumo/feed_bias.py`). But the trip's own pace (`NavigatorConfiguration.paceUnsplitUnderFeed`)
    /// learns that share, and charging 0.25 / 0.5 / 1 of the turns on top made the mid-leg remaining time no
    /// better (pooled 15.8 / 15.9 / 18.2 % against 15.2 %, BENCHMARKS.md "Remaining time when traffic is known").
    /// The signal's wait is never charged under a feed: it is the queue on the way, which the feed speed holds.
    public var turnDelayShareUnderFeed: Double = 0
    /// Turn and crossing delays: the time lost slowing to the turn's speed and back (a vehicle at 50 km/h slowing
    /// to 20–25 km/h for a turn at 2.6 m/s² up / 4.5 m/s² down loses 1.5–2.5 s), plus yielding. Earlier defaults
    /// (5 / 8 / 15 / 3 s) charged Liechtenstein's SUMO legs, where no vehicle stood, 20–60 s of turns the vehicles
    /// did not lose: the planned legs were 23 % too long (BENCHMARKS.md "Remaining time on SUMO drives").
    /// Straight on without priority. Default 2 s.
    public var uncontrolledCrossingSeconds: Double = 2
    /// Default 3 s.
    public var kerbSideTurnSeconds: Double = 3
    /// Across the oncoming lane (yields to it). Default 4 s.
    public var crossingTurnSeconds: Double = 4
    /// Default 10 s.
    public var uTurnSeconds: Double = 10
    /// Default 2 s.
    public var sharpBendSeconds: Double = 2
    /// Traffic keeps right (the kerb side is the right). Default nil: the map's side (`RoadGraph.drivingSide`).
    public var rightHandTraffic: Bool?
    public init() {}

    /// The delay at the end of every edge of `edges` (a route; the last entry is 0), with the signal nodes of one
    /// junction charged once (`signals`). `portionsMeters[i]` is the length of edge i the route uses;
    /// a piece shorter than 1 m at either end of the route means the route starts or ends at the node: no turn
    /// happens there.
    public func delays(
        along edges: [EdgeID], portionsMeters: [Double], graph: RoadGraph, mode: TravelMode
    ) -> [JunctionDelay] {
        var out = Array(repeating: JunctionDelay(), count: edges.count)
        let kinds = signals.kinds(along: edges, portionsMeters: portionsMeters, graph: graph)
        for i in 0..<max(0, edges.count - 1) where portionsMeters[i] >= 1 && portionsMeters[i + 1] >= 1 {
            out[i] = delay(from: edges[i], to: edges[i + 1], signal: kinds[i], graph: graph, mode: mode)
        }
        return out
    }

    private func delay(from: EdgeID, to: EdgeID, signal: SignalJunctions.Kind, graph: RoadGraph, mode: TravelMode)
        -> JunctionDelay
    {
        let seconds = totalDelaySeconds(from: from, to: to, signal: signal, graph: graph, mode: mode)
        let signalPart = signalSeconds(signal)
        // The braking and accelerating share of a signal's charge is what a moving speed already holds.
        let slowdownShare = trafficSignalSeconds > 0 ? trafficSignalSlowdownSeconds / trafficSignalSeconds : 0
        let waiting = max(0, signalPart * (1 - slowdownShare))
        let turns = max(0, seconds - signalPart)
        return JunctionDelay(
            seconds: seconds, underOwnSpeedSeconds: waiting + turnDelayShareUnderTraffic * turns,
            underFeedSeconds: turnDelayShareUnderFeed * turns)
    }

    /// The wait charged for a signal of this kind (its turn delay comes on top).
    private func signalSeconds(_ signal: SignalJunctions.Kind) -> Double {
        switch signal {
        case .none, .sameJunction: 0
        case .junction: trafficSignalSeconds
        case .crossing: crossingSignalSeconds
        }
    }

    private func totalDelaySeconds(
        from: EdgeID, to: EdgeID, signal: SignalJunctions.Kind, graph: RoadGraph, mode: TravelMode
    ) -> Double {
        let turn = signedTurnDegrees(from: from, to: to, graph: graph)
        let others = SignalJunctions.branches(at: from, graph: graph, usableBy: ModeMask(mode))
        let branches = others.count
        let magnitude = abs(turn)
        var delay = signalSeconds(signal)
        if branches <= 1 {
            if magnitude > 60 { delay += sharpBendSeconds }
            return delay
        }
        if magnitude > 150 {
            delay += uTurnSeconds
        } else if magnitude > 30 {
            let towardsKerb = (rightHandTraffic ?? (graph.drivingSide == .right)) ? turn > 0 : turn < 0
            delay += towardsKerb ? kerbSideTurnSeconds : crossingTurnSeconds
        } else if signal == .none
            && !SignalJunctions.hasPriority(from, continuingTo: to, graph: graph, usableBy: ModeMask(mode))
        {
            delay += uncontrolledCrossingSeconds
        }
        return delay
    }

    /// Turn angle, degrees in -180...180, positive clockwise (right).
    func signedTurnDegrees(from: EdgeID, to: EdgeID, graph: RoadGraph) -> Double {
        let a = graph.geometry(of: from)
        let b = graph.geometry(of: to)
        var i = a.count - 2
        while i > 0 && a[i] == a[a.count - 1] { i -= 1 }
        var j = 1
        while j < b.count - 1 && b[j] == b[0] { j += 1 }
        let inBearing = Geodesy.initialBearingDegrees(from: a[max(0, i)], to: a[a.count - 1])
        let outBearing = Geodesy.initialBearingDegrees(from: b[0], to: b[min(j, b.count - 1)])
        var d = outBearing - inBearing
        while d > 180 { d -= 360 }
        while d < -180 { d += 360 }
        return d
    }
}

/// The delay charged at one junction of a route, seconds, by what covers the edge before it.
public struct JunctionDelay: Sendable, Hashable {
    /// With no traffic observation: everything (`JunctionDelayModel`).
    public var seconds = 0.0
    /// Under the vehicle's own moving speed on the edge: the signal's expected wait and part of the turn.
    public var underOwnSpeedSeconds = 0.0
    /// Under a feed speed: the turn only (`JunctionDelayModel.turnDelayShareUnderFeed`); the feed holds the way's
    /// waits at its signal and in its queue.
    public var underFeedSeconds = 0.0
    public init(seconds: Double = 0, underOwnSpeedSeconds: Double = 0, underFeedSeconds: Double = 0) {
        self.seconds = seconds
        self.underOwnSpeedSeconds = underOwnSpeedSeconds
        self.underFeedSeconds = underFeedSeconds
    }
}

/// Per-edge times of one leg, with suffix sums so the remaining time is O(1) per fix.
///
/// Each edge's time is split in two: moving (`roadSeconds`: the cruise time, slower where the vehicle's own
/// observations say so) and delay (`delaySeconds`: the junction charge at its end, and what a feed speed adds over
/// the cruise time — its waits in queues and at signals). The navigator scales the two with the trip's own
/// moving pace and stop pace (`NavigatorConfiguration.paceSplitsStops`), and the feed's share of the time
/// (`feedSeconds`) with the trip's whole pace (`NavigatorConfiguration.paceUnsplitUnderFeed`).
struct LegTimeModel {
    /// Free-flow seconds of each edge's used portion, at the cruise speed (`CruiseSpeedModel`).
    private(set) var freeFlowSeconds: [Double]
    /// The cruise speed of each edge, km/h: what traffic observations are compared with.
    let cruiseKph: [Double]
    /// Traffic-adjusted seconds of each edge's used portion, junction excluded: `roadSeconds` + the feed's excess.
    private(set) var trafficSeconds: [Double]
    /// Moving seconds of each edge's used portion (see the type's comment).
    private(set) var roadSeconds: [Double]
    /// The feed's share of each edge's traffic seconds (its weight × its travel time, waits included).
    private(set) var feedSeconds: [Double]
    /// The junction delay at the end of each edge by what covers it (`JunctionDelay`).
    let junctions: [JunctionDelay]
    /// The junction delay charged at the end of edge i under the current traffic.
    private(set) var chargedJunctionSeconds: [Double]
    /// Σ_{j ≥ i} (traffic + junction); one extra 0 at the end.
    private(set) var suffixTraffic: [Double]
    /// Σ_{j ≥ i} of the delay part (charged junction + the feed's excess over moving).
    private(set) var suffixDelay: [Double]
    /// Σ_{j ≥ i} of the charged junction seconds alone, and of `feedSeconds`.
    private(set) var suffixJunction: [Double]
    private(set) var suffixFeed: [Double]
    /// Σ_{j ≥ i} free flow with every junction delay: the time with no traffic known, for the delay category.
    private(set) var suffixNoTraffic: [Double]
    /// Number of edges at or after i that live traffic covers.
    private(set) var suffixCovered: [Int]
    let portionsMeters: [Double]
    let route: ActiveLeg
    private(set) var trafficGeneration = -1
    private(set) var trafficAppliedAt: Date?

    init(
        route: ActiveLeg, graph: RoadGraph, mode: TravelMode, junctions: JunctionDelayModel,
        speeds: CruiseSpeedModel = CruiseSpeedModel()
    ) {
        self.route = route
        let edges = route.leg.edges
        var portions: [Double] = []
        var free: [Double] = []
        var cruise: [Double] = []
        for (i, e) in edges.enumerated() {
            let portion = route.edgeEndMeters(i) - route.edgeStartMeters[i]
            portions.append(portion)
            let kph = speeds.speedKph(of: e, graph: graph, mode: mode)
            cruise.append(kph)
            free.append(kph > 0 ? portion * 3.6 / kph : 0)
        }
        portionsMeters = portions
        cruiseKph = cruise
        freeFlowSeconds = free
        trafficSeconds = free
        roadSeconds = free
        feedSeconds = Array(repeating: 0, count: free.count)
        self.junctions = junctions.delays(along: edges, portionsMeters: portions, graph: graph, mode: mode)
        chargedJunctionSeconds = self.junctions.map(\.seconds)
        suffixTraffic = []
        suffixDelay = []
        suffixJunction = []
        suffixFeed = []
        suffixNoTraffic = []
        suffixCovered = []
        rebuildSuffixes(covered: Array(repeating: false, count: edges.count))
    }

    /// Re-evaluates traffic when the model changed or `refreshSeconds` passed since the last evaluation
    /// (observations fade with time).
    mutating func applyTraffic(
        _ model: TrafficModel, graph: RoadGraph, mode: TravelMode, at time: Date,
        refreshSeconds: Double = 60
    ) {
        if model.generation == trafficGeneration, let last = trafficAppliedAt,
            abs(time.timeIntervalSince(last)) < refreshSeconds
        {
            return
        }
        trafficGeneration = model.generation
        trafficAppliedAt = time
        var covered: [Bool] = []
        for (i, e) in route.leg.edges.enumerated() {
            let t = model.wayTraffic(wayID: graph.osmWayID(of: e), freeFlowKph: cruiseKph[i], at: time)
            let s = t.shares
            let free = freeFlowSeconds[i]
            // A feed faster than the cruise speed is moving faster; slower, it is waiting (delay, see above).
            roadSeconds[i] = free * (s.freeFlow + s.feed * min(1, t.feedSlowdown) + s.own * t.ownSlowdown)
            trafficSeconds[i] = roadSeconds[i] + free * s.feed * max(0, t.feedSlowdown - 1)
            feedSeconds[i] = free * s.feed * t.feedSlowdown
            // For the feed's share only the turn (`JunctionDelay.underFeedSeconds`): its speed holds the signal's
            // wait and the queue.
            let j = junctions[i]
            chargedJunctionSeconds[i] =
                s.freeFlow * j.seconds + s.feed * j.underFeedSeconds + s.own * j.underOwnSpeedSeconds
            covered.append(t.covered && portionsMeters[i] >= 1)
        }
        rebuildSuffixes(covered: covered)
    }

    private mutating func rebuildSuffixes(covered: [Bool]) {
        let n = freeFlowSeconds.count
        suffixTraffic = Array(repeating: 0, count: n + 1)
        suffixDelay = Array(repeating: 0, count: n + 1)
        suffixJunction = Array(repeating: 0, count: n + 1)
        suffixFeed = Array(repeating: 0, count: n + 1)
        suffixNoTraffic = Array(repeating: 0, count: n + 1)
        suffixCovered = Array(repeating: 0, count: n + 1)
        var i = n - 1
        while i >= 0 {
            if !covered[i] {  // nothing live covers it (an observation may have aged out): no traffic
                roadSeconds[i] = freeFlowSeconds[i]
                trafficSeconds[i] = freeFlowSeconds[i]
                feedSeconds[i] = 0
                chargedJunctionSeconds[i] = junctions[i].seconds
            }
            suffixTraffic[i] = suffixTraffic[i + 1] + trafficSeconds[i] + chargedJunctionSeconds[i]
            suffixDelay[i] = suffixDelay[i + 1] + (trafficSeconds[i] - roadSeconds[i]) + chargedJunctionSeconds[i]
            suffixJunction[i] = suffixJunction[i + 1] + chargedJunctionSeconds[i]
            suffixFeed[i] = suffixFeed[i + 1] + feedSeconds[i]
            suffixNoTraffic[i] = suffixNoTraffic[i + 1] + freeFlowSeconds[i] + junctions[i].seconds
            suffixCovered[i] = suffixCovered[i + 1] + (covered[i] ? 1 : 0)
            i -= 1
        }
    }

    /// Whole-leg traffic-aware duration including junctions, seconds.
    var totalSeconds: Double { suffixTraffic.first ?? 0 }

    /// Seconds to the end of the leg from `distance` along it. On the current edge the model speed is blended
    /// with the vehicle's own recent speed (`ownSpeedWeight`), floored at `ownSpeedFloor` × the model speed so a
    /// stop at a light does not make the ETA explode (the junction delays already account for stops).
    func remainingSeconds(
        atDistance distance: Double, ownSpeedMetersPerSecond: Double?, ownSpeedWeight: Double,
        ownSpeedFloor: Double
    ) -> Double {
        guard !portionsMeters.isEmpty else { return 0 }
        let d = min(max(0, distance), route.lengthMeters)
        let i = route.edgeIndex(atDistance: d)
        let left = max(0, route.edgeEndMeters(i) - d)
        let portion = portionsMeters[i]
        var current = portion > 0 ? trafficSeconds[i] * left / portion : 0
        if let own = ownSpeedMetersPerSecond, left > 0, trafficSeconds[i] > 0, portion > 0 {
            let modelSpeed = portion / trafficSeconds[i]
            let blended = (1 - ownSpeedWeight) * modelSpeed + ownSpeedWeight * max(own, ownSpeedFloor * modelSpeed)
            current = left / blended
        }
        return current + chargedJunctionSeconds[i] + suffixTraffic[i + 1]
    }

    /// The delay part of the model's remaining time from `distance` (the junction delays still ahead and the
    /// feed's waits on the edges ahead, see the type's comment), seconds.
    func remainingDelaySeconds(atDistance distance: Double) -> Double {
        guard !portionsMeters.isEmpty else { return 0 }
        let d = min(max(0, distance), route.lengthMeters)
        let i = route.edgeIndex(atDistance: d)
        let f = portionsMeters[i] > 0 ? max(0, route.edgeEndMeters(i) - d) / portionsMeters[i] : 0
        return chargedJunctionSeconds[i] + (trafficSeconds[i] - roadSeconds[i]) * f + suffixDelay[i + 1]
    }

    /// The feed's share of the model's remaining time and the junction delays charged ahead (without the feed's
    /// excess), from `distance`, seconds: the parts `NavigatorCore` scales with the whole pace and the stop pace.
    func remainingFeedAndJunctionSeconds(atDistance distance: Double) -> (feed: Double, junction: Double) {
        guard !portionsMeters.isEmpty else { return (0, 0) }
        let d = min(max(0, distance), route.lengthMeters)
        let i = route.edgeIndex(atDistance: d)
        let f = portionsMeters[i] > 0 ? max(0, route.edgeEndMeters(i) - d) / portionsMeters[i] : 0
        return (feedSeconds[i] * f + suffixFeed[i + 1], chargedJunctionSeconds[i] + suffixJunction[i + 1])
    }

    /// (traffic-aware, no-traffic) seconds of the rest of the leg, both with their junction delays, and whether
    /// traffic covers any edge ahead: the delay category's comparison.
    func delayComparison(atDistance distance: Double) -> (traffic: Double, freeFlow: Double, covered: Bool) {
        guard !portionsMeters.isEmpty else { return (0, 0, false) }
        let d = min(max(0, distance), route.lengthMeters)
        let i = route.edgeIndex(atDistance: d)
        let f = portionsMeters[i] > 0 ? max(0, route.edgeEndMeters(i) - d) / portionsMeters[i] : 0
        return (
            trafficSeconds[i] * f + chargedJunctionSeconds[i] + suffixTraffic[i + 1],
            freeFlowSeconds[i] * f + junctions[i].seconds + suffixNoTraffic[i + 1],
            suffixCovered[i] > 0
        )
    }
}
