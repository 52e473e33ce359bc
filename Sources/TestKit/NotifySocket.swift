import Foundation

/// A datagram socket standing in for systemd's notify socket (`NOTIFY_SOCKET`): binds `path` (a leading `@`
/// names the abstract namespace) and receives what a service sends with sd_notify.
public final class NotifySocket: @unchecked Sendable {
    // Unchecked: the descriptor is only read after init, and recv on it is thread-safe.
    private let fd: Int32
    public let path: String

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard fd >= 0, rc == 0 else { throw TestBrokerError("cannot bind the notify socket \(path)") }
    }

    deinit {
        close(fd)
        if !path.hasPrefix("@") { unlink(path) }
    }

    /// The next datagram, or nil after `timeoutSeconds` without one.
    public func receive(timeoutSeconds: Double = 2) -> String? {
        var timeout = timeval(tv_sec: Int(timeoutSeconds), tv_usec: Int((timeoutSeconds - timeoutSeconds.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : nil
    }

    /// Datagrams until one contains `needle` (returned), or nil after `timeoutSeconds`.
    public func receive(containing needle: String, timeoutSeconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let message = receive(timeoutSeconds: max(0.05, deadline.timeIntervalSinceNow)), message.contains(needle) {
                return message
            }
        }
        return nil
    }
}
