import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph
import Routing

/// The map and everything derived from it that all vehicles share (one per process).
public final class NavigationMap: @unchecked Sendable {
    // Unchecked: the graph is immutable after load; the router and the search scratch are used only while the agent
    // holds its state lock (both keep search labels between queries); the place book locks itself.
    public let graph: RoadGraph
    public let router: Router
    public let index: RoadGeometryIndex
    /// The map matchers' search labels (16 bytes per node), shared by every vehicle: all of them run under the
    /// agent's state lock, one at a time.
    public let searchScratch: RoadSearchScratch
    public let places: PlaceBook
    public let name: String

    public init(graph: RoadGraph, name: String, places: PlaceBook = PlaceBook()) {
        self.graph = graph
        self.router = Router(graph: graph)
        self.index = RoadGeometryIndex(graph: graph)
        self.searchScratch = RoadSearchScratch(graph: graph)
        self.places = places
        self.name = name
    }

    /// Builds landmark tables (ALT) for the modes fleets drive on a background thread, then installs them in the
    /// shared router through `install` (which runs its block where the router may be used: the agent's exclusive
    /// section): reroutes become several times faster than the plain bidirectional Dijkstra the router answers
    /// with meanwhile (and keeps using for other modes). The build costs
    /// 3 × 16 searches per (mode, strategy): milliseconds on a city, seconds on a large region — which is why the
    /// agent does not wait for it.
    public func buildLandmarks(modes: [TravelMode] = [.driving, .taxi], logger: Logger,
                               install: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        let graph = self.graph
        DispatchQueue.global(qos: .utility).async { [self] in
            let started = Date()
            let index = LandmarkIndex.build(graph: graph, modes: modes)
            let seconds = Date().timeIntervalSince(started)
            install {
                self.router.install(landmarks: index)
                logger.info("route landmarks ready", [
                    ("modes", modes.map(\.rawValue).joined(separator: ",")),
                    ("buildMs", String(Int(seconds * 1000))), ("bytes", String(index.memoryBytes)),
                ])
            }
        }
    }

    /// Loads the graph file at `path`. With `privateCopyDirectory` (the agent passes its state directory) the
    /// graph is a private copy made there, so a map file overwritten in place under the running agent cannot
    /// crash it (see `RoadGraph.init(privateCopyOf:in:)`); without it the file itself is mapped.
    public static func load(path: String, places: PlaceBook = PlaceBook(),
                            privateCopyDirectory: String? = nil) throws -> NavigationMap {
        let url = URL(fileURLWithPath: path)
        let graph: RoadGraph
        if let privateCopyDirectory {
            try AgentConfigurationError.createStateDirectory(privateCopyDirectory, purpose: "the state directory")
            graph = try RoadGraph(privateCopyOf: url, in: URL(fileURLWithPath: privateCopyDirectory))
        } else {
            graph = try RoadGraph(contentsOf: url)
        }
        return NavigationMap(graph: graph, name: url.lastPathComponent, places: places)
    }
}

/// Named places from `{prefix}/places/{placeId}` and the places file; resolves waypoints given by place id.
public final class PlaceBook: PlaceResolving, @unchecked Sendable {
    private let lock = NSLock()
    private var places: [String: Place] = [:]
    public init() {}

    public func set(_ id: String, _ place: Place?) {
        lock.lock()
        places[id] = place
        lock.unlock()
    }

    public func coordinate(forPlaceID placeID: String) -> Coordinate? {
        lock.lock()
        defer { lock.unlock() }
        return places[placeID]?.coordinate
    }

    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return places.count
    }

    /// A places file: `{"placeId": {"lat": …, "lon": …, "title": …}, …}`.
    public func load(file: String, limits: InputLimits = InputLimits()) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw AgentInputError(.invalidJSON, "\(file): not a JSON object of places")
        }
        for (id, value) in object {
            let entry = try JSONSerialization.data(withJSONObject: value)
            set(id, try PlacePayload.decode(Array(entry), limits: limits))
        }
    }
}

