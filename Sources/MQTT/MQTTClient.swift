import CMosquitto
import Foundation
import Synchronization

/// A message received on a subscription.
public struct MQTTMessage: Sendable, Equatable {
    public let topic: String
    public let payload: [UInt8]
    /// True when the broker sent it from its retained store (i.e. it was published before we subscribed).
    public let retain: Bool

    public init(topic: String, payload: [UInt8], retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }
}

/// What the client reports about its connection, for the agent to log and publish.
public enum MQTTConnectionEvent: Sendable, Equatable {
    /// A connect attempt begins (attempt 1 after start and after every lost connection).
    case connecting(broker: String, attempt: Int)
    /// CONNACK accepted. `sessionPresent` says the broker still had our persistent session.
    case connected(sessionPresent: Bool)
    /// An attempt failed before a session existed (unreachable broker, TLS, refused credentials, timeout);
    /// the next attempt follows after `retryInSeconds`.
    case connectionFailed(MQTTError, retryInSeconds: Double)
    /// An established connection dropped; the next attempt follows after `retryInSeconds`.
    case connectionLost(MQTTError, retryInSeconds: Double)
    case subscriptionRejected(filter: String, error: MQTTError)
    /// The broker (or libmosquitto) refused an outbox message for good; it was removed from the outbox.
    case publishRejected(topic: String, sequence: UInt64, error: MQTTError)
    /// The network thread ended (after `stop`, or at once with the error if the handle could not be made).
    case stopped(MQTTError?)
}

/// An MQTT client for the agent: one persistent session, automatic reconnect with backoff, a birth
/// message and a Last Will, and QoS 1 publishing through a durable `Outbox`.
///
/// ```swift
/// let outbox = try Outbox(directory: stateDir + "/mqtt", onShed: { notice in … })
/// let client = try MQTTClient(configuration: config, outbox: outbox,
///                             onMessage: { message in … }, onEvent: { event in … })
/// try client.subscribe("fleet/\(vid)/cmd/#")
/// try client.start()
/// try client.publish(topic: "fleet/\(vid)/position", payload: json, retain: true, kind: .state)
/// _ = await client.stop(finalMessage: offline, timeoutSeconds: 3)
/// ```
/// Callbacks run on the client's network thread: keep them short and do not block in them (calling
/// `publish` or `subscribe` from them is fine). `onMessagesDelivered` runs after each read of the socket that
/// delivered messages (one or many `onMessage` calls), before the outbox is sent: a receiver that collects the
/// outputs of several messages stores them there, and they leave in the same send.
/// Call `stop` before releasing the client; a client released without `stop` disconnects cleanly in
/// the background. One client per outbox: two clients draining the same outbox would send twice.
/// `publish` keeps working after `stop` (and before `start`): the message waits in the outbox, on disk,
/// for the next `start` or the next process.
///
/// Threading: every method may be called from any thread or task. The libmosquitto handle itself lives
/// on one thread owned by the client (see `NetworkLoop`); the connect call there is blocking (DNS and
/// TCP connect), which delays only the network thread: `flush` and `stop` still return within their
/// timeouts (plus a small margin) even while it is stuck.
public final class MQTTClient: Sendable {
    public let configuration: MQTTConfiguration
    public let outbox: Outbox
    /// The network thread's signs of life (for health checks and watchdogs).
    public let liveness = ClientLiveness()
    private let mailbox: ClientMailbox
    private let onMessage: @Sendable (MQTTMessage) -> Void
    private let onMessagesDelivered: @Sendable () -> Void
    private let onEvent: @Sendable (MQTTConnectionEvent) -> Void
    private enum Lifecycle { case created, running, stopped }
    private let lifecycle = Mutex<Lifecycle>(.created)

    public init(
        configuration: MQTTConfiguration, outbox: Outbox,
        onMessage: @escaping @Sendable (MQTTMessage) -> Void = { _ in },
        onMessagesDelivered: @escaping @Sendable () -> Void = {},
        onEvent: @escaping @Sendable (MQTTConnectionEvent) -> Void = { _ in }
    ) throws(MQTTError) {
        try configuration.validate()
        for status in [configuration.will, configuration.birth].compactMap({ $0 }) {
            try Self.checkPublishTopic(status.topic)
        }
        self.configuration = configuration
        self.outbox = outbox
        self.mailbox = try ClientMailbox()
        self.onMessage = onMessage
        self.onMessagesDelivered = onMessagesDelivered
        self.onEvent = onEvent
    }

    deinit {
        if lifecycle.withLock({ $0 }) == .running {
            mailbox.send(.stop(finalMessage: nil, timeoutSeconds: 0, nil))
        }
    }

    /// Starts the network thread, which connects and keeps reconnecting until `stop`. Subscriptions made
    /// before `start` are sent on the first connect. Calling `start` again does nothing.
    public func start() throws(MQTTError) {
        let shouldStart = lifecycle.withLock { state -> Bool in
            guard state == .created else { return false }
            state = .running
            return true
        }
        guard shouldStart else { return }
        let loop = NetworkLoopBox(
            NetworkLoop(
                configuration: configuration, outbox: outbox, mailbox: mailbox, onMessage: onMessage,
                onMessagesDelivered: onMessagesDelivered, onEvent: onEvent, liveness: liveness))
        let thread = Thread { loop.take().run() }
        thread.name = "mqtt-network"
        thread.start()
    }

