import Foundation

/// Keeps a flood of bad inputs from becoming a flood of `agent/error` events (which are never shed, so they could
/// crowd arrivals out of the outbox): at most one error per code and input topic per `intervalSeconds`; the rest are
/// counted, and once the interval has passed one summary carries the count and the last of them.
///
/// One per vehicle session (and one for the agent's own errors). Driven by the caller's clock.
struct ErrorThrottle {
    struct Key: Hashable {
        let code: AgentInputError.Code
        let topic: String?
    }

    /// Errors held back under one key since its last published error.
    struct Suppressed: Equatable {
        var count: Int
        /// The last one held back: its error, input topic and payload.
        var error: AgentInputError
        var topic: String?
        var payload: [UInt8]?

        /// The summary's error: same code, the count and the last message.
        var summary: AgentInputError {
            AgentInputError(error.code, "\(count) more like this suppressed (at most one a second per code and topic); "
                + "the last: \(error.message)")
        }
    }

    /// 0 disables the limit.
    let intervalSeconds: Double
    private var lastPublished: [Key: Date] = [:]
    private var suppressed: [Key: Suppressed] = [:]

    init(intervalSeconds: Double) {
        self.intervalSeconds = intervalSeconds
    }

    var hasSuppressed: Bool { !suppressed.isEmpty }

    /// True when this error may be published now; otherwise it is counted for a later summary.
    mutating func admit(_ error: AgentInputError, topic: String?, payload: [UInt8]?, now: Date) -> Bool {
        guard intervalSeconds > 0 else { return true }
        let key = Key(code: error.code, topic: topic)
        let withinInterval = lastPublished[key].map { now.timeIntervalSince($0) < intervalSeconds && now >= $0 } ?? false
        // While a summary is pending, later errors join it (so they never overtake it).
        if withinInterval || suppressed[key] != nil {
            let excerpt = payload.map { Array($0.prefix(121)) }  // one byte more than the excerpt, for its "…"
            suppressed[key, default: Suppressed(count: 0, error: error, topic: topic, payload: excerpt)].count += 1
            suppressed[key]!.error = error
            suppressed[key]!.payload = excerpt
            return false
        }
        if lastPublished.count > 64 {
            lastPublished = lastPublished.filter { now.timeIntervalSince($0.value) < intervalSeconds }
        }
        lastPublished[key] = now
        return true
    }

    /// The summaries whose interval has passed; each counts as that key's published error.
    mutating func dueSummaries(now: Date) -> [Suppressed] {
        var due: [Suppressed] = []
        for (key, held) in suppressed {
            if let last = lastPublished[key], now.timeIntervalSince(last) < intervalSeconds, now >= last { continue }
            due.append(held)
            suppressed[key] = nil
            lastPublished[key] = now
        }
        return due.sorted { ($0.error.code.rawValue, $0.topic ?? "") < ($1.error.code.rawValue, $1.topic ?? "") }
    }
}