/// What a vehicle's session keeps across restarts (the trip journal's content).
public struct TripState: Sendable, Equatable, Codable {
    public var assignment: Assignment?
    /// Index in the assignment's waypoints of the current destination.
    public var currentWaypointIndex: Int = 0
    /// Assignment waypoint indices whose arrival was published.
    public var announcedArrivals: [Int] = []
    public var options: NavigatorOptions = NavigatorOptions()
    /// Every `seq` below this may have been used: a restarted agent continues from here.
    public var seqReserved: UInt64 = 0
    /// True once the last destination was reached.
    public var tripComplete = false
    public init() {}
}

/// The navigator options the agent exposes (`setOptions`), persisted and shown on `nav/state`.
public struct NavigatorOptions: Sendable, Equatable, Codable {
    public var timeUpdateThresholdSeconds: Double = 1
    public var distanceUpdateThresholdMeters: Double = 1
    public var stopGuidanceAtArrival = true
    /// Percent above the limit; nil = that severity never fires from thresholds.
    public var speedAlertMinorPercent: Double? = 10
    public var speedAlertMajorPercent: Double? = 20
    public var severityUpgradeDurationSeconds: Double?
    public init() {}

    mutating func apply(_ u: NavigatorOptionsUpdate) {
        if let v = u.timeUpdateThresholdSeconds { timeUpdateThresholdSeconds = v }
        if let v = u.distanceUpdateThresholdMeters { distanceUpdateThresholdMeters = v }
        if let v = u.stopGuidanceAtArrival { stopGuidanceAtArrival = v }
        if let v = u.speedAlertMinorPercent { speedAlertMinorPercent = v }
        if let v = u.speedAlertMajorPercent { speedAlertMajorPercent = v }
        if let v = u.severityUpgradeDurationSeconds { severityUpgradeDurationSeconds = v }
        // The SDK's rule: a minor above the major raises the major (and the reverse, via SpeedAlertOptions).
        let alert = speedAlertOptions
        speedAlertMinorPercent = alert.minorThreshold.map { $0 * 100 }
        speedAlertMajorPercent = alert.majorThreshold.map { $0 * 100 }
    }

    var speedAlertOptions: SpeedAlertOptions {
        SpeedAlertOptions(minorThreshold: speedAlertMinorPercent.map { $0 / 100 },
                          majorThreshold: speedAlertMajorPercent.map { $0 / 100 },
                          severityUpgradeDurationSeconds: severityUpgradeDurationSeconds)
    }

    var json: JSONValue {
        .object([
            ("timeUpdateThresholdSeconds", .number(timeUpdateThresholdSeconds, digits: 3)),
            ("distanceUpdateThresholdMeters", .number(distanceUpdateThresholdMeters, digits: 3)),
            ("stopGuidanceAtArrival", .bool(stopGuidanceAtArrival)),
            ("speedAlert", .object([
                ("minorPercent", .number(speedAlertMinorPercent, digits: 2)),
                ("majorPercent", .number(speedAlertMajorPercent, digits: 2)),
                ("severityUpgradeDurationSeconds", .number(severityUpgradeDurationSeconds, digits: 1)),
            ])),
        ])
    }
}

/// Where a vehicle's session saves its `TripState`. The agent's is a file (`TripJournal`); tests may keep it in memory.
public protocol TripStateStore: AnyObject {
    func save(_ state: TripState) throws
}

/// One vehicle: its navigator, its trip, its message numbering. Inputs in, outputs out; no I/O except through the
/// store, no clock (every call takes `now`, the agent's receive time). Used only under the agent's state lock.
public final class VehicleSession {
    public let vehicleID: String
    public let map: NavigationMap
    public let limits: InputLimits
    public private(set) var trip: TripState
    private var envelope: OutputEnvelope
    private let store: TripStateStore?
    /// Reserve this many `seq` values per journal write (so a fix costs no disk write).
    static let seqReservationBlock: UInt64 = 1000

