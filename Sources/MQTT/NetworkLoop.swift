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
        case connack(reasonCode: Int32, sessionPresent: Bool, brokerReason: String?)
        /// `savedErrno` is read in the callback: by the time the event is handled, errno is long gone.
        case disconnected(code: Int32, savedErrno: Int32, brokerReason: String?)
        case published(mid: Int32, reasonCode: Int32)
        case subscribed(mid: Int32, grantedQoS: [Int32])
    }

    private let configuration: MQTTConfiguration
    private let outbox: Outbox
    private let mailbox: ClientMailbox
    private let onMessage: @Sendable (MQTTMessage) -> Void
    private let onMessagesDelivered: @Sendable () -> Void
    private let onEvent: @Sendable (MQTTConnectionEvent) -> Void
    private let liveness: ClientLiveness
    private let clock = ContinuousClock()
    private let groupCommit: GroupCommit

    private var handle: MosquittoHandle!
    private var machine: ConnectionStateMachine
    private var events: [Event] = []
    /// How many times on_disconnect has run (to tell whether a failing loop call already reported itself).
    private var disconnectCallbacks = 0
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
    private var flushWaiters: [(deadline: ContinuousClock.Instant, waiter: ResultWaiter)] = []
    private var stopWaiters: [ResultWaiter] = []
    private var finalMessage: MQTTStatusMessage?
    private var finalMid: Int32?
    private var finalDeadline: ContinuousClock.Instant?
    private var finalAcknowledged = false
    /// Error lines libmosquitto logged during the current attempt (OpenSSL's reason for a TLS failure,
    /// which `mosquitto_strerror` reduces to "A TLS error occurred.").
    private var libraryErrorLines: [String] = []

    init(
        configuration: MQTTConfiguration, outbox: Outbox, mailbox: ClientMailbox,
        onMessage: @escaping @Sendable (MQTTMessage) -> Void, onMessagesDelivered: @escaping @Sendable () -> Void = {},
        onEvent: @escaping @Sendable (MQTTConnectionEvent) -> Void, liveness: ClientLiveness = ClientLiveness()
    ) {
        self.liveness = liveness
        self.configuration = configuration
        self.outbox = outbox
        self.groupCommit = GroupCommit(outbox: outbox)
        self.mailbox = mailbox
        self.onMessage = onMessage
        self.onMessagesDelivered = onMessagesDelivered
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
            liveness.loopIterated()
            for command in mailbox.takeCommands() { handle(command) }
            if !running { break }  // stopped by a command: do not sit in poll for another second
            pumpOutbox()
            waitForIO()
            processEvents()
            checkTimers()
        }
        handle = nil  // mosquitto_destroy
        groupCommit.waitUntilIdle()
        // Report first, then release waiters, so `await stop()` returns after the last event.
        onEvent(.stopped(nil))
        failWaiters()
        let stopWaiters = self.stopWaiters
        self.stopWaiters = []
        for waiter in stopWaiters { waiter.resume(finalAcknowledged) }
    }

    /// The descriptors `waitForIO` polls (the wake pipe, then the broker socket when there is one), reused: no
    /// allocation per loop iteration.
    private var pollDescriptors: [pollfd] = []

    private func waitForIO() {
        let socket = handle.socket
        pollDescriptors.removeAll(keepingCapacity: true)
        pollDescriptors.append(pollfd(fd: mailbox.wakePipe.readEnd, events: Int16(POLLIN), revents: 0))
        if socket >= 0 {
            let wantWrite = handle.wantsWrite
            pollDescriptors.append(
                pollfd(fd: socket, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0))
        }
        let timeout = pollTimeoutMilliseconds()
        let ready = poll(&pollDescriptors, nfds_t(pollDescriptors.count), timeout)
        if ready > 0 && pollDescriptors[0].revents != 0 { mailbox.wakePipe.drain() }
        guard socket >= 0 else { return }
        let revents = ready > 0 ? pollDescriptors[1].revents : 0
        if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            // Errors are reported through on_disconnect (libmosquitto calls it and closes the socket).
            if revents & Int16(POLLIN) != 0 { liveness.brokerBytesReceived() }
            // Corked while reading when many packets are likely (libmosquitto reads as many per call as we have
            // messages in flight): it writes a PUBACK for every QoS 1 message it reads, and the message callback
            // may have queued outputs (a fix handled inline); all of them leave as one segment below. With few in
            // flight it reads a packet or two per call, and the two extra system calls would only slow a flood.
            let corked = inflight.count < Self.inflightToCorkReads ? false : cork()
            let deliveredBefore = messagesDelivered
            callLoop("mosquitto_loop_read") { mosquitto_loop_read($0, 1) }
            let delivered = messagesDelivered != deliveredBefore
            if delivered {
                onMessagesDelivered()
                pumpOutbox()
            }
            if corked { uncork() }
            // Only a read that brought no message (PUBACKs for our publishes: nothing we send will carry the ACK)
            // and only at a low message rate: under a flood the ACKs ride on our outputs anyway, and forcing them
            // out cost 10 % more CPU per fix at 3,000 vehicles (bench-agent fleet, session 6).
            if !delivered && inflight.count < Self.inflightToCorkReads { acknowledgeReadsNow() }
        }
        if handle.socket >= 0 && (revents & Int16(POLLOUT) != 0) {
            callLoop("mosquitto_loop_write") { mosquitto_loop_write($0, 1) }
        }
        if handle.socket >= 0 {
            callLoop("mosquitto_loop_misc") { mosquitto_loop_misc($0) }
        }
    }

    /// Loop functions usually report a failure twice: as a return code and through on_disconnect (after
    /// closing the socket). The callback drives the state machine. Some failures — a TLS handshake that
    /// fails inside `mosquitto_loop_read` — close the socket *without* calling on_disconnect; the return
    /// code, through the one choke point, then stands in for the missing callback.
    private func noteLoopResult(_ rc: Int32, _ operation: StaticString, disconnectsBefore: Int) {
        let savedErrno = errno
        do { try mosquittoCheck(rc, operation) } catch {
            if disconnectCallbacks == disconnectsBefore && rc != MOSQ_ERR_NO_CONN.rawValue {
                events.append(.disconnected(code: rc, savedErrno: savedErrno, brokerReason: nil))
            }
        }
    }

    private func callLoop(_ operation: StaticString, _ body: (OpaquePointer) -> Int32) {
        let before = disconnectCallbacks
        noteLoopResult(body(handle.raw), operation, disconnectsBefore: before)
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        let now = clock.now
        var next = now + .seconds(1)  // keepalive housekeeping runs at least once a second
        for deadline in [reconnectAt, connectDeadline, finalDeadline] {
            if let deadline, deadline < next { next = deadline }
        }
        for waiter in flushWaiters where waiter.deadline < next { next = waiter.deadline }  // no mapped copy
        let milliseconds =
            (next - now).components.seconds * 1000 + (next - now).components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds))
    }

    // MARK: Commands from other threads

    private func handle(_ command: ClientCommand) {
        switch command {
        case .subscribe(let filter, let qos):
            if sessionUp { subscribe(filter, qos: qos) }
        case .flush(let deadline, let waiter):
            if outbox.isEmpty {
                waiter.resume(true)
            } else {
                flushWaiters.append((deadline, waiter))
            }
        case .stop(let message, let timeoutSeconds, let waiter):
            if let waiter { stopWaiters.append(waiter) }
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
                perform(machine.connectAttemptFailed(withLibraryDetail(error)))
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
            callLoop("mosquitto_disconnect_v5") { mosquitto_disconnect_v5($0, 0, nil) }
            // Push the DISCONNECT out (libmosquitto closes the socket once it is written), waiting at most
            // about a second for a congested socket to drain.
            for _ in 0..<10 where handle.socket >= 0 && handle.wantsWrite {
                var writable = pollfd(fd: handle.socket, events: Int16(POLLOUT), revents: 0)
                _ = poll(&writable, 1, 100)
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
        libraryErrorLines = []
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
        // Small messages go out at once: with Nagle's algorithm a PUBLISH written right after a PUBACK waits for
        // the broker's delayed ACK (40 ms on Linux), which made every agent output 40 ms late.
        try mosquittoCheck(mosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1), "mosquitto_int_option(TCP_NODELAY)")
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
            try mosquittoCheck(
                mosquitto_tls_opts_set(raw, 1 /* SSL_VERIFY_PEER */, nil, nil), "mosquitto_tls_opts_set")
            try mosquittoCheck(
                mosquitto_tls_insecure_set(raw, tls.insecureSkipHostnameVerification), "mosquitto_tls_insecure_set")
        }
        mosquitto_connect_v5_callback_set(raw) { _, userdata, reasonCode, flags, properties in
            NetworkLoop.from(userdata).events.append(
                .connack(
                    reasonCode: reasonCode, sessionPresent: flags & 1 != 0,
                    brokerReason: NetworkLoop.reasonString(properties)))
        }
        mosquitto_disconnect_v5_callback_set(raw) { _, userdata, code, properties in
            let savedErrno = errno
            let loop = NetworkLoop.from(userdata)
            loop.disconnectCallbacks += 1
            loop.events.append(
                .disconnected(code: code, savedErrno: savedErrno, brokerReason: NetworkLoop.reasonString(properties)))
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
            let loop = NetworkLoop.from(userdata)
            loop.messagesDelivered &+= 1
            loop.onMessage(MQTTMessage(topic: String(cString: topic), payload: payload, retain: message.retain))
        }
        // Only over TLS, the one case whose errors need libmosquitto's log (OpenSSL's reason): with a log callback
        // set, libmosquitto formats a debug line (malloc + vsnprintf) for every packet it sends or receives, four
        // per fix in fleet mode, whatever level the callback keeps.
        if configuration.broker.usesTLS {
            mosquitto_log_callback_set(raw) { _, userdata, level, text in
                guard level & Int32(MOSQ_LOG_ERR) != 0, let text else { return }
                let loop = NetworkLoop.from(userdata)
                if loop.libraryErrorLines.count < 8 { loop.libraryErrorLines.append(String(cString: text)) }
            }
        }
    }

    /// The MQTT 5 Reason String property a broker may attach to CONNACK or DISCONNECT, if any.
    private static func reasonString(_ properties: OpaquePointer?) -> String? {
        guard let properties else { return nil }
        var value: UnsafeMutablePointer<CChar>? = nil
        guard mosquitto_property_read_string(properties, Int32(MQTT_PROP_REASON_STRING.rawValue), &value, false) != nil,
            let value
        else { return nil }
        defer { free(value) }
        return String(cString: value)
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
            // A failure here means the link is already failing; on_disconnect follows.
            try? mosquittoCheck(rc, "mosquitto_publish_v5(birth)")
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
            // Group commit, on its own thread: bounds what a power loss can take to about a second.
            groupCommit.request()
            lastOutboxSync = clock.now
        }
        guard sessionUp, finalMid == nil, machine.state == .connected else { return }
        // libmosquitto writes each PUBLISH to the socket as it is queued. Corked, the kernel sends what a batch
        // wrote as one segment when uncorked, instead of pushing every message through loopback (or the network
        // stack) on its own: most of the cost of a small publish.
        var corked = false
        defer { if corked { uncork() } }
        while inflight.count < configuration.maxInflightMessages {
            let batch = outbox.pending(after: highestSent, limit: configuration.maxInflightMessages - inflight.count)
            if batch.isEmpty { return }
            if !corked && batch.count > 1 { corked = cork() }
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

    /// Messages in flight from which a read is corked (see `waitForIO`).
    static let inflightToCorkReads = 16
    /// Messages handed to `onMessage` so far (wraps): tells whether a read delivered any, whose callback may have
    /// published.
    private var messagesDelivered = 0
    /// True while TCP_CORK is set on the broker socket.
    private var isCorked = false

    /// Sets TCP_CORK on the broker socket. True when this call corked it (and must `uncork`); false when it was
    /// corked already or cannot be (no socket, not TCP).
    private func cork() -> Bool {
        guard !isCorked, setTCPOption(TCP_CORK, 1) else { return false }
        isCorked = true
        return true
    }

    /// Clears TCP_CORK: the kernel sends what was written while corked.
    private func uncork() {
        isCorked = false
        _ = setTCPOption(TCP_CORK, 0)
    }

    /// Sends the TCP acknowledgement of what was just read now instead of after the kernel's delayed-ACK timer.
    ///
    /// Why: the broker answers each of our QoS 1 publishes with a PUBACK we never reply to, so our kernel holds the
    /// ACK for it (up to 40 ms); a broker with Nagle's algorithm on (mosquitto's default, `set_tcp_nodelay false`)
    /// then holds the next message for us — the next raw fix — until that ACK comes. It was the 12–30 ms p99 of
    /// fix → `location/snapped` in `scripts/bench-agent` (5–9 ms with this, at the same load). The value 2 (even,
    /// non-zero): Linux sends the pending ACK and then returns the socket to delayed-ACK ("pingpong") mode, so
    /// the segments that follow — the next fix — are not each acknowledged on their own (1 would leave quick-ACK
    /// mode on for them). Hence also once per such read.
    private func acknowledgeReadsNow() {
        _ = setTCPOption(TCP_QUICKACK, 2)
    }

    /// Sets an IPPROTO_TCP option on the broker socket; false when there is no socket or the call failed.
    private func setTCPOption(_ name: Int32, _ value: Int32) -> Bool {
        let socket = handle.socket
        guard socket >= 0 else { return false }
        var value = value
        return setsockopt(socket, Int32(IPPROTO_TCP), name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    // MARK: Callback events, handled outside libmosquitto

    private func processEvents() {
        // PUBACKs are applied to the outbox together, after the loop: one journal write per poll, not one per message.
        var acknowledged: [UInt64] = []
        defer {
            if !acknowledged.isEmpty {
                outbox.acknowledge(acknowledged)
                resolveFlushWaiters()
            }
        }
        var index = 0
        while index < events.count {
            let event = events[index]
            index += 1
            if index == events.count {
                events.removeAll(keepingCapacity: true)
                index = 0
            }
            switch event {
            case .connack(let reasonCode, let sessionPresent, let brokerReason):
                if reasonCode == 0 {
                    let action = machine.connAckAccepted()
                    if action == .establishSession { onEvent(.connected(sessionPresent: sessionPresent)) }
                    perform(action)
                } else {
                    let error = MQTTError(connackCode: reasonCode, protocolVersion: configuration.protocolVersion)
                    perform(machine.connectAttemptFailed(error.withBrokerReason(brokerReason)))
                }
            case .disconnected(let code, let savedErrno, let brokerReason):
                if code == 0 && machine.state == .stopping {
                    perform(machine.disconnected())
                } else {
                    let error = disconnectError(code, savedErrno: savedErrno)
                    perform(machine.connectionLost(error.withBrokerReason(brokerReason)))
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
                    acknowledged.append(sequence)
                }
            case .subscribed(let mid, let granted):
                if let filter = pendingSubscriptions.removeValue(forKey: mid), let code = granted.first, code >= 0x80 {
                    onEvent(
                        .subscriptionRejected(
                            filter: filter, error: MQTTError(reasonCode: code, operation: "SUBACK")))
                }
            }
        }
    }

    private func disconnectError(_ code: Int32, savedErrno: Int32) -> MQTTError {
        if code >= 0x80 { return MQTTError(reasonCode: code, operation: "DISCONNECT") }
        if code == 0 {
            return MQTTError(
                code: .connectionLost, message: "the connection closed", operation: "DISCONNECT", rawCode: 0)
        }
        return withLibraryDetail(MQTTError(mosquittoReturnCode: code, operation: "connection", errno: savedErrno))
    }

    /// Appends what libmosquitto logged (e.g. "OpenSSL Error[0]: …certificate verify failed") to a TLS error.
    private func withLibraryDetail(_ error: MQTTError) -> MQTTError {
        guard error.code == .tls, !libraryErrorLines.isEmpty else { return error }
        return MQTTError(
            code: error.code, message: "\(error.message) \(libraryErrorLines.joined(separator: "; "))",
            operation: error.operation, rawCode: error.rawCode)
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
                waiter.waiter.resume(true)
                return true
            }
            if now >= waiter.deadline {
                waiter.waiter.resume(false)
                return true
            }
            return false
        }
    }

    private func failWaiters() {
        let waiters = flushWaiters
        flushWaiters = []
        let empty = outbox.isEmpty
        for waiter in waiters { waiter.waiter.resume(empty) }
    }
}
