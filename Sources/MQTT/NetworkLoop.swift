import CMosquitto
import Foundation

/// The driver: owns the `MosquittoHandle` and runs the network loop on one dedicated thread.
///
/// Thread model (why not `mosquitto_loop_start`): libmosquitto's own thread would call our callbacks
/// while API callers use the handle from other threads, relying on libmosquitto's internal mutexes and
/// making teardown inside callbacks unsafe. Instead one thread we own does everything with the handle:
/// it `poll`s the broker socket plus a wake pipe, calls `mosquitto_loop_read/write/misc`, runs the
/// `ConnectionStateMachine`'s actions, and drains commands that other threads queue in `ClientMailbox`.
/// Callbacks run on this thread inside those calls; they only record `Event`s, which are handled after
/// libmosquitto returns, so no action (such as resetting the handle) ever runs inside libmosquitto.
final class NetworkLoop {
    enum Event {
        case connack(reasonCode: Int32, sessionPresent: Bool)
        case disconnected(code: Int32)
        case published(mid: Int32, reasonCode: Int32)
        case subscribed(mid: Int32, grantedQoS: [Int32])
    }

    private let configuration: MQTTConfiguration
    private let outbox: Outbox
    private let mailbox: ClientMailbox
    private let onMessage: @Sendable (MQTTMessage) -> Void
    private let onEvent: @Sendable (MQTTConnectionEvent) -> Void
    private let clock = ContinuousClock()

    private var handle: MosquittoHandle!
    private var machine: ConnectionStateMachine
    private var events: [Event] = []
    private var running = true
    private var sessionUp = false

    /// PUBACK bookkeeping for the current connection: libmosquitto message id → outbox sequence.
    private var inflight: [Int32: UInt64] = [:]
    /// Highest outbox sequence handed to libmosquitto on this connection.
    private var highestSent: UInt64 = 0
    private var pendingSubscriptions: [Int32: String] = [:]
    private var reconnectAt: ContinuousClock.Instant?
    private var connectDeadline: ContinuousClock.Instant?
    private var lastOutboxSync: ContinuousClock.Instant
    private var flushWaiters: [(deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Bool, Never>)] =
        []
    private var stopContinuations: [CheckedContinuation<Bool, Never>] = []
    private var finalMessage: MQTTStatusMessage?
    private var finalMid: Int32?
    private var finalDeadline: ContinuousClock.Instant?
    private var finalAcknowledged = false
    /// The last error line libmosquitto logged (OpenSSL detail for TLS failures, for instance).
    private var lastLibraryErrorLine: String?

    init(
        configuration: MQTTConfiguration, outbox: Outbox, mailbox: ClientMailbox,
        onMessage: @escaping @Sendable (MQTTMessage) -> Void,
        onEvent: @escaping @Sendable (MQTTConnectionEvent) -> Void
    ) {
        self.configuration = configuration
        self.outbox = outbox
        self.mailbox = mailbox
        self.onMessage = onMessage
        self.onEvent = onEvent
        self.machine = ConnectionStateMachine(policy: configuration.reconnect)
        self.lastOutboxSync = clock.now
    }

    // MARK: The loop

    func run() {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        do {
            handle = try MosquittoHandle(
                clientID: configuration.clientID, cleanStart: configuration.cleanStart, userdata: userdata)
        } catch {
            onEvent(.stopped(error))
            failWaiters()
            return
        }
        perform(machine.start())
        while running {
            for command in mailbox.takeCommands() { handle(command) }
            pumpOutbox()
            waitForIO()
            processEvents()
            checkTimers()
        }
        // Anything still waiting learns that we are done.
        failWaiters()
        let stopContinuations = self.stopContinuations
        self.stopContinuations = []
        for continuation in stopContinuations { continuation.resume(returning: finalAcknowledged) }
        onEvent(.stopped(nil))
        handle = nil  // mosquitto_destroy
    }

