import Foundation
import Synchronization

/// A child process started with `posix_spawn`, with an EMPTY signal mask and default signal handlers.
///
/// Why not Foundation's `Process`: the test runner's threads block SIGTERM/SIGINT/SIGHUP, `posix_spawn`
/// passes the caller's mask on, and a mosquitto started that way ignores `terminate()` forever (we saw
/// `SigBlk: …4a03` in /proc). Resetting the mask here makes SIGTERM mean "stop" again.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    public let executable: String
    /// Read end of the child's stdout, if it was captured (owned by this object; closed in deinit).
    public let outputFD: Int32?
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `executable` (an absolute path) with `arguments`. stdout is captured into a pipe if
    /// `captureOutput`, else discarded; stderr goes to `stderrPath` (appended) or /dev/null.
    public init(
        executable: String, arguments: [String], captureOutput: Bool = false, stderrPath: String? = nil,
        environment: [String: String]? = nil
    ) throws {
        self.executable = executable
        var pipeFDs: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeFDs) == 0 else { throw TestBrokerError("pipe: \(String(cString: strerror(errno)))") }
            _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(
            &actions, 2, stderrPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environmentStrings: [UnsafeMutablePointer<CChar>?]? = environment.map { values in
            values.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { environmentStrings?.forEach { free($0) } }

        var childPID: pid_t = 0
        let rc: Int32
        if let environmentStrings {
            rc = posix_spawn(&childPID, executable, &actions, &attributes, argv, environmentStrings)
        } else {
            rc = posix_spawn(&childPID, executable, &actions, &attributes, argv, environ)
        }
        if captureOutput { close(pipeFDs[1]) }
        guard rc == 0 else {
            if captureOutput { close(pipeFDs[0]) }
            throw TestBrokerError("posix_spawn \(executable): \(String(cString: strerror(rc)))")
        }
        pid = childPID
        outputFD = captureOutput ? pipeFDs[0] : nil
    }

    deinit {
        if isRunning { kill(SIGKILL) }
        _ = waitForExit(timeoutSeconds: 5)
        if let outputFD { close(outputFD) }
    }

    public func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }

    /// Reaps the child if it has exited. Never blocks.
    public var isRunning: Bool {
        exitStatus.withLock { status in
            if status != nil { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status == nil
        }
    }

    /// Waits for the child to exit; returns its raw wait status, or nil on timeout.
    @discardableResult
    public func waitForExit(timeoutSeconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while isRunning {
            if Date() >= deadline { return nil }
            usleep(5_000)
        }
        return exitStatus.withLock { $0 }
    }

    /// SIGTERM, then SIGKILL if it has not exited within `graceSeconds`.
    public func terminate(graceSeconds: Double = 5) {
        guard isRunning else { return }
        kill(SIGTERM)
        if waitForExit(timeoutSeconds: graceSeconds) == nil {
            kill(SIGKILL)
            waitForExit(timeoutSeconds: 5)
        }
    }

    /// Reads stdout line by line on a new thread until EOF, calling `onLine` for each line.
    public func readLines(_ onLine: @escaping @Sendable (String) -> Void) {
        guard let fd = outputFD else { return }
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending.append(contentsOf: buffer[0..<count])
                var start = 0
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    onLine(String(decoding: pending[start..<newline], as: UTF8.self))
                    start = newline + 1
                }
                pending.removeFirst(start)
            }
        }
        thread.start()
    }
}
