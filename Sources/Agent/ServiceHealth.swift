import Foundation
import MQTT
import Synchronization

/// What `{state-dir}/health.json` says about a running agent. The agent rewrites the file atomically
/// (temporary file, rename) on every connection change and every few seconds while its MQTT network loop
/// keeps going round, so a hung loop leaves a stale file; `edgenav health` judges it with `HealthVerdict`.
public struct HealthReport: Sendable, Equatable {
    public enum ConnectionState: String, Sendable, CaseIterable {
        case connecting, connected, disconnected, stopping
    }

    public var pid: Int32
    public var version: String
    public var state: ConnectionState
    /// Since when `state` holds.
    public var since: Date
    public var updatedAt: Date
    public var lastConnAckAt: Date?
    /// When bytes last came from the broker (any packet, PINGRESP included).
    public var lastBrokerPacketAt: Date?
    /// Messages waiting in the outbox for the broker's acknowledgement.
    public var outboxMessages: Int
    public var map: String?

    public static let fileName = "health.json"

    public var json: String { jsonValue.text }

    public var jsonValue: JSONValue {
        func date(_ d: Date?) -> JSONValue { .string(d.map(ISO8601Timestamp.string(from:))) }
        return .object([
            ("schemaVersion", 1), ("pid", .int(Int64(pid))), ("version", .string(version)),
            ("state", .string(state.rawValue)), ("since", date(since)), ("updatedAt", date(updatedAt)),
            ("lastConnAckAt", date(lastConnAckAt)), ("lastBrokerPacketAt", date(lastBrokerPacketAt)),
            ("outboxMessages", .int(Int64(outboxMessages))), ("map", .string(map)),
        ])
    }

    /// Parses the file's text; nil when it is not a health report of this schema.
    public init?(json text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              object["schemaVersion"] as? Int == 1,
              let pid = object["pid"] as? Int, let version = object["version"] as? String,
              let state = (object["state"] as? String).flatMap(ConnectionState.init(rawValue:)),
              let since = (object["since"] as? String).flatMap(ISO8601Timestamp.date(from:)),
              let updatedAt = (object["updatedAt"] as? String).flatMap(ISO8601Timestamp.date(from:)),
              let outbox = object["outboxMessages"] as? Int
        else { return nil }
        self.init(pid: Int32(clamping: pid), version: version, state: state, since: since, updatedAt: updatedAt,
                  lastConnAckAt: (object["lastConnAckAt"] as? String).flatMap(ISO8601Timestamp.date(from:)),
                  lastBrokerPacketAt: (object["lastBrokerPacketAt"] as? String).flatMap(ISO8601Timestamp.date(from:)),
                  outboxMessages: outbox, map: object["map"] as? String)
    }

    public init(pid: Int32, version: String, state: ConnectionState, since: Date, updatedAt: Date,
                lastConnAckAt: Date?, lastBrokerPacketAt: Date?, outboxMessages: Int, map: String?) {
        self.pid = pid
        self.version = version
        self.state = state
        self.since = since
        self.updatedAt = updatedAt
        self.lastConnAckAt = lastConnAckAt
        self.lastBrokerPacketAt = lastBrokerPacketAt
        self.outboxMessages = outboxMessages
        self.map = map
    }

    /// Writes `json` to `directory/health.json` through a temporary file and a rename, so a reader never sees
    /// half a report.
    public func write(toDirectory directory: String) throws {
        let target = directory + "/" + Self.fileName
        let temporary = target + ".tmp"
        try Data((json + "\n").utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, target) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target])
        }
    }
}

/// `edgenav health`'s judgement of a health report.
public enum HealthVerdict: Equatable, Sendable {
    case healthy
    /// Stable codes printed by `edgenav health`.
    case noFile, stale(ageSeconds: Double), notRunning(pid: Int32), disconnected(forSeconds: Double)

    public var code: String {
        switch self {
        case .healthy: "health.ok"
        case .noFile: "health.noFile"
        case .stale: "health.stale"
        case .notRunning: "health.notRunning"
        case .disconnected: "health.disconnected"
        }
    }

    /// Healthy when the report is fresh (updated within `maxAgeSeconds`), its process is alive, and the agent is
    /// connected or has been away from the broker for less than `disconnectedGraceSeconds` (a restart cannot bring
    /// a broker back, but an orchestrator should see a long outage).
    public static func judge(
        _ report: HealthReport?, now: Date, isProcessAlive: (Int32) -> Bool,
        maxAgeSeconds: Double = 30, disconnectedGraceSeconds: Double = 60
    ) -> HealthVerdict {
        guard let report else { return .noFile }
        let age = now.timeIntervalSince(report.updatedAt)
        guard isProcessAlive(report.pid) else { return .notRunning(pid: report.pid) }
        guard age <= maxAgeSeconds else { return .stale(ageSeconds: age) }
        if report.state != .connected {
            let away = now.timeIntervalSince(report.since)
            if away >= disconnectedGraceSeconds { return .disconnected(forSeconds: away) }
        }
        return .healthy
    }
}