    private func waitForIO() {
        let socket = handle.socket
        var fds = [pollfd(fd: mailbox.wakePipe.readEnd, events: Int16(POLLIN), revents: 0)]
        if socket >= 0 {
            let wantWrite = handle.wantsWrite
            fds.append(pollfd(fd: socket, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0))
        }
        let ready = poll(&fds, nfds_t(fds.count), pollTimeoutMilliseconds())
        if ready > 0 && fds[0].revents != 0 { mailbox.wakePipe.drain() }
        guard socket >= 0 else { return }
        let revents = ready > 0 ? fds[1].revents : 0
        if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            // Errors are reported through on_disconnect (libmosquitto calls it and closes the socket).
            noteLoopResult(mosquitto_loop_read(handle.raw, 1), "mosquitto_loop_read")
        }
        if handle.socket >= 0 && (revents & Int16(POLLOUT) != 0) {
            noteLoopResult(mosquitto_loop_write(handle.raw, 1), "mosquitto_loop_write")
        }
        if handle.socket >= 0 {
            noteLoopResult(mosquitto_loop_misc(handle.raw), "mosquitto_loop_misc")
        }
    }

    /// Loop functions report failures twice: as a return code and through on_disconnect. The callback is
    /// what drives the state machine; the return code still goes through the one choke point so that a
    /// failure that did *not* close the socket is not lost.
    private func noteLoopResult(_ rc: Int32, _ operation: StaticString) {
        do { try mosquittoCheck(rc, operation) } catch {
            if handle.socket >= 0 && rc != MOSQ_ERR_NO_CONN.rawValue {
                events.append(.disconnected(code: rc))
            }
        }
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        let now = clock.now
        var next = now + .seconds(1)  // keepalive housekeeping runs at least once a second
        for deadline in [reconnectAt, connectDeadline, finalDeadline] + flushWaiters.map(\.deadline) {
            if let deadline, deadline < next { next = deadline }
        }
        let milliseconds = (next - now).components.seconds * 1000 + (next - now).components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds))
    }

    // MARK: Commands from other threads

    private func handle(_ command: ClientCommand) {
        switch command {
        case .subscribe(let filter, let qos):
            if sessionUp { subscribe(filter, qos: qos) }
        case .flush(let deadline, let continuation):
            if outbox.isEmpty {
                continuation.resume(returning: true)
            } else {
                flushWaiters.append((deadline, continuation))
            }
        case .stop(let message, let timeoutSeconds, let continuation):
            if let continuation { stopContinuations.append(continuation) }
            finalMessage = message
            finalDeadline = clock.now + .milliseconds(Int(timeoutSeconds * 1000))
            perform(machine.stopRequested(hasFinalMessage: message != nil))
        }
    }

    // MARK: Carrying out the state machine's actions

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .connect(let attempt):
            reconnectAt = nil
            onEvent(.connecting(broker: configuration.broker.description, attempt: attempt))
            do {
                try connect()
                connectDeadline = clock.now + .milliseconds(Int(configuration.connectTimeoutSeconds * 1000))
            } catch {
                perform(machine.connectAttemptFailed(error))
            }
        case .establishSession:
            connectDeadline = nil
            sessionUp = true
            establishSession()
        case .retry(let delay, let error):
            let wasUp = sessionUp
            dropConnection()
            reconnectAt = clock.now + .milliseconds(Int(delay * 1000))
            onEvent(
                wasUp
                    ? .connectionLost(error, retryInSeconds: delay)
                    : .connectionFailed(error, retryInSeconds: delay))
        case .publishFinalMessage:
            guard let message = finalMessage else { return perform(machine.finalMessageSettled()) }
            var mid: Int32 = 0
            let rc = message.payload.withUnsafeBytes { bytes in
                mosquitto_publish_v5(
                    handle.raw, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, 1, message.retain, nil)
            }
            do {
                try mosquittoCheck(rc, "mosquitto_publish_v5")
                finalMid = mid
            } catch {
                perform(machine.finalMessageSettled())
            }
        case .disconnect:
            finalDeadline = nil
            // A DISCONNECT with reason 0 tells the broker to discard the will.
            let rc = mosquitto_disconnect_v5(handle.raw, 0, nil)
            noteLoopResult(rc, "mosquitto_disconnect_v5")
            while handle.socket >= 0 && handle.wantsWrite {
                if mosquitto_loop_write(handle.raw, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
            }
            sessionUp = false
            perform(machine.disconnected())
        case .finishStop:
            dropConnection()
            running = false
        case .none:
            break
        }
    }

    private func connect() throws(MQTTError) {
        try handle.reset()
        try configureHandle()
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if configuration.protocolVersion == .v5 {
            try mosquittoCheck(
                mosquitto_property_add_int32(
                    &properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue),
                    configuration.cleanStart ? 0 : configuration.sessionExpiryIntervalSeconds),
                "mosquitto_property_add_int32")
        }
        lastLibraryErrorLine = nil
        // Blocking TCP connect (DNS + connect(2)); the TLS handshake and CONNACK then complete in the loop.
        try mosquittoCheck(
            mosquitto_connect_bind_v5(
                handle.raw, configuration.broker.host, Int32(configuration.broker.port),
                Int32(configuration.keepAliveSeconds), nil, properties),
            "mosquitto_connect_bind_v5")
    }

    private func configureHandle() throws(MQTTError) {
        let raw = handle.raw
        try mosquittoCheck(
            mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, configuration.protocolVersion.rawValue),
            "mosquitto_int_option(PROTOCOL_VERSION)")
        try mosquittoCheck(
            mosquitto_max_inflight_messages_set(raw, UInt32(configuration.maxInflightMessages)),
            "mosquitto_max_inflight_messages_set")
        if let credentials = configuration.credentials {
            try mosquittoCheck(
                mosquitto_username_pw_set(raw, credentials.username, credentials.password?.revealed),
                "mosquitto_username_pw_set")
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set_v5(raw, will.topic, Int32(bytes.count), bytes.baseAddress, 1, will.retain, nil)
            }
            try mosquittoCheck(rc, "mosquitto_will_set_v5")
        }
        if configuration.broker.usesTLS, let tls = configuration.tls {
            try mosquittoCheck(
                mosquitto_tls_set(raw, tls.caFile, nil, tls.certificateFile, tls.privateKeyFile, nil),
                "mosquitto_tls_set")
            try mosquittoCheck(mosquitto_tls_opts_set(raw, 1 /* SSL_VERIFY_PEER */, nil, nil), "mosquitto_tls_opts_set")
            try mosquittoCheck(
                mosquitto_tls_insecure_set(raw, tls.insecureSkipHostnameVerification), "mosquitto_tls_insecure_set")
        }
        mosquitto_connect_v5_callback_set(raw) { _, userdata, reasonCode, flags, _ in
            NetworkLoop.from(userdata).events.append(.connack(reasonCode: reasonCode, sessionPresent: flags & 1 != 0))
        }
        mosquitto_disconnect_v5_callback_set(raw) { _, userdata, code, _ in
            NetworkLoop.from(userdata).events.append(.disconnected(code: code))
        }
        mosquitto_publish_v5_callback_set(raw) { _, userdata, mid, reasonCode, _ in
            NetworkLoop.from(userdata).events.append(.published(mid: mid, reasonCode: reasonCode))
        }
        mosquitto_subscribe_v5_callback_set(raw) { _, userdata, mid, count, granted, _ in
            let grantedQoS = (0..<Int(count)).map { granted![$0] }
            NetworkLoop.from(userdata).events.append(.subscribed(mid: mid, grantedQoS: grantedQoS))
        }
        mosquitto_message_v5_callback_set(raw) { _, userdata, message, _ in
            guard let message = message?.pointee, let topic = message.topic else { return }
            let payload =
                message.payloadlen > 0 && message.payload != nil
                ? Array(UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen))) : []
            NetworkLoop.from(userdata).onMessage(
                MQTTMessage(topic: String(cString: topic), payload: payload, retain: message.retain))
        }
        mosquitto_log_callback_set(raw) { _, userdata, level, text in
            guard level & Int32(MOSQ_LOG_ERR) != 0, let text else { return }
            NetworkLoop.from(userdata).lastLibraryErrorLine = String(cString: text)
        }
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> NetworkLoop {
        Unmanaged<NetworkLoop>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Birth first, then every subscription, then the outbox (in `pumpOutbox`): one connection carries them
    /// in that order.
    private func establishSession() {
        inflight = [:]
        highestSent = 0
        pendingSubscriptions = [:]
        if let birth = configuration.birth {
            var mid: Int32 = 0
            let rc = birth.payload.withUnsafeBytes { bytes in
                mosquitto_publish_v5(
                    handle.raw, &mid, birth.topic, Int32(bytes.count), bytes.baseAddress, 1, birth.retain, nil)
            }
            noteLoopResult(rc, "mosquitto_publish_v5(birth)")
        }
        for subscription in mailbox.subscriptions { subscribe(subscription.filter, qos: subscription.qos) }
    }

    private func subscribe(_ filter: String, qos: MQTTQoS) {
        var mid: Int32 = 0
        let rc = mosquitto_subscribe_v5(handle.raw, &mid, filter, qos.rawValue, 0, nil)
        do {
            try mosquittoCheck(rc, "mosquitto_subscribe_v5")
            pendingSubscriptions[mid] = filter
        } catch {
            onEvent(.subscriptionRejected(filter: filter, error: error))
        }
    }

    /// Closes the socket (if any) and forgets this connection's in-flight bookkeeping: whatever was not
    /// PUBACKed stays in the outbox and is re-sent, in order, on the next connection.
    private func dropConnection() {
        sessionUp = false
        connectDeadline = nil
        inflight = [:]
        highestSent = 0
        finalMid = nil
        if handle.socket >= 0 { try? handle.reset() }
    }

    // MARK: Outbox

    private func pumpOutbox() {
        if clock.now - lastOutboxSync >= .seconds(1) {
            try? outbox.sync()  // group commit: bounds what a power loss can take to about a second
            lastOutboxSync = clock.now
        }
        guard sessionUp, finalMid == nil, machine.state == .connected else { return }
        while inflight.count < configuration.maxInflightMessages {
            let batch = outbox.pending(after: highestSent, limit: configuration.maxInflightMessages - inflight.count)
            if batch.isEmpty { return }
            for message in batch {
                var mid: Int32 = 0
                let rc = message.payload.withUnsafeBytes { bytes in
                    mosquitto_publish_v5(
                        handle.raw, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, 1, message.retain,
                        nil)
                }
                do {
                    try mosquittoCheck(rc, "mosquitto_publish_v5")
                    inflight[mid] = message.sequence
                    highestSent = message.sequence
                } catch {
                    switch error.code {
                    case .payloadTooLarge, .invalidArgument, .malformed, .notSupported:
                        // The broker can never take this message: drop it loudly rather than block the queue.
                        outbox.acknowledge(message.sequence)
                        highestSent = message.sequence
                        onEvent(.publishRejected(topic: message.topic, sequence: message.sequence, error: error))
                    default:
                        return  // the link is failing; on_disconnect will follow
                    }
                }
            }
        }
    }

    // MARK: Callback events, handled outside libmosquitto

    private func processEvents() {
        while !events.isEmpty {
            let event = events.removeFirst()
            switch event {
            case .connack(let reasonCode, let sessionPresent):
                if reasonCode == 0 {
                    let action = machine.connAckAccepted()
                    if action == .establishSession { onEvent(.connected(sessionPresent: sessionPresent)) }
                    perform(action)
                } else {
                    perform(
                        machine.connectAttemptFailed(
                            MQTTError(connackCode: reasonCode, protocolVersion: configuration.protocolVersion)))
                }
            case .disconnected(let code):
                if code == 0 && machine.state == .stopping {
                    perform(machine.disconnected())
                } else {
                    perform(machine.connectionLost(disconnectError(code)))
                }
            case .published(let mid, let reasonCode):
                if mid == finalMid {
                    finalMid = nil
                    finalAcknowledged = reasonCode < 0x80
                    perform(machine.finalMessageSettled())
                } else if let sequence = inflight.removeValue(forKey: mid) {
                    if reasonCode >= 0x80, let message = outbox.pending(after: sequence - 1, limit: 1).first,
                        message.sequence == sequence
                    {
                        // The broker refused it for good (e.g. not authorized): re-sending cannot help.
                        onEvent(
                            .publishRejected(
                                topic: message.topic, sequence: sequence,
                                error: MQTTError(reasonCode: reasonCode, operation: "PUBACK")))
                    }
                    outbox.acknowledge(sequence)
                    resolveFlushWaiters()
                }
            case .subscribed(let mid, let granted):
                if let filter = pendingSubscriptions.removeValue(forKey: mid), let code = granted.first, code >= 0x80
                {
                    onEvent(
                        .subscriptionRejected(
                            filter: filter, error: MQTTError(reasonCode: code, operation: "SUBACK")))
                }
            }
        }
    }

    private func disconnectError(_ code: Int32) -> MQTTError {
        if code >= 0x80 { return MQTTError(reasonCode: code, operation: "DISCONNECT") }
        if code == 0 {
            return MQTTError(
                code: .connectionLost, message: "the connection closed", operation: "DISCONNECT", rawCode: 0)
        }
        let error = MQTTError(mosquittoReturnCode: code, operation: "connection", errno: errno)
        if error.code == .tls, let detail = lastLibraryErrorLine {
            return MQTTError(code: .tls, message: "\(error.message) \(detail)", operation: "TLS", rawCode: code)
        }
        return error
    }

    private func checkTimers() {
        let now = clock.now
        if let deadline = reconnectAt, now >= deadline {
            reconnectAt = nil
            perform(machine.reconnectDelayElapsed())
        }
        if let deadline = connectDeadline, now >= deadline {
            connectDeadline = nil
            perform(machine.connectTimedOut())
        }
        if let deadline = finalDeadline, now >= deadline, machine.state == .stopping {
            finalDeadline = nil
            finalMid = nil
            perform(machine.finalMessageSettled())
        }
        resolveFlushWaiters()
    }

    private func resolveFlushWaiters() {
        guard !flushWaiters.isEmpty else { return }
        let empty = outbox.isEmpty
        let now = clock.now
        flushWaiters.removeAll { waiter in
            if empty {
                waiter.continuation.resume(returning: true)
                return true
            }
            if now >= waiter.deadline {
                waiter.continuation.resume(returning: false)
                return true
            }
            return false
        }
    }

    private func failWaiters() {
        let waiters = flushWaiters
        flushWaiters = []
        let empty = outbox.isEmpty
        for waiter in waiters { waiter.continuation.resume(returning: empty) }
    }
}
