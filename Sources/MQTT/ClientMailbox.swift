import Foundation
import Synchronization

/// Work handed from any thread to the network thread.
enum ClientCommand: Sendable {
    case subscribe(filter: String, qos: MQTTQoS)
    case flush(deadline: ContinuousClock.Instant, CheckedContinuation<Bool, Never>)
    case stop(finalMessage: MQTTStatusMessage?, timeoutSeconds: Double, CheckedContinuation<Bool, Never>?)
}

/// A self-pipe that wakes the network thread's `poll` when a command or a publish arrives.
/// Sendable without a lock: it holds only immutable descriptors, and `write`/`read` on them are thread-safe.
final class WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

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
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)  // EAGAIN means a wake-up is already pending: fine.
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
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