/// Tells a service manager how the agent is doing through the sd_notify datagram protocol (systemd's
/// `Type=notify` and `WatchdogSec=`): `READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`, sent to the
/// AF_UNIX socket named by `NOTIFY_SOCKET` (a leading `@` names the abstract namespace). Does nothing when
/// the variable is absent. No libsystemd needed.
public final class ServiceNotifier: Sendable {
    private let socketPath: String?
    /// From `WATCHDOG_USEC` (when `WATCHDOG_PID` is absent or ours): how often systemd wants `WATCHDOG=1` at
    /// the latest [s]. The agent pings at half of it.
    public let watchdogIntervalSeconds: Double?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        if path != nil, let usec = environment["WATCHDOG_USEC"].flatMap(Double.init), usec > 0,
           environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true {
            watchdogIntervalSeconds = usec / 1e6
        } else {
            watchdogIntervalSeconds = nil
        }
    }

    public var isActive: Bool { socketPath != nil }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func watchdog() { send("WATCHDOG=1") }
    public func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    /// Sends one datagram; failures are ignored (the service manager may be gone), as sd_notify does.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length)
            }
        }
        return sent == bytes.count
    }
}

/// Keeps `health.json` and the service manager informed: connection changes come from the MQTT client's events,
/// and a heartbeat (every `intervalSeconds`, on its own queue) rewrites the file and pings the watchdog only
/// while the client's network loop is still going round.
final class HealthMonitor: @unchecked Sendable {
    // Unchecked: `attachedClient` and `timer` are read and written under `lock`.
    private struct Connection {
        var state: HealthReport.ConnectionState = .connecting
        var since = Date()
        var lastConnAckAt: Date?
    }

    private let directory: String
    private let version: String
    private let mapName: String?
    private let brokerDescription: String
    private let notifier: ServiceNotifier
    private let connection = Mutex(Connection())
    private let lock = NSLock()
    private var attachedClient: MQTTClient?
    private var client: MQTTClient? { lock.withLock { attachedClient } }
    private let logger: Logger
    private let queue = DispatchQueue(label: "edgenav.health")
    private var timer: DispatchSourceTimer?  // under `lock`
    /// A network loop that has not gone round for this long is hung [s] (it wakes at least once a second).
    static let loopStallSeconds = 10.0

    init(directory: String, version: String, mapName: String?, brokerDescription: String, notifier: ServiceNotifier,
         logger: Logger) {
        self.directory = directory
        self.version = version
        self.mapName = mapName
        self.brokerDescription = brokerDescription
        self.notifier = notifier
        self.logger = logger
    }

    func attach(_ client: MQTTClient) { lock.withLock { attachedClient = client } }

    /// Starts the heartbeat and tells the service manager the agent is ready (the outbox is open and the
    /// subscriptions are issued; not waiting for the broker: a vehicle may start out of coverage).
    func start() {
        let interval = min(10, (notifier.watchdogIntervalSeconds ?? 20) / 2)
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(100))
        source.setEventHandler { [weak self] in self?.heartbeat() }
        source.resume()
        lock.withLock { timer = source }
        notifier.ready(status: "connecting to \(brokerDescription)")
    }

    func stop() {
        lock.withLock {
            timer?.cancel()
            timer = nil
        }
        update(.stopping, at: Date())
        queue.sync { notifier.stopping() }  // after any status line still queued by `update`
    }

    func note(_ event: MQTTConnectionEvent, now: Date = Date()) {
        switch event {
        case .connecting: update(.connecting, at: now)
        case .connected: update(.connected, at: now, connAck: true)
        case .connectionFailed, .connectionLost: update(.disconnected, at: now)
        case .stopped: update(.stopping, at: now)
        case .subscriptionRejected, .publishRejected: break
        }
    }

    private func update(_ state: HealthReport.ConnectionState, at now: Date, connAck: Bool = false) {
        let changed = connection.withLock { c -> Bool in
            if connAck { c.lastConnAckAt = now }
            guard c.state != state else { return false }
            // `connecting` after a failure is still away from the broker: keep the outage's start.
            let stillAway = (c.state == .disconnected && state == .connecting) || (c.state == .connecting && state == .disconnected)
            if !stillAway { c.since = now }
            c.state = state
            return true
        }
        guard changed else { return }
        // The file first, then systemd's STATUS: whoever acts on the status line finds health.json saying the same.
        queue.async { [self] in
            writeReport(now: now)
            switch state {
            case .connected: notifier.status("connected to \(brokerDescription)")
            case .disconnected, .connecting: notifier.status("reconnecting to \(brokerDescription)")
            case .stopping: break
            }
        }
    }

    private func heartbeat() {
        // Before the loop's first turn there is nothing to judge yet; afterwards a loop that stopped going round
        // must not be covered up by this timer, which runs on its own queue.
        if let stalled = client?.liveness.secondsSinceLoopIteration(), stalled > Self.loopStallSeconds {
            logger.error("MQTT network loop has not run for \(Int(stalled)) s; health.json left to go stale")
            return
        }
        writeReport(now: Date())
        notifier.watchdog()
    }

    private func writeReport(now: Date) {
        let c = connection.withLock { $0 }
        let report = HealthReport(
            pid: getpid(), version: version, state: c.state, since: c.since, updatedAt: now,
            lastConnAckAt: c.lastConnAckAt, lastBrokerPacketAt: client?.liveness.brokerBytesReceivedAt,
            outboxMessages: client?.outbox.count ?? 0, map: mapName)
        do {
            try report.write(toDirectory: directory)
        } catch {
            logger.warning("cannot write health.json", [("directory", directory), ("error", "\(error)")])
        }
    }
}
