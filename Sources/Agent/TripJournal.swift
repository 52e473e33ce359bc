import Foundation

/// A vehicle's `TripState` in the state directory, `trips/<vehicleId>.json`, replaced atomically (write a temporary
/// file, fsync, rename) so a `kill -9` leaves either the old or the new state, never half of one.
public final class TripJournal: TripStateStore {
    public let path: String
    private let encoder: JSONEncoder
    /// fsync before the rename: the state survives a power loss, not only a crash. Fleet mode turns it off
    /// (thousands of vehicles); the rename alone keeps a `kill -9` from ever leaving half a file.
    public let durable: Bool

    public init(directory: String, vehicleID: String, durable: Bool = true) throws {
        self.durable = durable
        let trips = URL(fileURLWithPath: directory).appendingPathComponent("trips")
        try FileManager.default.createDirectory(at: trips, withIntermediateDirectories: true)
        path = trips.appendingPathComponent("\(vehicleID).json").path
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
    }

    /// What a load found.
    public enum LoadResult {
        case empty
        case restored(TripState)
        /// The file was unreadable; it was moved to `movedTo` and the vehicle starts afresh.
        case corrupt(AgentInputError, movedTo: String?)
    }

    public func load() -> LoadResult {
        guard FileManager.default.fileExists(atPath: path) else { return .empty }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return .restored(try JSONDecoder().decode(TripState.self, from: data))
        } catch {
            let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
            let moved = (try? FileManager.default.moveItem(atPath: path, toPath: aside)) != nil
            return .corrupt(
                AgentInputError(.corruptState, "trip journal \(path) unreadable (\(error)); "
                    + (moved ? "moved to \(aside)" : "could not move it aside") + "; starting without a trip"),
                movedTo: moved ? aside : nil)
        }
    }

    public func save(_ state: TripState) throws {
        let data = try encoder.encode(state)
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw AgentInputError(.internalError, "cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let writeErrno = errno
        if durable { fsync(fd) }
        close(fd)
        guard written == data.count else {
            // A partial write sets no errno; on a regular file it means the file system is full.
            let reason = written < 0 ? String(cString: strerror(writeErrno))
                : "only \(written) of \(data.count) bytes written (file system full)"
            unlink(temporary)   // the journal itself is unchanged; don't leave a partial copy taking space
            throw AgentInputError(.internalError, "cannot write \(temporary): \(reason)")
        }
        guard rename(temporary, path) == 0 else { throw AgentInputError(.internalError, "cannot rename \(temporary): errno \(errno)") }
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
