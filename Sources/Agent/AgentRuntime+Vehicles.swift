import Foundation
import MQTT
import Navigation
import Synchronization

/// Hands messages from the MQTT network thread to the runtime's inbox (set once, before the client starts). The
/// network thread classifies the topic and queues the message. A raw fix that finds the inbox idle is then handled at
/// once, on the network thread (its outputs go out when the callback returns: no thread hand-off either way), as long
/// as the agent's queue is not busy and the network thread's inline budget (`InboxLimits.inlineShare`) allows;
/// everything else — assignments, commands, and any burst the inbox is already holding — is handled on the agent's
/// queue, so a burst never holds up PUBACKs or outputs for long.
final class MessageInbox: @unchecked Sendable {
    // Unchecked: `budget` and `handledInline` are used only on the network thread (the one caller of `deliver` and
    // `deliveriesEnded`).
    weak var runtime: AgentRuntime?
    private var budget = InlineBudget()
    /// True when a fix was handled inline since the last `deliveriesEnded`: its outputs wait in memory.
    private var handledInline = false

    func deliver(_ message: MQTTMessage) {
        let receivedAt = DispatchTime.now().uptimeNanoseconds
        guard let runtime else { return }
        let entry = InboxEntry(target: runtime.router.target(of: message.topic), message: message,
                               receivedAtNanoseconds: receivedAt)
        guard runtime.inbox.put(entry) else {
            // Over the arrival rate the fix is held, and the tick must release it within milliseconds.
            if case .vehicle(_, .location) = entry.target, runtime.inbox.isHolding { runtime.setTickCadence(fast: true) }
            return
        }
        if case .vehicle(let vehicleID, .location) = entry.target,
           budget.admits(now: receivedAt, limits: runtime.configuration.inbox),
           runtime.drainInline(vehicleID: vehicleID)
        {
            budget.charge(DispatchTime.now().uptimeNanoseconds - receivedAt)
            handledInline = true
            return
        }
        runtime.asyncExclusively { runtime.drainInbox() }
    }

    /// After a read of the socket that delivered messages (on the network thread): the outputs of the fixes handled
    /// inline during it go to the outbox together.
    func deliveriesEnded() {
        guard handledInline else { return }
        handledInline = false
        runtime?.flushInlineOutputs()
    }
}

/// How much of the network thread's time goes to handling fixes inline: at most `InboxLimits.inlineShare` of each
/// `InboxLimits.inlineWindowSeconds`; beyond, fixes wait for the agent's queue until the next window.
struct InlineBudget {
    private var windowStartNanoseconds: UInt64 = 0
    private var spentNanoseconds: UInt64 = 0

    mutating func admits(now: UInt64, limits: InboxLimits) -> Bool {
        let window = UInt64(limits.inlineWindowSeconds * 1e9)
        if now >= windowStartNanoseconds + window {
            windowStartNanoseconds = now
            spentNanoseconds = 0
        }
        return Double(spentNanoseconds) < Double(window) * limits.inlineShare
    }

    mutating func charge(_ nanoseconds: UInt64) { spentNanoseconds += nanoseconds }
}

/// Which vehicle and input a topic is. Immutable, used on the network thread; the topic names it compares with are
/// built once, not per message.
struct InputRouter: Sendable {
    let isFleet: Bool
    let prefix: String
    let vehicleID: String
    private let trafficTopics: [String]
    private let placesPrefix: String
    private let vehiclePrefix: String
    private let destinationsTopic: String
    private let locationTopic: String
    private let commandTopic: String

    init(isFleet: Bool, prefix: String, vehicleID: String, topics: TopicTree, locationTopic: String?) {
        self.isFleet = isFleet
        self.prefix = prefix
        self.vehicleID = vehicleID
        trafficTopics = [topics.traffic, "\(prefix)/traffic"]
        placesPrefix = "\(prefix)/places/"
        vehiclePrefix = prefix + "/"
        destinationsTopic = topics.destinations
        self.locationTopic = locationTopic ?? topics.rawLocation
        commandTopic = topics.command
    }

