/// A source of jitter fractions in `0..<1`. Injected so that backoff tests are deterministic.
public protocol JitterSource {
    mutating func nextFraction() -> Double
}

/// Jitter from the system random number generator (the production default).
public struct SystemJitter: JitterSource {
    private var generator = SystemRandomNumberGenerator()
    public init() {}
    public mutating func nextFraction() -> Double { Double.random(in: 0..<1, using: &generator) }
}

/// The connection lifecycle as a pure value: each event method returns the `Action` the driver
/// (`MQTTClient`'s network thread) must carry out. It owns no socket and reads no clock — delays are
/// returned, and the driver reports back when they have elapsed — so tests read like transcripts.
///
/// Retry policy (documented behaviour): every failure — refused TCP connect, TLS failure, CONNACK refusal
/// *including bad credentials*, CONNACK timeout, or a lost connection — is reported and retried after an
/// exponential backoff with jitter, capped at `ReconnectPolicy.maxDelaySeconds`. Authentication failures are
/// retried too (an operator may fix the credentials on the broker without touching the vehicle), but
/// they never reset the backoff, so a misconfigured vehicle settles at one attempt per `maxDelaySeconds`.
/// Only a CONNACK that accepts us resets the backoff.
public struct ConnectionStateMachine {
    public enum State: Equatable, Sendable {
        /// Not started yet.
        case idle
        /// A connect attempt (TCP, TLS, CONNECT/CONNACK) is under way.
        case connecting(attempt: Int)
        /// CONNACK accepted; the session is usable.
        case connected
        /// Waiting out a backoff delay before attempt number `nextAttempt`.
        case waitingToReconnect(nextAttempt: Int)
        /// Graceful stop: the final message is in flight; we disconnect once it is acknowledged or times out.
        case stopping
        case stopped
    }

    public enum Action: Equatable, Sendable {
        /// Start connect attempt number `attempt` (1-based since start or since the last success).
        case connect(attempt: Int)
        /// The session is up: publish the birth message, resubscribe everything, then flush the outbox.
        case establishSession
        /// Report `error`, make sure the socket is closed, and call `reconnectDelayElapsed()` after the delay.
        case retry(afterSeconds: Double, error: MQTTError)
        /// Publish the final message and wait for its PUBACK (bounded by the stop timeout).
        case publishFinalMessage
        /// Send DISCONNECT (so the broker discards the will), close the socket, then report `disconnected()`.
        case disconnect
        /// Close whatever is open without ceremony and finish stopping.
        case finishStop
        /// Nothing to do (a stale timer, or an event that does not apply in this state).
        case none
    }

    public private(set) var state: State = .idle
    /// Failures since the last accepted CONNACK; drives the backoff exponent.
    public private(set) var consecutiveFailures = 0
    public let policy: ReconnectPolicy
    private var jitter: any JitterSource

    public init(policy: ReconnectPolicy, jitter: any JitterSource = SystemJitter()) {
        self.policy = policy
        self.jitter = jitter
    }

    public mutating func start() -> Action {
        guard state == .idle else { return .none }
        state = .connecting(attempt: 1)
        return .connect(attempt: 1)
    }

    /// The attempt failed before a session existed: the connect call, TLS, or a refused CONNACK.
    public mutating func connectAttemptFailed(_ error: MQTTError) -> Action {
        guard case .connecting(let attempt) = state else { return .none }
        return scheduleRetry(nextAttempt: attempt + 1, error: error)
    }

    /// No CONNACK within the connect timeout.
    public mutating func connectTimedOut() -> Action {
        connectAttemptFailed(
            MQTTError(code: .timeout, message: "no CONNACK within the connect timeout", operation: "CONNECT"))
    }

    public mutating func connAckAccepted() -> Action {
        guard case .connecting = state else { return .none }
        state = .connected
        consecutiveFailures = 0
        return .establishSession
    }

    /// The socket closed or the broker dropped us (keepalive, takeover, restart…).
    public mutating func connectionLost(_ error: MQTTError) -> Action {
        switch state {
        case .connected:
            return scheduleRetry(nextAttempt: 1, error: error)
        case .connecting:
            return connectAttemptFailed(error)
        case .stopping:
            state = .stopped
            return .finishStop
        case .idle, .waitingToReconnect, .stopped:
            return .none
        }
    }

    public mutating func reconnectDelayElapsed() -> Action {
        guard case .waitingToReconnect(let attempt) = state else { return .none }
        state = .connecting(attempt: attempt)
        return .connect(attempt: attempt)
    }

    public mutating func stopRequested(hasFinalMessage: Bool) -> Action {
        switch state {
        case .connected:
            state = .stopping
            return hasFinalMessage ? .publishFinalMessage : .disconnect
        case .idle, .connecting, .waitingToReconnect:
            state = .stopped
            return .finishStop
        case .stopping, .stopped:
            return .none
        }
    }

    /// The final message was acknowledged, or its wait timed out: either way, disconnect cleanly now.
    public mutating func finalMessageSettled() -> Action {
        guard state == .stopping else { return .none }
        return .disconnect
    }

    /// Our DISCONNECT went out and the socket is closed.
    public mutating func disconnected() -> Action {
        guard state == .stopping else { return .none }
        state = .stopped
        return .finishStop
    }

    /// The delay before the next attempt after `consecutiveFailures` failures, before jitter.
    public func baseDelaySeconds(afterFailures failures: Int) -> Double {
        var delay = policy.initialDelaySeconds
        var step = 1
        while step < failures && delay < policy.maxDelaySeconds {
            delay *= policy.multiplier
            step += 1
        }
        return min(delay, policy.maxDelaySeconds)
    }

    private mutating func scheduleRetry(nextAttempt: Int, error: MQTTError) -> Action {
        consecutiveFailures += 1
        state = .waitingToReconnect(nextAttempt: nextAttempt)
        let base = baseDelaySeconds(afterFailures: consecutiveFailures)
        let fraction = min(max(jitter.nextFraction(), 0), 1)
        return .retry(afterSeconds: base * (1 - policy.jitterFraction * fraction), error: error)
    }
}