    public private(set) var navigator: NavigatorCore?
    /// The assignment waits for the first fix: the navigator routes from the vehicle's position.
    public private(set) var waitingForLocation = false
    private var lastFixTime: Date?
    private var lastRouteStatus: RouteStatus?
    private var lastCommand: (name: String, requestID: String?, status: String, message: String?)?
    public private(set) var simulator: LocationSimulator?
    /// Wall-clock time the simulator was last advanced to.
    private var simulatorClock: Date?
    public private(set) var lastActivity: Date
    private var errorThrottle: ErrorThrottle
    private let minimumFixSpacingSeconds: Double
    /// Valid fixes skipped because they came closer than `minimumFixSpacingSeconds` after the last handled one.
    public private(set) var fixesThinned = 0
    /// Handled fixes that carried neither a speed nor a course: a receiver that sends positions only. The matcher and
    /// the navigator then infer motion from positions, which is less accurate (BENCHMARKS.md, "positions only").
    public private(set) var fixesWithoutSpeedOrCourse = 0

    /// `errorIntervalSeconds`: at most one `agent/error` per code and input topic in this many seconds, the rest
    /// summarised (`InboxLimits.errorIntervalSeconds`); 0, the default, publishes every error (replay, tests).
    /// `minimumFixSpacingSeconds`: fixes closer than this in fix time to the last handled one are skipped
    /// (`InboxLimits.minimumFixSpacingSeconds`); 0, the default, handles every fix.
    public init(vehicleID: String, map: NavigationMap, limits: InputLimits = InputLimits(), restored: TripState? = nil,
                store: TripStateStore? = nil, errorIntervalSeconds: Double = 0, minimumFixSpacingSeconds: Double = 0,
                now: Date) {
        self.vehicleID = vehicleID
        self.minimumFixSpacingSeconds = minimumFixSpacingSeconds
        self.errorThrottle = ErrorThrottle(intervalSeconds: errorIntervalSeconds)
        self.map = map
        self.limits = limits
        self.store = store
        self.lastActivity = now
        let trip = restored ?? TripState()
        self.trip = trip
        // Never reuse a number a previous run may have published: continue above the reserved block (the first
        // message reserves the next block and saves the journal before it goes out).
        self.envelope = OutputEnvelope(vehicleID: vehicleID, lastSeq: trip.seqReserved)
        if trip.assignment != nil && !trip.tripComplete { waitingForLocation = true }
    }

    public var seq: UInt64 { envelope.seq }
    public var isGuidanceActive: Bool { navigator?.isGuidanceActive ?? false }

    // MARK: Inputs

    /// A `nav/destinations` payload. The same `assignmentId` again changes nothing (idempotent); a new one replaces
    /// the trip; an empty payload clears it.
    public func receiveDestinations(_ payload: [UInt8], topic: String? = nil, now: Date) -> [OutboundMessage] {
        lastActivity = now
        let assignment: Assignment?
        do {
            assignment = try DestinationsPayload.decode(payload, limits: limits)
        } catch {
            return inputError(error, topic: topic, payload: payload, now: now)
        }
        return receiveAssignment(assignment, now: now)
    }

    /// A decoded assignment; nil clears the trip.
    public func receiveAssignment(_ assignment: Assignment?, now: Date) -> [OutboundMessage] {
        lastActivity = now
        guard let assignment else {
            guard trip.assignment != nil else { return [] }
            return clearTrip(now: now)
        }
        if assignment.assignmentID == trip.assignment?.assignmentID { return [] }
        var out = clearRetainedTripTopics()
        trip.assignment = assignment
        trip.currentWaypointIndex = 0
        trip.announcedArrivals = []
        trip.tripComplete = false
        routeRetryNotBefore = nil
        persist()
        if lastFixTime == nil {
            waitingForLocation = true
            out.append(stateMessage(now: now))
            return out
        }
        out += startAssignment(at: now)
        return out
    }

    /// A `location/raw` payload.
    public func receiveLocation(_ payload: [UInt8], topic: String? = nil, now: Date) -> [OutboundMessage] {
        lastActivity = now
        let fix: RawFix
        do {
            fix = try LocationPayload.decode(payload, limits: limits).fix
            try checkFreshness(fix, now: now)
        } catch {
            return inputError(error, topic: topic, payload: payload, now: now)
        }
        if let last = lastFixTime, fix.timestamp > last, fix.timestamp.timeIntervalSince(last) < minimumFixSpacingSeconds {
            fixesThinned += 1
            return []
        }
        return process(fix)
    }

