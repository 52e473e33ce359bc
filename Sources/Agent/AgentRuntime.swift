import Foundation
import MQTT
import Synchronization

/// The agent: owns the MQTT client and its outbox, announces itself, and drives one `VehicleSession` per vehicle
/// (one, or in fleet mode every vehicle under the prefix). Inputs wait in a bounded `InputInbox` and are handled on
/// one serial queue — or, for a fix arriving while the inbox is idle, at once on the network thread (`drainInline`);
/// outputs go through the outbox.
public final class AgentRuntime: @unchecked Sendable {
    // Unchecked: the mutable state below (sessions, metrics, timers) is touched only while holding `stateLock`: by
    // blocks on `queue` (`asyncExclusively`), and by the network thread when it handles a fix inline (`drainInline`).
    public let configuration: AgentConfiguration
    /// The agent's own topics (in single-vehicle mode, the vehicle's).
    public let topics: TopicTree
    let logger: Logger
    let client: MQTTClient
    let startedAt: Date
    let map: NavigationMap?
    let queue = DispatchQueue(label: "edgenav.agent")
    /// Held while the agent's state is used: by every block on `queue`, and by the MQTT network thread while it
    /// handles a fix inline. The network thread only ever *tries* it, so it never waits for the queue.
    let stateLock = NSLock()

    /// What the outbox shed and the agent has not yet reported on `agent/error`.
    let shedLedger: ShedLedger
    /// True while the agent publishes its own shed report (so that publish does not report again).
    var reportingShed = false
    /// Output topics whose value the outbox shed and that have not been published since: their current value goes
    /// out again once the outbox has room (`republishShedTopicsIfRoom`).
    var shedTopicsToRepublish: Set<String> = []
    /// Why the outbox last refused an output (`mqtt.outboxFull` or `mqtt.outboxIO` and its message), for the log.
    var lastOutboxRefusal: String?
    var sessions: [String: VehicleSession] = [:]
    var vehicleTopics: [String: TopicTree] = [:]
    var simulating: Set<String> = []
    var agentEnvelope: OutputEnvelope
    let metrics = AgentMetrics()
    /// True once the positions-only warning has been logged (`warnOncePositionsOnly`).
    var warnedPositionsOnly = false
    /// A vehicle's fixes without speed and course before the positions-only warning: a receiver may leave out the
    /// course (and rarely the speed) on a few fixes while standing; 30 in all is a receiver that sends neither.
    static let positionsOnlyWarningFixes = 30
    var timers: [DispatchSourceTimer] = []
    /// The tick (`tick(now:)`), on `queue`; started by `startTimers`, its period set by `setTickCadence`.
    let tickTimer: DispatchSourceTimer
    /// True while the tick runs every 10 ms (else every 100 ms). Changed, with the timer, under its own lock: by the
    /// tick itself and by the network thread when the rate limit starts holding a fix back.
    let tickIsFast = Mutex(false)
    /// When the tick last did its 100-ms work (monotonic nanoseconds).
    var lastSlowTickNanoseconds: UInt64 = 0
    /// `{state-dir}/health.json` and sd_notify (READY, STATUS, WATCHDOG, STOPPING).
    let health: HealthMonitor
    /// Inputs waiting for the queue (filled by the network thread).
    let inbox: InputInbox
    /// Classifies input topics on the network thread.
    let router: InputRouter
    /// Where the MQTT client's network thread hands every message.
    let messageInbox = MessageInbox()
    /// The error limit for errors no vehicle session carries (fleet mode).
    var agentErrorThrottle: ErrorThrottle
    /// Vehicles whose sessions hold back errors for a summary.
    var vehiclesWithSuppressedErrors: Set<String> = []
    /// Outputs the outbox refused, waiting for room (in memory).
    var backlog = PublishBacklog()
    var retryingBacklog = false
    /// True while a drain batch runs: its outputs wake the network thread once, at the end.
    var deferringNetworkWake = false
    /// Vehicle outputs of the drain batch under way, for one outbox write at its end (`flushPendingOutputs`).
    var pendingOutputs: [OutboxEntry] = []