    func target(of topic: String) -> InputTarget {
        if trafficTopics.contains(topic) { return .traffic }
        if topic.hasPrefix(placesPrefix) { return .place(String(topic.dropFirst(placesPrefix.count))) }
        if !isFleet {
            if topic == destinationsTopic { return .vehicle(vehicleID, .destinations) }
            if topic == locationTopic { return .vehicle(vehicleID, .location) }
            if topic == commandTopic { return .vehicle(vehicleID, .command) }
            return .unknown
        }
        // Byte by byte (MQTT topics are bytes), without splitting the topic into an array of levels.
        guard topic.utf8.starts(with: vehiclePrefix.utf8) else { return .unknown }
        let rest = topic.utf8.dropFirst(vehiclePrefix.utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return .unknown }
        let input: VehicleInput
        switch Substring(rest[rest.index(after: slash)...]) {
        case "nav/destinations": input = .destinations
        case "location/raw": input = .location
        case "nav/command": input = .command
        default: return .unknown
        }
        return .vehicle(String(Substring(rest[..<slash])), input)
    }
}

extension AgentRuntime {
    // MARK: Routing inputs

    /// Entries handled per turn on the queue: between turns the timers run.
    static let drainBatchSize = 64

    /// On `queue` (holding `stateLock`): handles one batch from the inbox, then comes back for more (after the timers
    /// had their turn) until it is empty.
    func drainInbox() {
        guard handleBatch() else { return }
        asyncExclusively { [self] in drainInbox() }
    }

    /// On the network thread, called when a fix found the inbox idle: handles what the inbox holds now (that fix) at
    /// once, if the agent's queue is not using the state. Its outputs wait in `pendingOutputs` (events excepted: they
    /// are stored at once) until the read that delivered the fix ends (`flushInlineOutputs`): one journal write for
    /// all the fixes of one read — in fleet mode dozens — instead of one each. The network thread, the caller, then
    /// sends them; no wake-up is needed. False when the state was busy
    /// (the caller schedules a drain on the queue instead), or when the fix would start the vehicle's route: a route
    /// search takes milliseconds to seconds, which the network thread must not spend.
    func drainInline(vehicleID: String) -> Bool {
        guard stateLock.try() else { return false }
        defer { stateLock.unlock() }
        if sessions[vehicleID]?.waitingForLocation == true { return false }
        var handled = 0
        while handleBatch(inline: true) {
            handled += 1
            if handled == 2 {
                // Not expected (only the network thread puts, and it is here): leave the rest to the queue.
                asyncExclusively { [self] in drainInbox() }
                break
            }
        }
        metrics.fixesInline += 1
        return true
    }

    /// Handles one batch from the inbox; false when it was empty (which ends the drain: the next `put` or
    /// `releaseHeld` starts another). One journal write and one wake-up of the network thread for the batch's
    /// outputs, not one per output; `inline` (on the network thread) leaves both to `flushInlineOutputs`.
    private func handleBatch(inline: Bool = false) -> Bool {
        let batch = inbox.take(maximum: Self.drainBatchSize)
        if batch.isEmpty { return false }
        deferringNetworkWake = true
        for refusal in batch.refusals { report(refusal, now: Date()) }
        for entry in batch.entries { handle(entry, now: Date()) }
        if !inline { flushPendingOutputs() }  // the batch's outputs: one journal write
        deferringNetworkWake = false
        if !inline { client.wakeNetworkThread() }
        return true
    }

    /// On the network thread, when a read that delivered messages ends: stores the outputs `drainInline` left in
    /// `pendingOutputs`, with one journal write, for the network thread to send next. If the agent's queue holds the
    /// state meanwhile, the queue stores them (in order: they are first in `pendingOutputs`) and wakes the network
    /// thread.
    func flushInlineOutputs() {
        guard stateLock.try() else {
            asyncExclusively { [self] in flushPendingOutputs() }
            return
        }
        deferringNetworkWake = true  // the caller is the network thread: it sends them next
        flushPendingOutputs()
        deferringNetworkWake = false
        stateLock.unlock()
    }