    func checkFreshness(_ fix: RawFix, now: Date) throws(AgentInputError) {
        let age = now.timeIntervalSince(fix.timestamp)
        if age > limits.maximumFixAgeSeconds {
            throw AgentInputError(.staleFix, "fix is \(Int(age)) s old (limit \(Int(limits.maximumFixAgeSeconds)) s)")
        }
        if -age > limits.maximumFixLeadSeconds {
            throw AgentInputError(.futureFix, String(format: "fix is %.1f s in the future (limit %.0f s)", -age,
                                                     limits.maximumFixLeadSeconds))
        }
        if let last = lastFixTime {
            if fix.timestamp < last {
                throw AgentInputError(.outOfOrderFix, "fix at \(ISO8601Timestamp.string(from: fix.timestamp)) is older "
                    + "than the last accepted one at \(ISO8601Timestamp.string(from: last))")
            }
            if fix.timestamp == last { throw AgentInputError(.duplicateFix, "a fix with this timestamp was already processed") }
        }
    }

    /// A decoded fix (replay, tests). Out-of-order and duplicate fixes are ignored here.
    public func process(_ fix: RawFix) -> [OutboundMessage] {
        if let last = lastFixTime, fix.timestamp <= last { return [] }
        lastFixTime = fix.timestamp
        if fix.speedMetersPerSecond == nil && fix.courseDegrees == nil { fixesWithoutSpeedOrCourse += 1 }
        let nav = ensureNavigator()
        var out = messages(for: nav.process(fix))
        if waitingForLocation, routeRetryNotBefore.map({ fix.timestamp >= $0 }) ?? true {
            out += startAssignment(at: fix.timestamp)
        }
        return out
    }

    /// A `nav/command` payload. The outcome, with the request id, goes on `nav/state`.
    public func receiveCommand(_ payload: [UInt8], topic: String? = nil, now: Date) -> [OutboundMessage] {
        lastActivity = now
        let decoded: (command: AgentCommand, requestID: String?)
        do {
            decoded = try CommandPayload.decode(payload, limits: limits)
        } catch {
            let requestID = (try? PayloadObject.parse(payload, limits: limits)).flatMap { try? $0.string("requestId") }
            lastCommand = ((try? PayloadObject.parse(payload, limits: limits)).flatMap { try? $0.string("command") } ?? "",
                           requestID, "rejected", error.description)
            return inputError(error, topic: topic, payload: payload, now: now) + [stateMessage(now: now)]
        }
        return apply(decoded.command, requestID: decoded.requestID, now: now)
    }