    /// The outbox journal's compaction threshold in fleet mode, bytes (one vehicle keeps the outbox's default,
    /// 1 MiB). A fleet appends megabytes a second (10,000 vehicles: about 6 MB/s of outputs), so at 1 MiB the journal
    /// was rewritten several times a second, each time with two fsyncs on the network thread under the outbox's
    /// lock; at 16 MiB about once every three seconds. The cost: up to 16 MiB more disk and replay at a restart.
    static let fleetCompactionThresholdBytes = 16 << 20

    /// Opens the outbox in the state directory and prepares the client; connects on `start()`.
    public init(configuration: AgentConfiguration, logger: Logger, map: NavigationMap? = nil, now: Date = Date()) throws {
        try configuration.validate()
        self.configuration = configuration
        self.topics = try configuration.topics
        self.logger = logger
        self.startedAt = now
        self.map = map
        // Agent-level messages (fleet mode) are numbered from the clock in milliseconds, so they keep increasing
        // across restarts without a journal.
        self.inbox = InputInbox(limits: configuration.inbox)
        self.tickTimer = DispatchSource.makeTimerSource(queue: queue)
        // Active at once (a dispatch source released while never resumed traps), but with no schedule it never fires
        // until `startTimers` gives it one.
        tickTimer.resume()
        self.agentErrorThrottle = ErrorThrottle(intervalSeconds: configuration.inbox.errorIntervalSeconds)
        self.router = InputRouter(isFleet: configuration.isFleet, prefix: configuration.topicPrefix,
                                  vehicleID: configuration.vehicleID, topics: topics,
                                  locationTopic: configuration.locationTopic)
        self.agentEnvelope = OutputEnvelope(
            vehicleID: configuration.vehicleID, lastSeq: UInt64(max(0, now.timeIntervalSince1970 * 1000)))

        let outboxDirectory = URL(fileURLWithPath: configuration.stateDirectory).appendingPathComponent("outbox").path
        try AgentConfigurationError.createStateDirectory(outboxDirectory, purpose: "the outbox directory")
        let shedLedger = ShedLedger()
        self.shedLedger = shedLedger
        var outboxConfiguration = OutboxConfiguration(
            maxMessages: configuration.outboxMaxMessages, maxBytes: configuration.outboxMaxBytes)
        if configuration.isFleet { outboxConfiguration.compactionThresholdBytes = Self.fleetCompactionThresholdBytes }
        let outbox = try Outbox(directory: outboxDirectory, configuration: outboxConfiguration) { [logger] notice in
            // Debug only: a fleet can shed thousands a second; the once-a-second summary (`reportShedIfDue`) is the
            // warning, on `agent/error` and in the log.
            logger.debug(
                "outbox full: shed a message", [("topic", notice.topic), ("kind", notice.kind.rawValue), ("reason", notice.reason)])
            shedLedger.record(topic: notice.topic)
        }
        if outbox.recoveredTornBytes > 0 {
            logger.warning("outbox journal had a torn tail (a crash mid-write); dropped the partial record",
                           [("bytes", String(outbox.recoveredTornBytes))])
        }
        if !outbox.isEmpty {
            logger.info("outbox holds messages from an earlier run; they will be sent on connect",
                        [("messages", String(outbox.count))])
        }

        var mqtt = MQTTConfiguration(broker: try configuration.broker, clientID: configuration.clientID)
        mqtt.protocolVersion = configuration.protocolVersion == .v5 ? .v5 : .v311
        mqtt.keepAliveSeconds = configuration.keepAliveSeconds
        mqtt.sessionExpiryIntervalSeconds = UInt32(configuration.sessionExpirySeconds)
        // A fleet agent publishes thousands of messages a second: QoS 1 throughput is in-flight window / round trip.
        if configuration.isFleet { mqtt.maxInflightMessages = 1000 }
        if let username = configuration.username {
            mqtt.credentials = MQTTCredentials(username: username, password: configuration.password)
        }
        if mqtt.broker.usesTLS {
            mqtt.tls = MQTTTLSConfiguration(
                caFile: configuration.caFile ?? AgentConfiguration.systemCABundle,
                certificateFile: configuration.certFile, privateKeyFile: configuration.keyFile)
        }
        let mapName = configuration.mapPath.map { URL(fileURLWithPath: $0).lastPathComponent }
        let status = AgentStatus(
            state: .online, reason: nil, vehicleID: configuration.vehicleID, version: EdgeNavVersion.current,
            mapName: mapName, clientID: configuration.clientID, timestamp: now)
        mqtt.birth = MQTTStatusMessage(topic: topics.status, text: status.json)
        var will = status
        will.state = .offline
        will.reason = .connectionLost
        mqtt.will = MQTTStatusMessage(topic: topics.status, text: will.json)

        let topics = self.topics
        let inbox = messageInbox
        let health = HealthMonitor(
            directory: configuration.stateDirectory, version: EdgeNavVersion.current, mapName: mapName,
            brokerDescription: mqtt.broker.description, notifier: ServiceNotifier(), logger: logger)
        self.health = health
        client = try MQTTClient(
            configuration: mqtt, outbox: outbox,
            onMessage: { message in inbox.deliver(message) },
            onMessagesDelivered: { inbox.deliveriesEnded() },
            onEvent: { [logger] event in
                AgentRuntime.log(event, logger: logger, topics: topics)
                health.note(event)
            })
        health.attach(client)
        inbox.runtime = self
    }

