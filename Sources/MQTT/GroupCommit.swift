import Foundation
import Synchronization

/// The outbox's once-a-second group commit, run on a thread of its own: the network thread asks for it and goes on
/// reading, sending and handling fixes instead of waiting for the disk (an fsync took 0.8 ms at the median and up to
/// 10 ms on this project's loaded test machine — a latency spike for every fix that arrived meanwhile).
/// At most one sync runs at a time; a request while one runs is dropped (the next second's request covers it).
final class GroupCommit: Sendable {
    private let outbox: Outbox
    private let queue = DispatchQueue(label: "edgenav.outbox.sync", qos: .utility)
    private let running = Atomic<Bool>(false)

    init(outbox: Outbox) {
        self.outbox = outbox
    }

    /// Starts a sync of what was appended so far unless one is still running; returns at once. True when started.
    @discardableResult
    func request() -> Bool {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        queue.async { [self] in
            // An error leaves the appends unsynced; the next request retries (as the synchronous group commit did).
            try? outbox.syncConcurrently()
            running.store(false, ordering: .releasing)
        }
        return true
    }

    /// Waits until the sync under way, if any, has finished (for shutdown and tests).
    func waitUntilIdle() {
        queue.sync {}
    }
}