    public func apply(_ command: AgentCommand, requestID: String?, now: Date) -> [OutboundMessage] {
        var out: [OutboundMessage] = []
        var status = "ok"
        var message: String?
        switch command {
        case .continueToNextDestination:
            if let nav = navigator, nav.destinations.count > 1 {
                out += continueToNext(nav, at: now)
            } else {
                status = "rejected"
                message = "no next destination"
            }
        case .clearDestinations:
            if trip.assignment == nil {
                message = "no destinations to clear"
            }
            lastCommand = (command.name, requestID, status, message)
            return clearTrip(now: now)
        case .startGuidance, .stopGuidance:
            if let nav = navigator, nav.activeLeg != nil {
                out += messages(for: nav.setGuidanceActive(command == .startGuidance, at: now))
            } else if command == .startGuidance {
                status = "rejected"
                message = "no route"
            }
        case .simulate(let request):
            if let nav = navigator, !nav.remainingRouteLegs.isEmpty {
                var configuration = LocationSimulatorConfiguration(fixIntervalSeconds: request.fixIntervalSeconds)
                if request.noiseMeters > 0 {
                    var realism = SimulationRealism()
                    realism.positionSigmaMeters = request.noiseMeters
                    realism.outlierProbability = 0
                    realism.reportedAccuracyMeters = max(5, request.noiseMeters * 1.5)
                    realism.dropFixesInTunnels = false
                    configuration.realism = realism
                }
                let sim = LocationSimulator(graph: map.graph, configuration: configuration, index: map.index)
                sim.speedMultiplier = request.speedMultiplier
                // Start just after the last fix so the first simulated fix is never a duplicate.
                let start = max(now, (lastFixTime ?? now).addingTimeInterval(0.001))
                sim.simulateLocationsAlongExistingRoute(nav, at: start)
                simulator = sim
                simulatorClock = start
            } else {
                status = "rejected"
                message = "no route to simulate along (the SDK's simulator does nothing without one)"
            }
        case .pauseSimulation, .resumeSimulation, .stopSimulation:
            if let sim = simulator {
                switch command {
                case .pauseSimulation: sim.pause()
                case .resumeSimulation: sim.resume()
                default:
                    sim.stop()
                    simulator = nil
                }
            } else {
                status = "rejected"
                message = "no simulation running"
            }
        case .setOptions(let update):
            trip.options.apply(update)
            if let nav = navigator { configure(nav) }
            persist()
        }
        lastCommand = (command.name, requestID, status, message)
        out.append(stateMessage(now: now))
        return out
    }

    /// Traffic observations (`{prefix}/traffic`). Kept also before the vehicle's first fix (the navigator is made
    /// here then): the feed is not retained, and the first route should see it.
    public func receiveTraffic(_ observations: [TrafficObservation], now: Date) -> [OutboundMessage] {
        messages(for: ensureNavigator().updateTraffic(observations, at: now))
    }

    /// The simulator's fixes due by `now` (wall clock), to publish on `location/raw`.
    public func simulatedFixes(now: Date) -> [RawFix] {
        guard let sim = simulator, let clock = simulatorClock, now > clock else { return [] }
        simulatorClock = now
        return sim.advance(by: now.timeIntervalSince(clock))
    }

    /// An error on an input of this vehicle, unless the error limit holds it back for a later summary.
    func inputError(_ error: AgentInputError, topic: String?, payload: [UInt8]?, now: Date) -> [OutboundMessage] {
        guard errorThrottle.admit(error, topic: topic, payload: payload, now: now) else { return [] }
        return [errorMessage(error, topic: topic, payload: payload, now: now)]
    }

    /// True while errors held back by the error limit wait for their summary.
    public var hasSuppressedErrors: Bool { errorThrottle.hasSuppressed }

    /// One `agent/error` per code and input topic whose interval has passed, counting the errors held back
    /// (`suppressedCount`) and showing the last of them.
    /// `suppressed` is how many errors the summaries stand for.
    public func suppressedErrorSummaries(now: Date) -> (messages: [OutboundMessage], suppressed: Int) {
        let due = errorThrottle.dueSummaries(now: now)
        let messages = due.map { held in
            wrap(.error, now, OutputPayloads.error(held.summary, topic: held.topic, payload: held.payload,
                                                   suppressedCount: held.count))
        }
        return (messages, due.reduce(0) { $0 + $1.count })
    }

    /// An error on an input of this vehicle (always published).
    public func errorMessage(_ error: AgentInputError, topic: String?, payload: [UInt8]?, now: Date) -> OutboundMessage {
        wrap(.error, now, OutputPayloads.error(error, topic: topic, payload: payload))
    }

    // MARK: The trip

    private func ensureNavigator() -> NavigatorCore {
        if let navigator { return navigator }
        let nav = NavigatorCore(graph: map.graph, router: map.router, snapper: MapMatcherSnapper(index: map.index, searchScratch: map.searchScratch),
                                placeResolver: map.places)
        configure(nav)
        navigator = nav
        return nav
    }

