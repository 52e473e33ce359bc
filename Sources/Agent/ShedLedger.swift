import Foundation
import Synchronization

/// Collects what the outbox shed, so the agent can say so on `agent/error`.
///
/// The outbox reports each shed message from inside its own lock, where publishing again would
/// deadlock; so the notice is only counted here, and the agent reports the tally after its next
/// successful publish (at most once per `minimumIntervalSeconds`, so a long outage gives a few
/// summaries, not one error per shed message).
final class ShedLedger: Sendable {
    struct Report: Equatable {
        /// Shed messages per topic since the last report.
        var countsByTopic: [String: Int]
        var total: Int { countsByTopic.values.reduce(0, +) }

        /// How many topics the message names; a fleet can shed thousands at once, and one line of a few hundred
        /// bytes is what an operator watching `agent/error` can read.
        static let topicsNamed = 20

        /// The human-readable message of the `outboxShed` error.
        var message: String {
            let sorted = countsByTopic.sorted { $0.key < $1.key }
            let named = sorted.prefix(Self.topicsNamed).map { "\($0.key) ×\($0.value)" }
            let more = sorted.count > Self.topicsNamed ? ", and \(sorted.count - Self.topicsNamed) more topic(s)" : ""
            return "outbox full (the broker unreachable or not keeping up): shed \(total) state message(s) on "
                + "\(sorted.count) topic(s) (each shed topic's current value is published again once the outbox has drained to half its bound): "
                + named.joined(separator: ", ") + more
        }
    }

    private struct State {
        var counts: [String: Int] = [:]
        var lastReport: Date?
    }

    private let state = Mutex(State())
    let minimumIntervalSeconds: Double

    init(minimumIntervalSeconds: Double = 1) {
        self.minimumIntervalSeconds = minimumIntervalSeconds
    }

    /// Counts one message shed from `topic`.
    func record(topic: String) {
        state.withLock { $0.counts[topic, default: 0] += 1 }
    }

    /// The tally since the last report, when there is one and the interval has passed; it is then reset.
    func take(now: Date) -> Report? {
        state.withLock { state in
            guard !state.counts.isEmpty else { return nil }
            if let last = state.lastReport, now.timeIntervalSince(last) < minimumIntervalSeconds { return nil }
            defer {
                state.counts = [:]
                state.lastReport = now
            }
            return Report(countsByTopic: state.counts)
        }
    }
}
