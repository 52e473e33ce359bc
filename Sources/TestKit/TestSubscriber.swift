import Foundation
import Synchronization

/// An independent observer: a `mosquitto_sub` process (not our MQTT code) that collects every message on
/// some topic filters, with helpers to wait for what a test expects.
///
/// Persistent by default (`-c -i ID` at QoS 1), so messages published while it is reconnecting to a
/// restarted broker are queued for it by the broker. `start` returns once a probe message has made the
/// round trip, i.e. once the subscription is live.
public final class TestSubscriber: Sendable {
    public struct Message: Sendable, Equatable, CustomStringConvertible {
        public let topic: String
        public let payload: String
        public let retain: Bool
        public var description: String { "\(retain ? "[retained] " : "")\(topic) \(payload)" }
        public init(topic: String, payload: String, retain: Bool) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    private static let probeTopicPrefix = "testkit/probe/"
    public let clientID: String
    private let broker: TestBroker
    private let process: Mutex<ChildProcess?>
    private let received = MessageLog()
    private let probeTopic: String

    /// Starts `mosquitto_sub` on `broker` for `filters` and waits (up to 30 s, generous for a loaded CI machine) until it is subscribed.
    public init(
        broker: TestBroker, filters: [String], clientID: String = "observer-\(UInt32.random(in: 0...UInt32.max))",
        persistent: Bool = true
    ) async throws {
        self.broker = broker
        self.clientID = clientID
        probeTopic = Self.probeTopicPrefix + clientID
        var arguments = ["-q", "1", "-F", "%r|%t|%p", "-i", clientID] + broker.connectionArguments
        if persistent { arguments.append("-c") }
        for filter in filters + [probeTopic] { arguments += ["-t", filter] }
        let process = try ChildProcess(
            executable: try TestTools.which("mosquitto_sub"), arguments: arguments, captureOutput: true)
        self.process = Mutex(process)
        process.readLines { [received, probeTopic] line in
            let fields = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return }
            let message = Message(topic: String(fields[1]), payload: String(fields[2]), retain: fields[0] == "1")
            if message.topic == probeTopic && message.payload != "probe" { return }
            received.messages.withLock { $0.append(message) }
        }
        // Probe until our own subscription delivers: then the observer is live.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            try broker.publishWithTool(topic: probeTopic, payload: "probe")
            let probeDeadline = Date().addingTimeInterval(0.5)
            while Date() < probeDeadline {
                let arrived = received.messages.withLock { messages in
                    let seen = messages.contains { $0.topic == probeTopic }
                    messages.removeAll { $0.topic == probeTopic }
                    return seen
                }
                if arrived { return }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
        }
        stop()
        throw TestBrokerError("mosquitto_sub \(clientID) did not become ready within 30 s")
    }

    deinit { stop() }

    /// Every message received so far (probes excluded), in arrival order.
    public var messages: [Message] {
        received.messages.withLock { $0.filter { $0.topic != probeTopic } }
    }

    public func messages(on topic: String) -> [Message] { messages.filter { $0.topic == topic } }

    /// Waits until at least `count` messages arrived. Returns false on timeout.
    public func waitFor(count: Int, timeoutSeconds: Double) async -> Bool {
        await waitUntil(timeoutSeconds: timeoutSeconds) { $0.count >= count }
    }

    /// Waits until `predicate` holds for the messages received so far. Returns false on timeout.
    public func waitUntil(timeoutSeconds: Double, _ predicate: @Sendable ([Message]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            if predicate(messages) { return true }
            if Date() >= deadline { return false }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    public func stop() {
        let running = process.withLock { current -> ChildProcess? in
            defer { current = nil }
            return current
        }
        running?.terminate(graceSeconds: 5)
    }
}

/// Messages collected by the reader thread (a class so the thread can hold it without holding the subscriber).
private final class MessageLog: Sendable {
    let messages = Mutex<[TestSubscriber.Message]>([])
}

extension TestBroker {
    /// `mosquitto_pub`/`mosquitto_sub` options to reach this broker (TLS files and the first user included).
    public var connectionArguments: [String] {
        var arguments = ["-h", "127.0.0.1", "-p", String(port)]
        if let tls {
            arguments += ["--cafile", tls.caFile, "--cert", tls.clientCertificateFile, "--key", tls.clientKeyFile]
        }
        if let (user, password) = users.sorted(by: { $0.key < $1.key }).first {
            arguments += ["-u", user, "-P", password]
        }
        return arguments
    }

    /// Publishes one QoS 1 message with `mosquitto_pub` (independent of our client).
    public func publishWithTool(topic: String, payload: String, retain: Bool = false) throws {
        try TestTools.runTool(
            "mosquitto_pub", connectionArguments + ["-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : []))
    }
}
