import Foundation
import MQTT
import Navigation

/// Hands messages from the MQTT network thread to the runtime (set once, before the client starts).
final class MessageInbox: @unchecked Sendable {
    weak var runtime: AgentRuntime?
    func deliver(_ message: MQTTMessage) {
        let receivedAt = DispatchTime.now().uptimeNanoseconds
        guard let runtime else { return }
        // Synchronously: when the queue is idle, dispatch runs the block right here on the network thread, saving
        // a thread wake-up per fix (a third of the agent's latency); the queue still serialises it with the timers.
        runtime.queue.sync { runtime.handle(message, receivedAtNanoseconds: receivedAt, now: Date()) }
    }
}

/// What a vehicle topic carries.
enum VehicleInput {
    case destinations, location, command
}

extension AgentRuntime {
    // MARK: Routing inputs

    /// Which vehicle and input a topic is, or nil when it is not a vehicle input.
    func classify(_ topic: String) -> (vehicleID: String, input: VehicleInput)? {
        if !configuration.isFleet {
            if topic == topics.destinations { return (configuration.vehicleID, .destinations) }
            if topic == (configuration.locationTopic ?? topics.rawLocation) { return (configuration.vehicleID, .location) }
            if topic == topics.command { return (configuration.vehicleID, .command) }
            return nil
        }
        let prefix = configuration.topicPrefix + "/"
        guard topic.hasPrefix(prefix) else { return nil }
        let levels = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 3 else { return nil }
        let vehicleID = String(levels[0])
        switch (levels[1], levels[2]) {
        case ("nav", "destinations"): return (vehicleID, .destinations)
        case ("location", "raw"): return (vehicleID, .location)
        case ("nav", "command"): return (vehicleID, .command)
        default: return nil
        }
    }

    /// One input, on `queue`.
    func handle(_ message: MQTTMessage, receivedAtNanoseconds: UInt64, now: Date) {
        metrics.messagesIn += 1
        let topic = message.topic
        if topic == topics.traffic || topic == "\(configuration.topicPrefix)/traffic" {
            handleTraffic(message, now: now)
            return
        }
        let placesPrefix = "\(configuration.topicPrefix)/places/"
        if topic.hasPrefix(placesPrefix) {
            handlePlace(id: String(topic.dropFirst(placesPrefix.count)), message, now: now)
            return
        }
        guard let (vehicleID, input) = classify(topic) else {
            publishAgentError(AgentInputError(.unknownTopic, "the agent does not read \(topic)"), topic: topic,
                              payload: message.payload, now: now)
            return
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
            out = session.receiveLocation(message.payload, topic: topic, now: now)
            metrics.fixes += 1
        case .command:
            out = session.receiveCommand(message.payload, topic: topic, now: now)
            if session.simulator != nil { simulating.insert(vehicleID) } else { simulating.remove(vehicleID) }
        }
        publish(out, vehicleID: vehicleID)
        if input == .location {
            metrics.recordLatency(nanoseconds: DispatchTime.now().uptimeNanoseconds - receivedAtNanoseconds)
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
                                     store: journal, now: now)
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

    func publish(_ messages: [OutboundMessage], vehicleID: String) {
        guard !messages.isEmpty, let tree = vehicleTopics[vehicleID] else { return }
        for message in messages {
            publish(topic: tree.output(message.topic), payload: message.payload, kind: message.topic.kind)
            if message.topic == .error { metrics.errors += 1 }
        }
    }

    func publish(topic: String, payload: String, kind: MessageKind, retain: Bool = true) {
        do {
            try client.publish(topic: topic, payload: Array(payload.utf8), retain: retain, kind: kind)
            metrics.messagesOut += 1
            if !reportingShed, let report = shedLedger.take(now: Date()) {
                reportingShed = true
                defer { reportingShed = false }
                publishAgentError(AgentInputError(.outboxShed, report.message), topic: nil, payload: nil, now: Date())
            }
        } catch {
            logger.error("publish failed", [("topic", topic), ("code", error.code.rawValue), ("error", error.message)])
        }
    }

    /// An error no vehicle session can carry (no map, unknown topic, fleet-wide inputs): on the agent's error topic
    /// (in single-vehicle mode, the vehicle's).
    func publishAgentError(_ error: AgentInputError, topic: String?, payload: [UInt8]?, now: Date) {
        metrics.errors += 1
        logger.warning("input rejected", [("code", error.code.rawValue), ("topic", topic ?? ""), ("error", error.message)])
        if !configuration.isFleet, let session = sessions[configuration.vehicleID] {
            publish([session.errorMessage(error, topic: topic, payload: payload, now: now)], vehicleID: configuration.vehicleID)
            return
        }
        let message = agentEnvelope.wrap(.error, timestamp: now, OutputPayloads.error(error, topic: topic, payload: payload))
        publish(topic: topics.error, payload: message.payload, kind: .event)
    }

    // MARK: Timers: simulation, metrics, eviction

    func startTimers() {
        queue.async { [self] in
            let tick = DispatchSource.makeTimerSource(queue: queue)
            tick.schedule(deadline: .now() + .milliseconds(10), repeating: .milliseconds(10), leeway: .milliseconds(2))
            tick.setEventHandler { [weak self] in self?.simulationTick(now: Date()) }
            tick.resume()
            timers.append(tick)
            if configuration.metricsIntervalSeconds > 0 {
                let interval = configuration.metricsIntervalSeconds
                let metricsTimer = DispatchSource.makeTimerSource(queue: queue)
                metricsTimer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
                metricsTimer.setEventHandler { [weak self] in self?.publishMetrics(now: Date()) }
                metricsTimer.resume()
                timers.append(metricsTimer)
            }
            if configuration.isFleet {
                let interval = max(1, min(60, configuration.idleEvictionSeconds / 4))
                let evict = DispatchSource.makeTimerSource(queue: queue)
                evict.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(1))
                evict.setEventHandler { [weak self] in self?.evictIdle(now: Date()) }
                evict.resume()
                timers.append(evict)
            }
        }
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
        let body = metrics.snapshot(now: now, outboxDepth: client.outbox.count, vehicles: sessions.count)
        if !configuration.isFleet, let session = sessions[configuration.vehicleID] {
            publish([session.message(.metrics, at: now, body)], vehicleID: configuration.vehicleID)
        } else {
            let message = agentEnvelope.wrap(.metrics, timestamp: now, body)
            publish(topic: topics.metrics, payload: message.payload, kind: .state)
        }
    }

    /// For tests and benchmarks: the number of vehicles in memory.
    public var vehicleCount: Int { queue.sync { sessions.count } }
}

/// Counters and latencies for `agent/metrics`. Used on the agent's queue only.
final class AgentMetrics {
    var messagesIn = 0
    var messagesOut = 0
    var errors = 0
    var fixes = 0
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

    func snapshot(now: Date, outboxDepth: Int, vehicles: Int) -> [(String, JSONValue)] {
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
            ("errors", .int(Int64(errors))), ("fixes", .int(Int64(fixes))),
            ("fixesPerSecond", .number(rate, digits: 1)), ("outboxDepth", .int(Int64(outboxDepth))),
            ("processingLatencyMs", .object([("p50", percentile(0.5)), ("p99", percentile(0.99)),
                                             ("samples", .int(Int64(sorted.count)))])),
            ("residentMemoryMB", .number(Self.residentMemoryBytes().map { Double($0) / 1_048_576 }, digits: 1)),
            ("vehicles", .int(Int64(vehicles))), ("vehiclesCreated", .int(Int64(vehiclesCreated))),
            ("vehiclesEvicted", .int(Int64(vehiclesEvicted))),
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