    private func configure(_ nav: NavigatorCore) {
        let o = trip.options
        nav.timeUpdateThresholdSeconds = o.timeUpdateThresholdSeconds
        nav.distanceUpdateThresholdMeters = o.distanceUpdateThresholdMeters
        nav.stopGuidanceAtArrival = o.stopGuidanceAtArrival
        nav.speedAlertOptions = o.speedAlertOptions
        if let a = trip.assignment {
            nav.travelMode = a.travelMode
            nav.avoidsHighways = a.avoidHighways
            nav.avoidsTolls = a.avoidTolls
            nav.avoidsFerries = a.avoidFerries
        }
    }

    /// Routes the assignment from the current waypoint on (0 for a new trip; later after a restart).
    private func startAssignment(at time: Date) -> [OutboundMessage] {
        waitingForLocation = false
        guard let a = trip.assignment else { return [] }
        let nav = ensureNavigator()
        configure(nav)
        waypointOffset = trip.currentWaypointIndex
        let waypoints = a.waypoints.dropFirst(trip.currentWaypointIndex).map(\.navigationWaypoint)
        let (status, events) = nav.setDestinations(
            Array(waypoints), options: DestinationOptions(startsGuidance: a.startGuidance), at: time)
        let retrying = routeRetryNotBefore != nil
        if status == .noRouteFound || status == .locationUnavailable {
            // The first fixes may sit on a road the vehicle cannot leave (a noisy fix on a footway or a oneway stub):
            // try again from a later fix rather than give up the trip.
            waitingForLocation = true
            routeRetryNotBefore = time.addingTimeInterval(Self.routeRetrySeconds)
            if retrying && status == lastRouteStatus { return [] }
        } else {
            routeRetryNotBefore = nil
        }
        var out = messages(for: events)
        if !out.contains(where: { $0.topic == .state }) { out.append(stateMessage(now: time)) }
        return out
    }

    /// Seconds of fix time between route attempts while the assignment cannot be routed from the vehicle's position.
    static let routeRetrySeconds: Double = 5
    private var routeRetryNotBefore: Date?
    /// The assignment index of the first waypoint given to the navigator (its indices count from there; they stay
    /// stable across `continueToNextDestination`).
    private var waypointOffset = 0

    private func continueToNext(_ nav: NavigatorCore, at time: Date) -> [OutboundMessage] {
        let events = nav.continueToNextDestination(at: time).events
        trip.currentWaypointIndex += 1
        persist()
        return messages(for: events)
    }

    /// Clears the destinations and the retained trip topics (`nav/arrival`, `nav/eta`, `nav/delay`).
    private func clearTrip(now: Date) -> [OutboundMessage] {
        var out: [OutboundMessage] = []
        simulator?.stop()
        simulator = nil
        if let nav = navigator { out += messages(for: nav.clearDestinations(at: now)) }
        let hadTrip = trip.assignment != nil
        trip.assignment = nil
        trip.currentWaypointIndex = 0
        trip.announcedArrivals = []
        trip.tripComplete = false
        waitingForLocation = false
        routeRetryNotBefore = nil
        persist()
        if hadTrip && !out.contains(where: { $0.topic == .route }) {
            // Never routed (still waiting for a fix): say so on nav/route all the same.
            out.append(wrap(.route, now, [("reason", "cleared"), ("routeStatus", "ok"), ("assignmentId", .null),
                                          ("currentLegIndex", .null), ("distanceMeters", 0), ("durationSeconds", 0),
                                          ("legs", [])]))
        }
        out += clearRetainedTripTopics()
        out.append(stateMessage(now: now))
        return out
    }

    private func clearRetainedTripTopics() -> [OutboundMessage] {
        latestStateValues[.eta] = .cleared
        latestStateValues[.delay] = .cleared
        return [.clear(.arrival), .clear(.eta), .clear(.delay)]
    }

    /// The newest value of a retained state topic (`nav/state` is rebuilt from the trip instead).
    private enum LatestStateValue {
        case cleared
        case location(SnappedLocationEvent)
        case eta(seconds: Double, meters: Double, time: Date, waypointIndex: Int)
        case delay(DelayCategoryEvent)
        case speeding(SpeedingEvent)
        case lighting(LightingEvent)
    }

