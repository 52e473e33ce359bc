import Foundation
import MQTT

/// The agent for one vehicle: owns the MQTT client and its outbox, announces itself, and listens
/// to its inputs. (The navigator is wired in by the issues that deliver it; until then inputs are
/// received and logged but not acted on, as topics.md says.)
public final class AgentRuntime: Sendable {
    public let configuration: AgentConfiguration
    public let topics: TopicTree
    let logger: Logger
    let client: MQTTClient
    let startedAt: Date

    /// Opens the outbox in the state directory and prepares the client; connects on `start()`.
    public init(configuration: AgentConfiguration, logger: Logger, now: Date = Date()) throws {
        try configuration.validate()
        self.configuration = configuration
        self.topics = try configuration.topics
        self.logger = logger
        self.startedAt = now

        let outboxDirectory = URL(fileURLWithPath: configuration.stateDirectory).appendingPathComponent("outbox").path
        do {
            try FileManager.default.createDirectory(atPath: outboxDirectory, withIntermediateDirectories: true)
        } catch {
            throw AgentConfigurationError(
                code: "state.unwritable",
                message: "cannot create the state directory \(outboxDirectory): \(error.localizedDescription)")
        }
        let outbox = try Outbox(directory: outboxDirectory) { [logger] notice in
            logger.warning(
                "outbox full: shed a message", [("topic", notice.topic), ("kind", notice.kind.rawValue), ("reason", notice.reason)])
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
        client = try MQTTClient(
            configuration: mqtt, outbox: outbox,
            onMessage: { [logger] message in
                logger.debug(
                    "input received; this version does not act on it yet",
                    [("topic", message.topic), ("bytes", String(message.payload.count)), ("retained", String(message.retain))])
            },
            onEvent: { [logger] event in AgentRuntime.log(event, logger: logger, topics: topics) })
    }

    /// Subscribes to the inputs and starts connecting (and reconnecting) in the background.
    public func start() throws {
        for filter in topics.inputFilters {
            try client.subscribe(filter, qos: .atLeastOnce)
        }
        logger.info("agent starting", [
            ("vehicleId", configuration.vehicleID), ("broker", configuration.brokerURL),
            ("clientId", configuration.clientID), ("mqtt", configuration.protocolVersion.rawValue),
            ("stateDir", configuration.stateDirectory), ("version", EdgeNavVersion.current),
        ])
        try client.start()
    }

    /// Publishes the retained offline status, waits for its acknowledgement (at most
    /// `timeoutSeconds`) and disconnects cleanly, so the broker does not publish the will.
    public func shutdown(timeoutSeconds: Double = 5, now: Date = Date()) async {
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
        let runtime = try AgentRuntime(configuration: configuration, logger: logger)

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
