import MQTT
import Testing

/// Jitter fractions from a script, so every delay in a transcript is exact.
struct ScriptedJitter: JitterSource {
    var fractions: [Double]
    mutating func nextFraction() -> Double { fractions.isEmpty ? 0 : fractions.removeFirst() }
}

@Suite("ConnectionStateMachine transcripts")
struct ConnectionStateMachineTests {
    let refused = MQTTError(code: .brokerUnreachable, message: "Connection refused", operation: "connect")
    let badPassword = MQTTError(code: .notAuthorized, message: "Not authorized", operation: "CONNACK", rawCode: 135)
    let lost = MQTTError(code: .connectionLost, message: "The connection was lost.", operation: "connection")

    /// 1 s, doubling, capped at 8 s, up to 50 % jitter.
    func machine(jitter: [Double] = []) -> ConnectionStateMachine {
        ConnectionStateMachine(
            policy: ReconnectPolicy(initialDelaySeconds: 1, maxDelaySeconds: 8, multiplier: 2, jitterFraction: 0.5),
            jitter: ScriptedJitter(fractions: jitter))
    }

    @Test("an unreachable broker: exponential backoff, capped, attempts counted")
    func unreachableBackoff() {
        var m = machine()
        #expect(m.start() == .connect(attempt: 1))
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 1, error: refused))
        #expect(m.state == .waitingToReconnect(nextAttempt: 2))
        #expect(m.reconnectDelayElapsed() == .connect(attempt: 2))
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 2, error: refused))
        #expect(m.reconnectDelayElapsed() == .connect(attempt: 3))
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 4, error: refused))
        #expect(m.reconnectDelayElapsed() == .connect(attempt: 4))
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 8, error: refused))
        #expect(m.reconnectDelayElapsed() == .connect(attempt: 5))
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 8, error: refused))  // capped
        #expect(m.consecutiveFailures == 5)
    }

    @Test("jitter shortens each delay by the injected fraction of jitterFraction")
    func jitter() {
        var m = machine(jitter: [0.5, 1.0, 0.0])
        _ = m.start()
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 0.75, error: refused))  // 1 × (1 − 0.5×0.5)
        _ = m.reconnectDelayElapsed()
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 1, error: refused))  // 2 × (1 − 0.5×1)
        _ = m.reconnectDelayElapsed()
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 4, error: refused))  // 4 × (1 − 0)
    }

    @Test("refused credentials are retried, never reset the backoff, and settle at the maximum delay")
    func authFailureRetryPolicy() {
        var m = machine()
        _ = m.start()
        var delays: [Double] = []
        for attempt in 1...6 {
            guard case .retry(let delay, let error) = m.connectAttemptFailed(badPassword) else {
                Issue.record("attempt \(attempt) was not retried")
                return
            }
            #expect(error.isAuthenticationFailure)
            delays.append(delay)
            #expect(m.reconnectDelayElapsed() == .connect(attempt: attempt + 1))
        }
        #expect(delays == [1, 2, 4, 8, 8, 8])
    }

    @Test("a session: CONNACK resets the backoff; a lost connection retries from the initial delay")
    func sessionAndLoss() {
        var m = machine()
        _ = m.start()
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 1, error: refused))
        #expect(m.reconnectDelayElapsed() == .connect(attempt: 2))
        #expect(m.connectAttemptFailed(refused) == .retry(afterSeconds: 2, error: refused))
        #expect(m.reconnectDelayElapsed() == .connect(attempt: 3))
        #expect(m.connAckAccepted() == .establishSession)
        #expect(m.state == .connected)
        #expect(m.consecutiveFailures == 0)
        #expect(m.connectionLost(lost) == .retry(afterSeconds: 1, error: lost))
        #expect(m.reconnectDelayElapsed() == .connect(attempt: 1))
        #expect(m.connAckAccepted() == .establishSession)
    }

    @Test("a refused CONNACK followed by the socket closing is one failure, not two")
    func refusalThenClose() {
        var m = machine()
        _ = m.start()
        #expect(m.connectAttemptFailed(badPassword) == .retry(afterSeconds: 1, error: badPassword))
        #expect(m.connectionLost(lost) == .none)
        #expect(m.consecutiveFailures == 1)
    }

    @Test("no CONNACK in time is a failed attempt with mqtt.timeout")
    func connectTimeout() {
        var m = machine()
        _ = m.start()
        guard case .retry(1, let error) = m.connectTimedOut() else {
            Issue.record("timeout did not schedule a retry")
            return
        }
        #expect(error.code == .timeout)
    }

    @Test("graceful stop while connected: final message, then DISCONNECT, then done")
    func gracefulStop() {
        var m = machine()
        _ = m.start()
        _ = m.connAckAccepted()
        #expect(m.stopRequested(hasFinalMessage: true) == .publishFinalMessage)
        #expect(m.state == .stopping)
        #expect(m.reconnectDelayElapsed() == .none)
        #expect(m.finalMessageSettled() == .disconnect)
        #expect(m.disconnected() == .finishStop)
        #expect(m.state == .stopped)
        #expect(m.stopRequested(hasFinalMessage: true) == .none)
    }

    @Test("stop without a final message disconnects at once; stop while offline just finishes")
    func otherStops() {
        var connected = machine()
        _ = connected.start()
        _ = connected.connAckAccepted()
        #expect(connected.stopRequested(hasFinalMessage: false) == .disconnect)

        var waiting = machine()
        _ = waiting.start()
        _ = waiting.connectAttemptFailed(refused)
        #expect(waiting.stopRequested(hasFinalMessage: true) == .finishStop)
        #expect(waiting.reconnectDelayElapsed() == .none)  // the stale timer does nothing

        var idle = machine()
        #expect(idle.stopRequested(hasFinalMessage: true) == .finishStop)
        #expect(idle.start() == .none)
    }

    @Test("the link dropping during a graceful stop ends the stop")
    func lossWhileStopping() {
        var m = machine()
        _ = m.start()
        _ = m.connAckAccepted()
        _ = m.stopRequested(hasFinalMessage: true)
        #expect(m.connectionLost(lost) == .finishStop)
        #expect(m.state == .stopped)
    }

    @Test("events that do not apply are ignored")
    func staleEvents() {
        var m = machine()
        #expect(m.connAckAccepted() == .none)
        #expect(m.connectionLost(lost) == .none)
        #expect(m.reconnectDelayElapsed() == .none)
        _ = m.start()
        #expect(m.reconnectDelayElapsed() == .none)
        #expect(m.finalMessageSettled() == .none)
        #expect(m.state == .connecting(attempt: 1))
    }
}