    /// The vehicle input topics this agent subscribes to.
    var inputFilters: [String] {
        let prefix = configuration.topicPrefix
        if configuration.isFleet {
            return ["\(prefix)/+/nav/destinations", "\(prefix)/+/location/raw", "\(prefix)/+/nav/command",
                    "\(prefix)/traffic", "\(prefix)/places/+"]
        }
        var filters = topics.inputFilters
        if let locationTopic = configuration.locationTopic {
            filters[filters.firstIndex(of: topics.rawLocation)!] = locationTopic
        }
        return filters
    }

    /// Subscribes to the inputs and starts connecting (and reconnecting) in the background.
    public func start() throws {
        for filter in inputFilters {
            try client.subscribe(filter, qos: .atLeastOnce)
        }
        logger.info("agent starting", [
            ("vehicleId", configuration.vehicleID), ("broker", configuration.brokerURL),
            ("clientId", configuration.clientID), ("mqtt", configuration.protocolVersion.rawValue),
            ("stateDir", configuration.stateDirectory), ("version", EdgeNavVersion.current),
        ])
        // READY before the client starts: its first connection event (STATUS=connected) must not overtake READY=1 at
        // the service manager (on a busy machine the connection could be up before this thread got here).
        health.start()
        try client.start()
        startTimers()
        map?.buildLandmarks(logger: logger) { [self] install in asyncExclusively(install) }
        if !configuration.isFleet, map != nil {
            // One vehicle: open its journal now, so a trip resumes (and a corrupt journal is reported) at start.
            asyncExclusively { [self] in _ = session(for: configuration.vehicleID, now: Date()) }
        }
    }

    /// Publishes the retained offline status, waits for its acknowledgement (at most
    /// `timeoutSeconds`) and disconnects cleanly, so the broker does not publish the will.
    public func shutdown(timeoutSeconds: Double = 5, now: Date = Date()) async {
        health.stop()
        syncExclusively {
            for timer in timers { timer.cancel() }
            timers = []
            flushPendingOutputs()
            retryBacklog()
        }
        // Give what is queued a moment to go out first; whatever is left stays in the outbox on disk
        // and is sent by the next run.
        if !(await client.flush(timeoutSeconds: min(2, timeoutSeconds))) {
            logger.warning("outbox not empty at shutdown; the rest is sent on the next start",
                           [("messages", String(client.outbox.count))])
        }
        let stranded = syncExclusively {
            retryBacklog()
            return backlog.count
        }
        if stranded > 0 {
            logger.error("outputs held in memory (the outbox refused them) are lost at shutdown",
                         [("messages", String(stranded))])
        }
        let status = AgentStatus(
            state: .offline, reason: .shutdown, vehicleID: configuration.vehicleID, version: EdgeNavVersion.current,
            mapName: configuration.mapPath.map { URL(fileURLWithPath: $0).lastPathComponent },
            clientID: configuration.clientID, timestamp: now)
        let acknowledged = await client.stop(
            finalMessage: MQTTStatusMessage(topic: topics.status, text: status.json), timeoutSeconds: timeoutSeconds)
        if acknowledged {
            logger.info("published offline status and disconnected")
        } else {
            logger.warning("stopped without the broker acknowledging the offline status; the will covers it")
        }
    }