    /// One input, holding `stateLock`.
    func handle(_ entry: InboxEntry, now: Date) {
        metrics.messagesIn += 1
        let message = entry.message
        let topic = message.topic
        let vehicleID: String, input: VehicleInput
        switch entry.target {
        case .traffic:
            return handleTraffic(message, now: now)
        case .place(let id):
            return handlePlace(id: id, message, now: now)
        case .unknown:
            return publishAgentError(AgentInputError(.unknownTopic, "the agent does not read \(topic)"), topic: topic,
                                     payload: message.payload, now: now)
        case .vehicle(let id, let kind):
            (vehicleID, input) = (id, kind)
        }
        guard let session = session(for: vehicleID, now: now) else {
            publishAgentError(AgentInputError(.noMap, "the agent runs without a map (--map) and cannot navigate"),
                              topic: topic, payload: message.payload, now: now)
            return
        }
        let out: [OutboundMessage]
        switch input {
        case .destinations:
            out = session.receiveDestinations(message.payload, topic: topic, now: now)
        case .location:
            let thinnedBefore = session.fixesThinned
            let bareBefore = session.fixesWithoutSpeedOrCourse
            out = session.receiveLocation(message.payload, topic: topic, now: now)
            metrics.fixes += 1
            metrics.fixesThinned += session.fixesThinned - thinnedBefore
            metrics.fixesWithoutSpeedOrCourse += session.fixesWithoutSpeedOrCourse - bareBefore
            warnOncePositionsOnly(session)
        case .command:
            out = session.receiveCommand(message.payload, topic: topic, now: now)
            if session.simulator != nil { simulating.insert(vehicleID) } else { simulating.remove(vehicleID) }
            if !simulating.isEmpty { setTickCadence(fast: true) }
        }
        publish(out, vehicleID: vehicleID)
        if let change = session.takePersistenceChange() { report(change, of: session, now: now) }
        if session.hasSuppressedErrors { vehiclesWithSuppressedErrors.insert(vehicleID) }
        if input == .location {
            metrics.recordLatency(nanoseconds: DispatchTime.now().uptimeNanoseconds - entry.receivedAtNanoseconds)
        }
    }

    /// Logs once per agent, at the first vehicle whose fixes carried neither speed nor course
    /// `positionsOnlyWarningFixes` times: an operator can often switch the receiver's speed and course on, and
    /// otherwise should know why snapping and rerouting are weaker. Once, not per vehicle: a fleet of positions-only
    /// receivers would log thousands of lines; `agent/metrics` keeps the count (`fixesWithoutSpeedOrCourse`).
    private func warnOncePositionsOnly(_ session: VehicleSession) {
        guard !warnedPositionsOnly, session.fixesWithoutSpeedOrCourse >= Self.positionsOnlyWarningFixes else { return }
        warnedPositionsOnly = true
        logger.warning("fixes carry no speed and no course; road snapping, leaving the route and arrivals then "
                       + "rely on positions alone and are less accurate. Send the receiver's speed and course if it "
                       + "has them (logged once per agent; agent/metrics counts fixesWithoutSpeedOrCourse)",
                       [("vehicleId", session.vehicleID),
                        ("fixes", String(session.fixesWithoutSpeedOrCourse))])
    }

    /// A vehicle's trip journal began to fail (logged as an error and published as `stateWriteFailed`) or works again.
    private func report(_ change: VehicleSession.PersistenceChange, of session: VehicleSession, now: Date) {
        switch change {
        case .failing(let reason):
            logger.error("cannot write the trip journal; navigation goes on from memory, but a restart now could "
                         + "repeat or miss an arrival", [("vehicleId", session.vehicleID), ("error", reason)])
            let error = AgentInputError(.stateWriteFailed, "cannot write the trip journal in the state directory: "
                                        + reason + "; a restart before it is written again could repeat or miss an arrival")
            publish([session.errorMessage(error, topic: nil, payload: nil, now: now)], vehicleID: session.vehicleID)
        case .recovered:
            logger.info("the trip journal is written again", [("vehicleId", session.vehicleID)])
        }
    }

    /// Inputs the inbox refused (its queue was full): one `inboxFull` per topic and report.
    private func report(_ refusal: InboxRefusal, now: Date) {
        let bound: String
        switch refusal.target {
        case .vehicle: bound = "\(configuration.inbox.maximumQueuedControlInputsPerVehicle) assignments and commands per vehicle"
        default: bound = "\(configuration.inbox.maximumQueuedFleetInputs) fleet-wide inputs"
        }
        let error = AgentInputError(.inboxFull, "\(refusal.count) input(s) refused: the agent's inbox held \(bound) "
            + "not yet handled")
        logger.warning("inbox full: inputs refused", [("topic", refusal.topic), ("count", String(refusal.count))])
        if case .vehicle(let vehicleID, _) = refusal.target, let session = session(for: vehicleID, now: now) {
            publish(session.inputError(error, topic: refusal.topic, payload: refusal.payloadExcerpt, now: now),
                    vehicleID: vehicleID)
            if session.hasSuppressedErrors { vehiclesWithSuppressedErrors.insert(vehicleID) }
        } else {
            publishAgentError(error, topic: refusal.topic, payload: refusal.payloadExcerpt, now: now)
        }
    }

