import Foundation
import Synchronization

/// Signs of life from the client's network thread, for health checks and service watchdogs: a stuck
/// network loop stops `loopIteratedAt`, while a broker that is merely away does not.
public final class ClientLiveness: Sendable {
    private let loopIteratedNanoseconds = Atomic<Int64>(0)
    private let brokerBytesMilliseconds = Atomic<Int64>(0)

    public init() {}

    /// Monotonic clock [ns] (CLOCK_MONOTONIC): comparable with `Self.monotonicNanoseconds()` only.
    public static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// How long ago the network loop last went round [s]; nil before its first iteration.
    public func secondsSinceLoopIteration() -> Double? {
        let last = loopIteratedNanoseconds.load(ordering: .relaxed)
        guard last > 0 else { return nil }
        return Double(Self.monotonicNanoseconds() - last) / 1e9
    }

    /// When bytes last arrived from the broker (wall clock), nil if never.
    public var brokerBytesReceivedAt: Date? {
        let ms = brokerBytesMilliseconds.load(ordering: .relaxed)
        return ms > 0 ? Date(timeIntervalSince1970: Double(ms) / 1000) : nil
    }

    func loopIterated() { loopIteratedNanoseconds.store(Self.monotonicNanoseconds(), ordering: .relaxed) }

    func brokerBytesReceived() {
        brokerBytesMilliseconds.store(Int64(Date().timeIntervalSince1970 * 1000), ordering: .relaxed)
    }
}