    /// Subscribes to `filter` now (if connected) and again after every reconnect, even when the broker
    /// reports a present session (it may have lost it). Throws `mqtt.invalidTopic` for a malformed filter.
    public func subscribe(_ filter: String, qos: MQTTQoS = .atLeastOnce) throws(MQTTError) {
        do {
            try mosquittoCheck(mosquitto_sub_topic_check(filter), "mosquitto_sub_topic_check")
        } catch {
            throw MQTTError(
                code: .invalidTopic, message: "invalid topic filter '\(filter)': \(error.message)",
                operation: error.operation, rawCode: error.rawCode)
        }
        mailbox.addSubscription(filter, qos: qos)
        mailbox.send(.subscribe(filter: filter, qos: qos))
    }

    /// Queues a QoS 1 message in the outbox (durably) and returns its outbox sequence number. It is sent
    /// as soon as the session is up, in order, and re-sent after reconnects until PUBACKed — also by a
    /// later process using the same outbox directory. Throws `mqtt.invalidTopic`, `mqtt.outboxFull`
    /// (only events left and no room: nothing was stored), `mqtt.payloadTooLarge` or `mqtt.outboxIO`.
    ///
    /// `wakeNetworkThread: false` leaves the message in the outbox until the network thread next looks (its next
    /// wake-up, or `wakeNetworkThread()`, or at the latest its one-second housekeeping): a caller publishing a batch
    /// wakes it once at the end instead of once per message.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], retain: Bool, kind: MessageKind, wakeNetworkThread: Bool = true)
        throws(MQTTError) -> UInt64
    {
        try Self.checkPublishTopic(topic)
        let sequence = try outbox.append(topic: topic, payload: payload, retain: retain, kind: kind)
        if wakeNetworkThread { mailbox.wakePipe.wake() }
        return sequence
    }

    /// Queues several QoS 1 messages with one journal write (`Outbox.append(_:)`): a prefix of them is stored,
    /// all unless `error` says why the next one was not.
    public func publish(_ entries: [OutboxEntry], wakeNetworkThread: Bool = true) -> OutboxBatchResult {
        var valid = entries.count
        var topicError: MQTTError?
        for (index, entry) in entries.enumerated() {
            do {
                try Self.checkPublishTopic(entry.topic)
            } catch {
                (valid, topicError) = (index, error)
                break
            }
        }
        var result = outbox.append(valid == entries.count ? entries : Array(entries[..<valid]))
        if result.error == nil, let topicError { result.error = topicError }
        if wakeNetworkThread, result.stored > 0 { mailbox.wakePipe.wake() }
        return result
    }

    /// Has the network thread send what was published with `wakeNetworkThread: false`.
    public func wakeNetworkThread() {
        mailbox.wakePipe.wake()
    }

    /// Waits until every outbox message is PUBACKed. Returns false if `timeoutSeconds` passed first.
    public func flush(timeoutSeconds: Double) async -> Bool {
        guard lifecycle.withLock({ $0 }) == .running else { return outbox.isEmpty }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutSeconds * 1000))
        return await withCheckedContinuation { continuation in
            let waiter = ResultWaiter(continuation)
            mailbox.send(.flush(deadline: deadline, waiter))
            // Backstop: answer on time even if the network thread is stuck in a blocking connect.
            Task { [outbox] in
                try? await Task.sleep(for: .milliseconds(Int(timeoutSeconds * 1000) + 250))
                waiter.resume(outbox.isEmpty)
            }
        }
    }

    /// Graceful shutdown: if connected, publishes `finalMessage` (e.g. the retained offline status) at QoS 1,
    /// waits up to `timeoutSeconds` for its PUBACK, then sends DISCONNECT so the broker does NOT publish the
    /// will, and ends the network thread. Unsent outbox messages stay on disk for the next process.
    /// Returns true if the final message was acknowledged (false if there was none, or no connection).
    @discardableResult
    public func stop(finalMessage: MQTTStatusMessage? = nil, timeoutSeconds: Double = 5) async -> Bool {
        let wasRunning = lifecycle.withLock { state -> Bool in
            defer { state = .stopped }
            return state == .running
        }
        guard wasRunning else { return false }
        return await withCheckedContinuation { continuation in
            let waiter = ResultWaiter(continuation)
            mailbox.send(.stop(finalMessage: finalMessage, timeoutSeconds: timeoutSeconds, waiter))
            // Backstop: the network thread may be inside a blocking TCP connect to a black-holed broker
            // (the kernel gives up after about two minutes). Return anyway; the thread ends when it can.
            Task {
                try? await Task.sleep(for: .milliseconds(Int(timeoutSeconds * 1000) + 2000))
                waiter.resume(false)
            }
        }
    }

    private static func checkPublishTopic(_ topic: String) throws(MQTTError) {
        do {
            try mosquittoCheck(mosquitto_pub_topic_check(topic), "mosquitto_pub_topic_check")
        } catch {
            throw MQTTError(
                code: .invalidTopic, message: "invalid topic '\(topic)': \(error.message)",
                operation: error.operation, rawCode: error.rawCode)
        }
    }
}

/// Hands the not-yet-started `NetworkLoop` to its thread. The loop is not Sendable (it is confined to the
/// network thread); this box is `@unchecked Sendable` because `take()` is called exactly once, by that
/// thread, after which the creating thread never touches the loop again. The lock makes the hand-over a
/// proper happens-before edge.
private final class NetworkLoopBox: @unchecked Sendable {
    private let lock = NSLock()
    private var loop: NetworkLoop?
    init(_ loop: NetworkLoop) { self.loop = loop }
    func take() -> NetworkLoop {
        lock.lock()
        defer { lock.unlock() }
        let taken = loop!
        loop = nil
        return taken
    }
}