    private func handleTraffic(_ message: MQTTMessage, now: Date) {
        do {
            let observations = try TrafficPayload.decode(message.payload, limits: configuration.limits)
            for (vehicleID, session) in sessions {
                publish(session.receiveTraffic(observations, now: now), vehicleID: vehicleID)
            }
        } catch {
            publishAgentError(error, topic: message.topic, payload: message.payload, now: now)
        }
    }

    private func handlePlace(id: String, _ message: MQTTMessage, now: Date) {
        guard let map else { return }
        do {
            guard !id.isEmpty, id.count <= configuration.limits.maximumStringLength else {
                throw AgentInputError(.invalidField, "place id must be 1 to \(configuration.limits.maximumStringLength) characters")
            }
            map.places.set(id, try PlacePayload.decode(message.payload, limits: configuration.limits))
        } catch {
            publishAgentError(error as? AgentInputError ?? AgentInputError(.internalError, "\(error)"), topic: message.topic,
                              payload: message.payload, now: now)
        }
    }

    /// The vehicle's session, created (and its journal restored) on its first message.
    func session(for vehicleID: String, now: Date) -> VehicleSession? {
        if let session = sessions[vehicleID] { return session }
        guard let map else { return nil }
        let tree: TopicTree
        do {
            tree = try TopicTree(prefix: configuration.topicPrefix, vehicleID: vehicleID)
        } catch {
            return nil
        }
        var restored: TripState?
        var journal: TripJournal?
        var corruption: AgentInputError?
        do {
            let j = try TripJournal(directory: configuration.stateDirectory, vehicleID: vehicleID,
                                    durable: !configuration.isFleet)
            journal = j
            switch j.load() {
            case .empty: break
            case .restored(let state): restored = state
            case .corrupt(let error, _): corruption = error
            }
        } catch {
            logger.error("cannot open the trip journal; this vehicle's trip will not survive a restart",
                         [("vehicleId", vehicleID), ("error", "\(error)")])
        }
        let session = VehicleSession(vehicleID: vehicleID, map: map, limits: configuration.limits, restored: restored,
                                     store: journal, errorIntervalSeconds: configuration.inbox.errorIntervalSeconds,
                                     minimumFixSpacingSeconds: configuration.inbox.minimumFixSpacingSeconds, now: now)
        sessions[vehicleID] = session
        vehicleTopics[vehicleID] = tree
        metrics.vehiclesCreated += 1
        if let corruption {
            logger.error("corrupt trip journal moved aside", [("vehicleId", vehicleID), ("error", corruption.message)])
            publish([session.errorMessage(corruption, topic: nil, payload: nil, now: now)], vehicleID: vehicleID)
        }
        if let trip = restored?.assignment {
            logger.info("resuming trip from the journal", [
                ("vehicleId", vehicleID), ("assignmentId", trip.assignmentID),
                ("currentWaypointIndex", String(restored?.currentWaypointIndex ?? 0)),
            ])
        }
        return session
    }

    // MARK: Publishing

    /// A vehicle's outputs, in order. With nothing held in the backlog they wait in `pendingOutputs` and go to the
    /// outbox together, as one journal write (`MQTTClient.publish(_:)`), when the drain batch ends — or at once
    /// when they include an event (an arrival or a route: the trip journal already counts it as announced, so it
    /// must not wait in memory), or before any output published another way (order is kept). Whatever the outbox
    /// does not take then, and everything while the backlog holds outputs, goes one by one through
    /// `publish(topic:payload:kind:)`.
    func publish(_ messages: [OutboundMessage], vehicleID: String) {
        guard !messages.isEmpty, let tree = vehicleTopics[vehicleID] else { return }
        var hasEvent = false
        for message in messages {
            if message.topic == .error { metrics.errors += 1 }
            if message.topic.kind == .event { hasEvent = true }
            let topic = tree.output(message.topic)
            // A fresh value of a shed topic: nothing left to republish for it.
            if !shedTopicsToRepublish.isEmpty { shedTopicsToRepublish.remove(topic) }
            pendingOutputs.append(OutboxEntry(topic: topic, payload: message.payloadBytes,
                                              retain: true, kind: message.topic.kind))
        }
        if hasEvent || !deferringNetworkWake { flushPendingOutputs() }
    }