    /// Runs `body` on `queue` holding `stateLock`.
    func asyncExclusively(_ body: @escaping @Sendable () -> Void) {
        queue.async { [stateLock] in
            stateLock.lock()
            body()
            stateLock.unlock()
        }
    }

    /// Runs `body` on `queue` holding `stateLock`, and waits for it.
    func syncExclusively<T>(_ body: () -> T) -> T {
        queue.sync {
            stateLock.lock()
            defer { stateLock.unlock() }
            return body()
        }
    }

    static func log(_ event: MQTTConnectionEvent, logger: Logger, topics: TopicTree) {
        switch event {
        case .connecting(let broker, let attempt):
            logger.log(attempt == 1 ? .info : .debug, "connecting", [("broker", broker), ("attempt", String(attempt))])
        case .connected(let sessionPresent):
            logger.info("connected; published online status", [
                ("sessionPresent", String(sessionPresent)), ("statusTopic", topics.status),
            ])
        case .connectionFailed(let error, let retry):
            logger.warning("connection failed", [
                ("code", error.code.rawValue), ("error", error.message), ("retryInSeconds", String(format: "%.1f", retry)),
            ])
        case .connectionLost(let error, let retry):
            logger.warning("connection lost", [
                ("code", error.code.rawValue), ("error", error.message), ("retryInSeconds", String(format: "%.1f", retry)),
            ])
        case .subscriptionRejected(let filter, let error):
            logger.error("broker refused a subscription", [("filter", filter), ("code", error.code.rawValue), ("error", error.message)])
        case .publishRejected(let topic, let sequence, let error):
            logger.error("broker refused a publish; dropped from the outbox", [
                ("topic", topic), ("sequence", String(sequence)), ("code", error.code.rawValue), ("error", error.message),
            ])
        case .stopped(let error):
            if let error {
                logger.error("MQTT client stopped", [("code", error.code.rawValue), ("error", error.message)])
            } else {
                logger.debug("MQTT client stopped")
            }
        }
    }
}

/// Runs the agent in this process until SIGTERM or SIGINT.
public enum AgentProcess {
    public static func run(configuration: AgentConfiguration) throws -> Int32 {
        let logger = Logger(minimumLevel: configuration.logLevel)
        AllocatorTuning.apply()  // before the map and the threads allocate
        var map: NavigationMap?
        if let path = configuration.mapPath {
            let places = PlaceBook()
            if let file = configuration.placesFile { try places.load(file: file, limits: configuration.limits) }
            let loaded = try NavigationMap.load(path: path, places: places,
                                                privateCopyDirectory: configuration.stateDirectory)
            map = loaded
            logger.info("map loaded", [("map", path), ("places", String(places.count)),
                                       ("backing", loaded.graph.backing.rawValue)])
        }
        let runtime = try AgentRuntime(configuration: configuration, logger: logger, map: map)

        let stopRequested = DispatchSemaphore(value: 0)
        let signalQueue = DispatchQueue(label: "edgenav.signals")
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)  // let the dispatch source see it instead of the default action
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: signalQueue)
            source.setEventHandler {
                logger.info("signal received; shutting down", [("signal", signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")])
                stopRequested.signal()
            }
            source.resume()
            sources.append(source)
        }
        try runtime.start()
        stopRequested.wait()

        let done = DispatchSemaphore(value: 0)
        Task {
            await runtime.shutdown()
            done.signal()
        }
        done.wait()
        withExtendedLifetime(sources) {}
        return 0
    }
}