    /// Each state topic's newest value, kept so that one the outbox shed during an outage can be published again
    /// (`republish`): otherwise a vehicle that stops sending would keep an older retained value for good.
    private var latestStateValues: [OutputTopic: LatestStateValue] = [:]

    /// The current value of each of `topics` (state topics of this vehicle) again, with new `seq` numbers and the
    /// `timestamp` of the input that produced the value. For what the outbox shed.
    public func republish(_ topics: Set<OutputTopic>, now: Date) -> [OutboundMessage] {
        var out: [OutboundMessage] = []
        for topic in OutputTopic.allCases where topics.contains(topic) {
            if topic == .state { out.append(stateMessage(now: now)); continue }
            switch latestStateValues[topic] {
            case .cleared?: out.append(.clear(topic))
            case .location(let e)?: out.append(numbered(envelope.snappedLocation(e)))
            case .eta(let seconds, let meters, let time, let index)?:
                out.append(numbered(envelope.eta(remainingSeconds: seconds, remainingMeters: meters, timestamp: time,
                                                 waypointIndex: index)))
            case .delay(let e)?: out.append(wrap(.delay, e.timestamp, OutputPayloads.delay(e)))
            case .speeding(let e)?: out.append(numbered(envelope.speeding(e)))
            case .lighting(let e)?: out.append(wrap(.lighting, e.timestamp, OutputPayloads.lighting(e)))
            case nil: break
            }
        }
        return out
    }

    /// Turns navigator events into messages: one `nav/eta` per input, arrivals de-duplicated and auto-continued.
    private func messages(for events: [NavigationEvent]) -> [OutboundMessage] {
        var out: [OutboundMessage] = []
        var etaPublished = false
        var stateChanged = false
        var continueAt: Date?
        let offset = waypointOffset
        let assignmentID = trip.assignment?.assignmentID
        for event in events {
            switch event {
            case .location(let e):
                out.append(numbered(envelope.snappedLocation(e)))
                latestStateValues[.snappedLocation] = .location(e)
            case .routeChanged(let e):
                out.append(wrap(.route, e.timestamp, OutputPayloads.route(e, assignmentID: assignmentID, waypointOffset: offset)))
                if e.routeStatus != lastRouteStatus || e.reason != .offRoute { stateChanged = true }
                lastRouteStatus = e.reason == .cleared ? nil : e.routeStatus
            case .arrival(let e):
                let index = e.waypoint.index + offset
                if !trip.announcedArrivals.contains(index) {
                    out.append(wrap(.arrival, e.timestamp,
                                    OutputPayloads.arrival(e, assignmentID: assignmentID, waypointOffset: offset)))
                    trip.announcedArrivals.append(index)
                    if e.remainingWaypoints == 0 { trip.tripComplete = true }
                    persist()
                }
                stateChanged = true
                if e.remainingWaypoints > 0, trip.assignment?.autoContinue ?? false { continueAt = e.timestamp }
            case .remainingTime, .remainingDistance:
                // One nav/eta per input, carrying the latest time and distance, where the first of the two came.
                guard !etaPublished, !trip.tripComplete else { continue }
                etaPublished = true
                var latest: (seconds: Double, meters: Double, time: Date, index: Int)?
                for later in events {
                    if case .remainingTime(let t) = later { latest = (t.remainingSeconds, t.remainingMeters, t.timestamp, t.waypointIndex) }
                    if case .remainingDistance(let d) = later {
                        latest = (d.remainingSeconds, d.remainingMeters, d.timestamp, d.waypointIndex)
                    }
                }
                if let eta = latest {
                    out.append(numbered(envelope.eta(remainingSeconds: eta.seconds, remainingMeters: eta.meters,
                                                     timestamp: eta.time, waypointIndex: eta.index + offset)))
                    latestStateValues[.eta] = .eta(seconds: eta.seconds, meters: eta.meters, time: eta.time,
                                                   waypointIndex: eta.index + offset)
                }
            case .delayCategory(let e):
                out.append(wrap(.delay, e.timestamp, OutputPayloads.delay(e)))
                latestStateValues[.delay] = .delay(e)
            case .speeding(let e):
                out.append(numbered(envelope.speeding(e)))
                latestStateValues[.speeding] = .speeding(e)
            case .lighting(let e):
                out.append(wrap(.lighting, e.timestamp, OutputPayloads.lighting(e)))
                latestStateValues[.lighting] = .lighting(e)
            }
        }
        if trip.tripComplete && events.contains(where: { if case .arrival = $0 { true } else { false } }) {
            // The trip is over: no time or distance is left to report.
            out += [.clear(.eta), .clear(.delay)]
            latestStateValues[.eta] = .cleared
            latestStateValues[.delay] = .cleared
        }
        if let continueAt, let nav = navigator {
            out += continueToNext(nav, at: continueAt)
            stateChanged = true
        }
        if stateChanged, let time = events.first?.timestamp { out.append(stateMessage(now: time)) }
        return out
    }