    /// Hands `pendingOutputs` to the outbox (see `publish(_:vehicleID:)`).
    func flushPendingOutputs() {
        guard !pendingOutputs.isEmpty else { return }
        let entries = pendingOutputs
        pendingOutputs.removeAll(keepingCapacity: true)
        var first = 0
        if !backlog.isEmpty && !retryingBacklog { retryBacklog() }
        if backlog.isEmpty {
            let result = client.publish(entries, wakeNetworkThread: !deferringNetworkWake)
            metrics.messagesOut += result.stored
            if result.stored > 0 { reportShedIfDue() }
            first = result.stored
            if let error = result.error, first < entries.count, error.code != .outboxFull, error.code != .outboxIO {
                // Refused for good (as `offerToOutbox` logs and drops it); the rest go on one by one.
                logger.error("publish failed", [("topic", entries[first].topic), ("code", error.code.rawValue),
                                                ("error", error.message)])
                first += 1
            }
        }
        for entry in entries[first...] {
            publish(topic: entry.topic, payload: entry.payload, kind: entry.kind, retain: entry.retain)
        }
    }

    /// Queues one output in the outbox. When the outbox refuses it (full of events, or a disk error), the output is
    /// held in the in-memory `backlog`, as is everything after it until the backlog drains (see `PublishBacklog`).
    func publish(topic: String, payload: String, kind: MessageKind, retain: Bool = true) {
        publish(topic: topic, payload: Array(payload.utf8), kind: kind, retain: retain)
    }

    func publish(topic: String, payload: [UInt8], kind: MessageKind, retain: Bool = true) {
        flushPendingOutputs()  // they came first
        let message = PublishBacklog.Message(topic: topic, payload: payload, retain: retain, kind: kind,
                                             isError: kind == .event && topic.hasSuffix("/agent/error"))
        if !backlog.isEmpty && !retryingBacklog { retryBacklog() }
        if backlog.isEmpty, offerToOutbox(message) { return }
        if backlog.isEmpty {
            logger.warning("the outbox refused an output; holding outputs in memory until it has room",
                           [("topic", topic), ("kind", kind.rawValue), ("reason", lastOutboxRefusal ?? "")])
        }
        switch backlog.hold(message) {
        case .event(let lost)?:
            logger.error("output backlog full: dropped the oldest held event", [("topic", lost)])
        case .error(let dropped)?:
            logger.warning("output backlog full: dropped the oldest held agent/error", [("topic", dropped)])
        case .state(let shed)?:
            shedLedger.record(topic: shed)
        case nil:
            break
        }
    }

    /// Reports what the outbox shed (at most once a second: `ShedLedger`) and publishes the shed trip states again
    /// once the outbox has room. Called after each successful publish and from the 100 ms tick, so the last shedding
    /// of a burst is reported even when nothing else is published after it.
    func reportShedIfDue() {
        guard !reportingShed else { return }
        reportingShed = true
        defer { reportingShed = false }
        if let report = shedLedger.take(now: Date()) {
            logger.warning("outbox full: shed state messages",
                           [("messages", String(report.total)), ("topics", String(report.countsByTopic.count))])
            publishAgentError(AgentInputError(.outboxShed, report.message), topic: nil, payload: nil, now: Date())
            shedTopicsToRepublish.formUnion(report.countsByTopic.keys)
        }
        republishShedTopicsIfRoom()
    }

