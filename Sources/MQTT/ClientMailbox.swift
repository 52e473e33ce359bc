import Foundation
import Synchronization

/// Work handed from any thread to the network thread.
enum ClientCommand: Sendable {
    case subscribe(filter: String, qos: MQTTQoS)
    case flush(deadline: ContinuousClock.Instant, ResultWaiter)
    case stop(finalMessage: MQTTStatusMessage?, timeoutSeconds: Double, ResultWaiter?)
}

/// A continuation that may be resumed from two places — the network thread, and a backstop timer in
/// case that thread is stuck in a blocking connect — of which only the first counts.
final class ResultWaiter: Sendable {
    private let continuation: Mutex<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = Mutex(continuation) }

    func resume(_ value: Bool) {
        let pending = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        pending?.resume(returning: value)
    }
}

/// A self-pipe that wakes the network thread's `poll` when a command or a publish arrives.
/// Sendable without a lock: the descriptors are immutable, `write`/`read` on them are thread-safe, and the
/// pending flag is atomic. The flag skips the `write` when a wake-up is already on its way (a burst of
/// publishes costs one syscall, not one each). `drain` empties the pipe *then* clears the flag: a wake
/// that slips in between skips its write, but its work was queued before it and the network thread looks
/// at the queues right after draining; any later wake sees the flag clear and writes again. (Clearing
/// first would let a racing wake's byte be swallowed while the flag stays set: every later wake lost.)
final class WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32
    private let pending = Atomic<Bool>(false)

    init() throws(MQTTError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw MQTTError(
                code: .system, message: String(cString: strerror(errno)), operation: "pipe", rawCode: errno)
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func wake() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)  // EAGAIN means the pipe already holds wake-ups: fine.
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
        pending.store(false, ordering: .sequentiallyConsistent)
    }
}

/// The only state shared between API callers and the network thread: a locked command queue, the
/// subscription list, and the wake pipe.
final class ClientMailbox: Sendable {
    let wakePipe: WakePipe
    private let commands = Mutex<[ClientCommand]>([])
    /// Every filter ever subscribed, in order; replayed after each connect.
    private let subscriptionList = Mutex<[(filter: String, qos: MQTTQoS)]>([])

    init() throws(MQTTError) { wakePipe = try WakePipe() }

    func send(_ command: ClientCommand) {
        commands.withLock { $0.append(command) }
        wakePipe.wake()
    }

    func takeCommands() -> [ClientCommand] {
        commands.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }

    func addSubscription(_ filter: String, qos: MQTTQoS) {
        subscriptionList.withLock { list in
            if let index = list.firstIndex(where: { $0.filter == filter }) {
                list[index].qos = qos
            } else {
                list.append((filter, qos))
            }
        }
    }

    var subscriptions: [(filter: String, qos: MQTTQoS)] { subscriptionList.withLock { $0 } }
}