    /// The `nav/state` payload.
    public func stateMessage(now: Date) -> OutboundMessage {
        let nav = navigator
        var command: JSONValue = .null
        if let c = lastCommand {
            command = .object([("command", .string(c.name)), ("requestId", .string(c.requestID)), ("status", .string(c.status)),
                               ("message", .string(c.message))])
        }
        let status: JSONValue = waitingForLocation && routeRetryNotBefore == nil
            ? "waitingForLocation" : .string(lastRouteStatus?.rawValue)
        let waypointIndex: JSONValue = trip.assignment == nil ? .null : .int(Int64(trip.currentWaypointIndex))
        return wrap(.state, now, [
            ("guidanceActive", .bool(nav?.isGuidanceActive ?? false)),
            ("routeStatus", status),
            ("travelMode", .string((trip.assignment?.travelMode ?? nav?.travelMode ?? .driving).rawValue)),
            ("assignmentId", .string(trip.assignment?.assignmentID)),
            ("currentWaypointIndex", waypointIndex),
            ("waypointCount", trip.assignment.map { .int(Int64($0.waypoints.count)) } ?? .null),
            ("tripComplete", .bool(trip.tripComplete)),
            ("autoContinue", trip.assignment.map { .bool($0.autoContinue) } ?? .null),
            ("simulating", .bool(simulator?.isSimulating ?? false)),
            ("options", trip.options.json),
            ("lastCommand", command),
        ])
    }

    /// Any other message for this vehicle's topics (metrics), numbered in the same sequence.
    public func message(_ topic: OutputTopic, at time: Date, _ body: [(String, JSONValue)]) -> OutboundMessage {
        wrap(topic, time, body)
    }

    private func wrap(_ topic: OutputTopic, _ time: Date, _ body: [(String, JSONValue)]) -> OutboundMessage {
        numbered(envelope.wrap(topic, timestamp: time, body))
    }

    /// `message`, just numbered by the envelope, once its `seq` is covered by the journal's reservation.
    private func numbered(_ message: OutboundMessage) -> OutboundMessage {
        if envelope.seq >= trip.seqReserved {
            trip.seqReserved = envelope.seq + Self.seqReservationBlock
            persist()
        }
        return message
    }

    /// Why the last journal write failed; nil while writes succeed.
    private(set) var persistError: String?
    /// A change between "the journal is written" and "writing it fails" that the runtime has not reported yet.
    private var unreportedPersistenceChange: PersistenceChange?

    public enum PersistenceChange: Equatable, Sendable {
        /// Writing the journal began to fail, for this reason.
        case failing(String)
        /// The journal was written again after failures.
        case recovered
    }

    /// The change since the last call, if any (the runtime logs it and publishes `stateWriteFailed`).
    public func takePersistenceChange() -> PersistenceChange? {
        defer { unreportedPersistenceChange = nil }
        return unreportedPersistenceChange
    }

    private func persist() {
        do {
            try store?.save(trip)
            if persistError != nil { unreportedPersistenceChange = .recovered }
            persistError = nil
        } catch {
            if persistError == nil { unreportedPersistenceChange = .failing("\(error)") }
            persistError = "\(error)"
        }
    }
}