    /// The outbox sheds a topic's newest value (older ones were already superseded), so a vehicle whose state topic
    /// was shed and does not change again — a finished trip, a parked vehicle — would keep a stale retained value.
    /// Each such topic's current value is published again, with a new `seq`, but only once the outbox has drained to
    /// half its bound: while the broker is slow rather than away the outbox stays near full, and republishing there
    /// would shed other topics' values, to be republished in turn at once (a fleet of 10,000 spent most of its CPU on
    /// that loop). Past half, each round waits for the broker to take half the outbox; what a round sheds again waits
    /// for the next. A topic published afresh meanwhile is left out (`publish(_:vehicleID:)`).
    private func republishShedTopicsIfRoom() {
        guard !shedTopicsToRepublish.isEmpty,
              client.outbox.count <= configuration.outboxMaxMessages / 2 else { return }
        let shed = shedTopicsToRepublish
        shedTopicsToRepublish = []
        let now = Date()
        let stateTopics = OutputTopic.allCases.filter { $0.kind == .state && $0 != .metrics }
        for (vehicleID, tree) in vehicleTopics {
            let topics = Set(stateTopics.filter { shed.contains(tree.output($0)) })
            guard !topics.isEmpty, let session = sessions[vehicleID] else { continue }
            publish(session.republish(topics, now: now), vehicleID: vehicleID)
        }
    }

    /// Offers held outputs to the outbox, oldest first, until it refuses one.
    func retryBacklog() {
        // Offering a message may publish a shed report, which must queue behind the backlog, not retry it again.
        retryingBacklog = true
        defer { retryingBacklog = false }
        while let message = backlog.first {
            guard offerToOutbox(message) else { return }
            backlog.removeFirst()
            if backlog.isEmpty { logger.info("the outbox took every held output again") }
        }
    }

    /// True when the outbox took the message or refused it for good (logged); false when it may take it later.
    private func offerToOutbox(_ message: PublishBacklog.Message) -> Bool {
        do {
            try client.publish(topic: message.topic, payload: message.payload, retain: message.retain, kind: message.kind,
                               wakeNetworkThread: !deferringNetworkWake)
            metrics.messagesOut += 1
            reportShedIfDue()
            return true
        } catch where error.code == .outboxFull || error.code == .outboxIO {
            lastOutboxRefusal = "\(error.code.rawValue): \(error.message)"
            return false
        } catch {
            logger.error("publish failed", [("topic", message.topic), ("code", error.code.rawValue), ("error", error.message)])
            return true
        }
    }

    /// Subject to the error limit, like a vehicle's errors (`agentErrorThrottle`).
    func publishAgentError(_ error: AgentInputError, topic: String?, payload: [UInt8]?, now: Date) {
        metrics.errors += 1
        if !configuration.isFleet, let session = sessions[configuration.vehicleID] {
            let out = session.inputError(error, topic: topic, payload: payload, now: now)
            if !out.isEmpty {
                logger.warning("input rejected", [("code", error.code.rawValue), ("topic", topic ?? ""), ("error", error.message)])
            }
            publish(out, vehicleID: configuration.vehicleID)
            if session.hasSuppressedErrors { vehiclesWithSuppressedErrors.insert(configuration.vehicleID) }
            return
        }
        guard agentErrorThrottle.admit(error, topic: topic, payload: payload, now: now) else { return }
        logger.warning("input rejected", [("code", error.code.rawValue), ("topic", topic ?? ""), ("error", error.message)])
        let message = agentEnvelope.wrap(.error, timestamp: now, OutputPayloads.error(error, topic: topic, payload: payload))
        publish(topic: topics.error, payload: message.payloadBytes, kind: .event)
    }

    /// Publishes the summaries of errors the error limit held back, where their interval has passed.
    func publishSuppressedErrorSummaries(now: Date) {
        for held in agentErrorThrottle.dueSummaries(now: now) {
            metrics.errorsSuppressed += held.count
            let body = OutputPayloads.error(held.summary, topic: held.topic, payload: held.payload, suppressedCount: held.count)
            publish(topic: topics.error, payload: agentEnvelope.wrap(.error, timestamp: now, body).payloadBytes, kind: .event)
        }
        for vehicleID in vehiclesWithSuppressedErrors {
            guard let session = sessions[vehicleID] else {
                vehiclesWithSuppressedErrors.remove(vehicleID)
                continue
            }
            let summaries = session.suppressedErrorSummaries(now: now)
            metrics.errorsSuppressed += summaries.suppressed
            publish(summaries.messages, vehicleID: vehicleID)
            if !session.hasSuppressedErrors { vehiclesWithSuppressedErrors.remove(vehicleID) }
        }
    }

    // MARK: Timers: simulation, metrics, eviction

    func startTimers() {
        asyncExclusively { [self] in
            tickTimer.setEventHandler { [weak self] in self?.exclusively { $0.tick(now: Date()) } }
            tickIsFast.withLock { fast in
                fast = !simulating.isEmpty
                schedule(tickTimer, fast: fast)
            }
            timers.append(tickTimer)
            if configuration.metricsIntervalSeconds > 0 {
                let interval = configuration.metricsIntervalSeconds
                let metricsTimer = DispatchSource.makeTimerSource(queue: queue)
                metricsTimer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
                metricsTimer.setEventHandler { [weak self] in self?.exclusively { $0.publishMetrics(now: Date()) } }
                metricsTimer.resume()
                timers.append(metricsTimer)
            }
            if configuration.isFleet {
                let interval = max(1, min(60, configuration.idleEvictionSeconds / 4))
                let evict = DispatchSource.makeTimerSource(queue: queue)
                evict.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(1))
                evict.setEventHandler { [weak self] in self?.exclusively { $0.evictIdle(now: Date()) } }
                evict.resume()
                timers.append(evict)
            }
        }
    }

    /// For a timer's handler (already on `queue`): runs `body` holding `stateLock`.
    private func exclusively(_ body: (AgentRuntime) -> Void) {
        stateLock.lock()
        body(self)
        stateLock.unlock()
    }

    /// Every 10 ms while simulators run or the rate limit holds fixes back, else every 100 ms (an idle agent wakes
    /// ten times a second, not a hundred): fixes the rate limit held back and now lets through, the simulators'
    /// fixes, and every 100 ms the summaries of suppressed errors, held outputs and the outbox's shed report.
    func tick(now: Date) {
        let uptime = DispatchTime.now().uptimeNanoseconds
        if inbox.releaseHeld(now: uptime) { drainInbox() }
        simulationTick(now: now)
        if uptime >= lastSlowTickNanoseconds + 95_000_000 {
            lastSlowTickNanoseconds = uptime
            publishSuppressedErrorSummaries(now: now)
            if !backlog.isEmpty { retryBacklog() }
            if backlog.isEmpty { reportShedIfDue() }
        }
        setTickCadence(fast: !simulating.isEmpty || inbox.isHolding)
    }

    /// Runs the tick every 10 ms (`fast`) or every 100 ms. Any thread; a no-op when the cadence is already that.
    func setTickCadence(fast: Bool) {
        tickIsFast.withLock { current in
            guard current != fast else { return }
            current = fast
            schedule(tickTimer, fast: fast)
        }
    }

    private func schedule(_ timer: DispatchSourceTimer, fast: Bool) {
        let period: DispatchTimeInterval = fast ? .milliseconds(10) : .milliseconds(100)
        timer.schedule(deadline: .now() + period, repeating: period, leeway: fast ? .milliseconds(2) : .milliseconds(10))
    }

    /// Publishes the fixes the running simulators have due, on the vehicle's location topic, through the broker.
    func simulationTick(now: Date) {
        for vehicleID in simulating {
            guard let session = sessions[vehicleID], let tree = vehicleTopics[vehicleID] else {
                simulating.remove(vehicleID)
                continue
            }
            let topic = configuration.isFleet ? tree.rawLocation : (configuration.locationTopic ?? tree.rawLocation)
            for fix in session.simulatedFixes(now: now) {
                publish(topic: topic, payload: OutputPayloads.rawFix(fix), kind: .event, retain: false)
            }
            if session.simulator == nil { simulating.remove(vehicleID) }
        }
    }

    func evictIdle(now: Date) {
        let limit = configuration.idleEvictionSeconds
        for (vehicleID, session) in sessions where now.timeIntervalSince(session.lastActivity) > limit
            && session.simulator == nil
        {
            sessions[vehicleID] = nil
            vehicleTopics[vehicleID] = nil
            metrics.vehiclesEvicted += 1
            logger.debug("vehicle idle; evicted (its trip stays in the journal)", [("vehicleId", vehicleID)])
        }
    }

    func publishMetrics(now: Date) {
        let body = metrics.snapshot(now: now, outboxDepth: client.outbox.count, vehicles: sessions.count,
                                    inbox: inbox.counters, backlog: backlog)
        if !configuration.isFleet, let session = sessions[configuration.vehicleID] {
            publish([session.message(.metrics, at: now, body)], vehicleID: configuration.vehicleID)
        } else {
            let message = agentEnvelope.wrap(.metrics, timestamp: now, body)
            publish(topic: topics.metrics, payload: message.payloadBytes, kind: .state)
        }
    }

    /// For tests and benchmarks: the number of vehicles in memory.
    public var vehicleCount: Int { syncExclusively { sessions.count } }
}

/// Counters and latencies for `agent/metrics`. Used only under the agent's state lock.
final class AgentMetrics {
    var messagesIn = 0
    var messagesOut = 0
    var errors = 0
    /// Errors the error limit held back (counted when their summary is published).
    var errorsSuppressed = 0
    var fixes = 0
    /// Fixes handled at once on the network thread (they found the inbox idle), a subset of `fixes`.
    var fixesInline = 0
    /// Fixes skipped by `InboxLimits.minimumFixSpacingSeconds`.
    var fixesThinned = 0
    /// Handled fixes that carried neither a speed nor a course (`VehicleSession.fixesWithoutSpeedOrCourse`).
    var fixesWithoutSpeedOrCourse = 0
    var vehiclesCreated = 0
    var vehiclesEvicted = 0
    private var latencies: [UInt64] = []
    private var latencyCursor = 0
    private var lastSnapshot: (time: Date, fixes: Int)?
    /// The latencies behind the percentiles: the last this many fixes.
    static let latencyWindow = 4096

    func recordLatency(nanoseconds: UInt64) {
        if latencies.count < Self.latencyWindow {
            latencies.append(nanoseconds)
        } else {
            latencies[latencyCursor] = nanoseconds
            latencyCursor = (latencyCursor + 1) % Self.latencyWindow
        }
    }

    func snapshot(now: Date, outboxDepth: Int, vehicles: Int, inbox: InboxCounters, backlog: PublishBacklog)
        -> [(String, JSONValue)]
    {
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> JSONValue {
            guard !sorted.isEmpty else { return .null }
            return .number(Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6, digits: 3)
        }
        var rate = 0.0
        if let last = lastSnapshot, now > last.time { rate = Double(fixes - last.fixes) / now.timeIntervalSince(last.time) }
        lastSnapshot = (now, fixes)
        return [
            ("messagesIn", .int(Int64(messagesIn))), ("messagesOut", .int(Int64(messagesOut))),
            ("errors", .int(Int64(errors))), ("fixes", .int(Int64(fixes))), ("fixesThinned", .int(Int64(fixesThinned))),
            ("fixesWithoutSpeedOrCourse", .int(Int64(fixesWithoutSpeedOrCourse))),
            ("fixesPerSecond", .number(rate, digits: 1)), ("outboxDepth", .int(Int64(outboxDepth))),
            ("processingLatencyMs", .object([("p50", percentile(0.5)), ("p99", percentile(0.99)),
                                             ("samples", .int(Int64(sorted.count)))])),
            ("residentMemoryMB", .number(Self.residentMemoryBytes().map { Double($0) / 1_048_576 }, digits: 1)),
            ("vehicles", .int(Int64(vehicles))), ("vehiclesCreated", .int(Int64(vehiclesCreated))),
            ("vehiclesEvicted", .int(Int64(vehiclesEvicted))),
            ("errorsSuppressed", .int(Int64(errorsSuppressed))),
            ("inbox", .object([
                ("depth", .int(Int64(inbox.depth))),
                ("fixesInline", .int(Int64(fixesInline))),
                ("fixesDroppedBacklog", .int(Int64(inbox.fixesDroppedBacklog))),
                ("fixesCoalescedRate", .int(Int64(inbox.fixesCoalescedRate))),
                ("inputsRefused", .int(Int64(inbox.inputsRefused))),
            ])),
            ("backlog", .object([
                ("depth", .int(Int64(backlog.count))), ("held", .int(Int64(backlog.held))),
                ("errorsDropped", .int(Int64(backlog.errorsDropped))), ("eventsLost", .int(Int64(backlog.eventsLost))),
            ])),
        ]
    }

    /// Resident set size from /proc/self/statm (Linux); nil elsewhere.
    static func residentMemoryBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
