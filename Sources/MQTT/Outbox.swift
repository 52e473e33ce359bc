import Foundation
import Synchronization

/// What a published message is, which decides what the outbox may do with it under pressure.
public enum MessageKind: String, Sendable, Codable {
    /// A retained state topic (position, route progress…): only the latest value per topic matters, so a
    /// newer `.state` on the same topic replaces an unacknowledged older one, and `.state` messages are
    /// shed first when the outbox is full.
    case state
    /// A discrete event (arrival, route change…): never coalesced, never shed.
    case event
}

/// A message waiting in the outbox for its PUBACK. `sequence` is the outbox's global send order.
public struct OutboxMessage: Sendable, Equatable {
    public let sequence: UInt64
    public let topic: String
    public let payload: [UInt8]
    public let retain: Bool
    public let kind: MessageKind
    /// Topic plus payload bytes, the unit of `OutboxConfiguration.maxBytes`.
    public var size: Int { topic.utf8.count + payload.count }
}

/// A message to store, for `Outbox.append(_:)` and `MQTTClient.publish(_:)` (several with one journal write).
public struct OutboxEntry: Sendable, Equatable {
    public let topic: String
    public let payload: [UInt8]
    public let retain: Bool
    public let kind: MessageKind

    public init(topic: String, payload: [UInt8], retain: Bool, kind: MessageKind) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.kind = kind
    }
}

/// What `Outbox.append(_:)` stored: a prefix of the entries, and why it stopped when it stopped early.
public struct OutboxBatchResult: Sendable {
    /// How many entries, from the first, were stored (with their sequence numbers, in order).
    public var stored: Int
    /// Why entry `stored` was not (the error `append(topic:…)` would have thrown for it); nil when all were.
    public var error: MQTTError?
}

/// Reported through the outbox's `onShed` callback for every message dropped to make room.
public struct OutboxShedNotice: Sendable, Equatable {
    public let topic: String
    public let sequence: UInt64
    public let kind: MessageKind
    public let payloadBytes: Int
    /// Why it was dropped, for the agent's error topic.
    public let reason: String
}

/// Bounds and durability of the outbox. Defaults suit a vehicle that may be offline for hours.
public struct OutboxConfiguration: Sendable, Equatable {
    /// Most messages kept (acknowledged ones do not count). Default 10 000.
    public var maxMessages: Int = 10_000
    /// Most topic + payload bytes kept. Default 16 MiB.
    public var maxBytes: Int = 16 << 20
    /// The journal is rewritten with only live records once it is larger than both this (bytes, default
    /// 1 MiB) and twice the live records' size.
    public var compactionThresholdBytes: Int = 1 << 20
    /// fsync the journal inside every `append` (slow on flash, survives power loss at once). Default false:
    /// appends are written (so they survive a process crash or kill -9 at once) and fsync'd in a group
    /// commit by the client's network thread before the messages are sent to the broker.
    public var syncEveryAppend: Bool = false

    public init(
        maxMessages: Int = 10_000, maxBytes: Int = 16 << 20, compactionThresholdBytes: Int = 1 << 20,
        syncEveryAppend: Bool = false
    ) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
        self.compactionThresholdBytes = compactionThresholdBytes
        self.syncEveryAppend = syncEveryAppend
    }
}

/// A durable, bounded FIFO of QoS 1 messages awaiting PUBACK, journaled in a state directory so that a
/// fresh process with the same directory re-sends whatever was not acknowledged.
///
/// Ordering guarantee: messages are handed to the broker in `sequence` order (the order of `append`),
/// on one connection at a time, so every subscriber sees each topic's messages in publish order. Two
/// exceptions, both by design: a coalesced `.state` message takes the place of its latest value (it is not
/// sent at its older position), and after a reconnect the unacknowledged tail is re-sent, so a subscriber
/// may see a message again (at-least-once) — the first occurrences are still in order.
///
/// When full: the oldest `.state` messages are shed (each reported through `onShed`) until the new message
/// fits. If shedding every older `.state` message would still not make room (only events remain), `append`
/// throws `mqtt.outboxFull` and stores nothing: events are never dropped silently, the caller decides.
///
/// Thread safety: all state is behind one `Mutex`; the shed callback runs after the lock is released.
public final class Outbox: Sendable {
    public let directory: String
    public let configuration: OutboxConfiguration
    private let onShed: @Sendable (OutboxShedNotice) -> Void
    private let storage: Mutex<Storage>

    /// Bytes cut from the journal's tail at open because they were torn or corrupt (0 for a clean file).
    public let recoveredTornBytes: Int

    /// Opens (creating if needed) the outbox in `directory`. Only one `Outbox` may hold a directory at a time
    /// (an advisory lock on `outbox.lock`, released on close or process exit, kill -9 included).
    public init(
        directory: String, configuration: OutboxConfiguration = OutboxConfiguration(),
        onShed: @escaping @Sendable (OutboxShedNotice) -> Void = { _ in }
    ) throws(MQTTError) {
        self.directory = directory
        self.configuration = configuration
        self.onShed = onShed
        var storage = try Storage.open(directory: directory, configuration: configuration)
        recoveredTornBytes = storage.recoveredTornBytes
        try storage.compactIfWorthwhile()
        self.storage = Mutex(storage)
    }

    deinit {
        storage.withLock { $0.close() }
    }

    /// Stores a message for QoS 1 delivery and returns its sequence number.
    /// Throws `mqtt.outboxFull` (nothing stored) or `mqtt.payloadTooLarge` or `mqtt.outboxIO`.
    @discardableResult
    public func append(topic: String, payload: [UInt8], retain: Bool, kind: MessageKind) throws(MQTTError)
        -> UInt64
    {
        let (sequence, shed) = try storage.withLock { storage throws(MQTTError) in
            try storage.append(topic: topic, payload: payload, retain: retain, kind: kind)
        }
        for notice in shed { onShed(notice) }
        return sequence
    }

    /// Stores several messages as one journal write (one system call instead of one per message; the outputs of
    /// one fix go together). The same guarantees as `append(topic:…)` for each: every stored message is written
    /// to the journal before this returns, and a torn write leaves a prefix of them (each record is checksummed).
    /// Near the bounds, where older states may have to be shed, the messages are appended one by one instead.
    /// Stops at the first message `append(topic:…)` would refuse, storing none from there on.
    @discardableResult
    public func append(_ entries: [OutboxEntry]) -> OutboxBatchResult {
        var shed: [OutboxShedNotice] = []
        let result = storage.withLock { storage in storage.append(entries, shed: &shed) }
        for notice in shed { onShed(notice) }
        return result
    }

    /// Marks a message acknowledged (PUBACK received): it will never be sent again. Unknown numbers are ignored.
    public func acknowledge(_ sequence: UInt64) {
        storage.withLock { $0.remove([sequence]) }
    }

    /// Marks several messages acknowledged with one journal write (the network thread collects a poll's PUBACKs).
    public func acknowledge(_ sequences: [UInt64]) {
        guard !sequences.isEmpty else { return }
        storage.withLock { $0.remove(sequences) }
    }

    /// Up to `limit` messages with a sequence number greater than `sequence`, in order.
    public func pending(after sequence: UInt64, limit: Int) -> [OutboxMessage] {
        storage.withLock { $0.pending(after: sequence, limit: limit) }
    }

    /// All messages awaiting PUBACK, in order.
    public func snapshot() -> [OutboxMessage] { pending(after: 0, limit: .max) }

    public var count: Int { storage.withLock { $0.messages.count } }
    /// Topic + payload bytes held.
    public var byteCount: Int { storage.withLock { $0.liveBytes } }
    public var isEmpty: Bool { count == 0 }
    /// Current journal file size in bytes (for tests and diagnostics).
    public var journalBytes: Int { storage.withLock { $0.journalLength } }

    /// fsyncs appends written since the last sync (the group commit). Cheap when nothing is pending.
    public func sync() throws(MQTTError) {
        try storage.withLock { storage throws(MQTTError) in try storage.syncIfNeeded() }
    }

    /// Like `sync()`, but the fsync runs without the outbox's lock: appends and acknowledgements from other threads
    /// go on meanwhile (on a busy disk an fsync takes milliseconds, and the lock's other users are the agent and the
    /// network thread). It syncs a duplicate of the journal's descriptor, so a compaction replacing the journal
    /// meanwhile is harmless (the compaction syncs the new journal itself). On failure the appends count as unsynced
    /// again, so the next call retries.
    public func syncConcurrently() throws(MQTTError) {
        let descriptor = storage.withLock { $0.takeSyncDescriptor() }
        guard descriptor >= 0 else { return }
        defer { Glibc.close(descriptor) }
        guard fdatasync(descriptor) == 0 else {
            let error = Storage.ioError("fsync outbox journal")
            storage.withLock { $0.needsSync = true }
            throw error
        }
    }

    /// Rewrites the journal with only the live records.
    public func compact() throws(MQTTError) {
        try storage.withLock { storage throws(MQTTError) in try storage.compact() }
    }

    /// Syncs and releases the directory. Further use throws `mqtt.outboxIO`.
    public func close() {
        storage.withLock { $0.close() }
    }
}

// MARK: - Storage (always used under the Outbox's lock)

private struct Storage: ~Copyable {
    let directory: String
    let configuration: OutboxConfiguration
    var journalFD: Int32
    var lockFD: Int32
    var messages: [UInt64: OutboxMessage] = [:]
    /// Sequence numbers in order; entries no longer in `messages` are skipped and swept out lazily.
    var order: [UInt64] = []
    var orderHead = 0
    var latestStateByTopic: [String: UInt64] = [:]
    /// No live state message has a smaller sequence: where the search for the oldest states to shed starts.
    var stateShedFloor: UInt64 = 1  // sequence numbers start at 1
    var nextSequence: UInt64 = 1
    var liveBytes = 0
    var journalLength = 0
    var liveRecordBytes = 0
    var needsSync = false
    var recoveredTornBytes = 0
    /// The bytes of the journal write under way, kept between writes (emptied, capacity kept up to
    /// `retainedBufferCapacity`): the batch appends and the acknowledgements, several a millisecond in a fleet, do not
    /// allocate a buffer each.
    var journalBuffer: [UInt8] = []
    /// The largest journal buffer kept between writes, bytes (a larger one, after a big batch, is released).
    static let retainedBufferCapacity = 1 << 16

    var journalPath: String { directory + "/outbox.journal" }

    static func open(directory: String, configuration: OutboxConfiguration) throws(MQTTError) -> Storage {
        try ensureDirectory(directory)
        let lockFD = Glibc.open(directory + "/outbox.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockFD >= 0 else { throw ioError("open outbox.lock") }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            let error = ioError("lock outbox.lock (is another process using \(directory)?)")
            Glibc.close(lockFD)
            throw error
        }
        let path = directory + "/outbox.journal"
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let error = ioError("open \(path)")
            Glibc.close(lockFD)
            throw error
        }
        var storage = Storage(directory: directory, configuration: configuration, journalFD: fd, lockFD: lockFD)
        try storage.load()
        return storage
    }

    private init(directory: String, configuration: OutboxConfiguration, journalFD: Int32, lockFD: Int32) {
        self.directory = directory
        self.configuration = configuration
        self.journalFD = journalFD
        self.lockFD = lockFD
    }

    private mutating func load() throws(MQTTError) {
        let bytes = try readAll(journalFD)
        guard let replay = OutboxJournal.replay(bytes) else {
            throw Storage.ioError("\(journalPath) is not an EdgeNav outbox journal", errnoValue: 0)
        }
        var maxSequence: UInt64 = 0
        for record in replay.records {
            switch record {
            case .put(let message):
                maxSequence = max(maxSequence, message.sequence)
                insert(message)
            case .remove(let sequence):
                maxSequence = max(maxSequence, sequence)
                forget(sequence)
            }
        }
        nextSequence = maxSequence + 1
        recoveredTornBytes = replay.droppedBytes
        if replay.validLength < OutboxJournal.headerLength {
            // New file, or a header torn during creation.
            try truncate(to: 0)
            try write(OutboxJournal.magic)
            try fsyncJournal()
        } else if replay.droppedBytes > 0 {
            try truncate(to: replay.validLength)
            try fsyncJournal()
        }
        journalLength = max(replay.validLength, OutboxJournal.headerLength)
        guard lseek(journalFD, off_t(journalLength), SEEK_SET) >= 0 else { throw Storage.ioError("seek journal") }
    }

    mutating func append(topic: String, payload: [UInt8], retain: Bool, kind: MessageKind) throws(MQTTError)
        -> (UInt64, [OutboxShedNotice])
    {
        guard journalFD >= 0 else { throw Storage.ioError("outbox is closed", errnoValue: 0) }
        let size = topic.utf8.count + payload.count
        guard size <= configuration.maxBytes, size <= OutboxJournal.maxBodyLength - 32 else {
            throw MQTTError(
                code: .payloadTooLarge,
                message: "message of \(size) bytes exceeds the outbox limit of \(configuration.maxBytes) bytes",
                operation: "Outbox.append")
        }
        // A newer state value supersedes an older one on the same topic: not a loss, so not reported.
        let superseded = kind == .state ? latestStateByTopic[topic] : nil
        var countAfter = messages.count + 1 - (superseded == nil ? 0 : 1)
        var bytesAfter = liveBytes + size - (superseded.flatMap { messages[$0]?.size } ?? 0)

        // Decide before touching anything whether shedding older states can make room.
        var victims: [OutboxMessage] = []
        if countAfter > configuration.maxMessages || bytesAfter > configuration.maxBytes {
            // The oldest states first: walk `order` from the floor below which no state is live (each message
            // is passed once over the outbox's life, not sorted again per append while the outbox stays full).
            var index = firstOrderIndex(after: stateShedFloor - 1)
            while index < order.count, countAfter > configuration.maxMessages || bytesAfter > configuration.maxBytes {
                let sequence = order[index]
                index += 1
                guard sequence != superseded, let victim = messages[sequence], victim.kind == .state else { continue }
                victims.append(victim)
                countAfter -= 1
                bytesAfter -= victim.size
            }
            if countAfter > configuration.maxMessages || bytesAfter > configuration.maxBytes {
                throw MQTTError(
                    code: .outboxFull,
                    message:
                        "outbox full (\(messages.count) messages, \(liveBytes) bytes; limits "
                        + "\(configuration.maxMessages) / \(configuration.maxBytes)) and only events remain; "
                        + "\(kind.rawValue) on \(topic) refused",
                    operation: "Outbox.append")
            }
        }

        let message = OutboxMessage(
            sequence: nextSequence, topic: topic, payload: payload, retain: retain, kind: kind)
        var buffer: [UInt8] = []
        OutboxJournal.encode(.put(message), into: &buffer)
        if let superseded { OutboxJournal.encode(.remove(sequence: superseded), into: &buffer) }
        for victim in victims { OutboxJournal.encode(.remove(sequence: victim.sequence), into: &buffer) }
        try write(buffer)  // one write: the put and its removals land together or are torn together
        nextSequence += 1
        if let superseded { forget(superseded) }
        for victim in victims { forget(victim.sequence) }
        // Every live state up to the last victim is gone now (shed, or the superseded one).
        if let last = victims.last { stateShedFloor = last.sequence + 1 }
        insert(message)
        needsSync = true
        if configuration.syncEveryAppend { try syncIfNeeded() }
        let notices = victims.map {
            OutboxShedNotice(
                topic: $0.topic, sequence: $0.sequence, kind: $0.kind, payloadBytes: $0.payload.count,
                reason: "outbox full: oldest state message shed to make room for a \(kind.rawValue) on \(topic)")
        }
        return (message.sequence, notices)
    }

    mutating func append(_ entries: [OutboxEntry], shed: inout [OutboxShedNotice]) -> OutboxBatchResult {
        var totalSize = 0
        var allFit = journalFD >= 0
        for entry in entries {
            let size = entry.topic.utf8.count + entry.payload.count
            totalSize += size
            if size > configuration.maxBytes || size > OutboxJournal.maxBodyLength - 32 { allFit = false }
        }
        guard allFit, messages.count + entries.count <= configuration.maxMessages,
              liveBytes + totalSize <= configuration.maxBytes
        else {
            // Near a bound (shedding may be needed) or refusing: one by one, with the single append's rules.
            for (index, entry) in entries.enumerated() {
                do {
                    let (_, notices) = try append(topic: entry.topic, payload: entry.payload, retain: entry.retain,
                                                  kind: entry.kind)
                    shed += notices
                } catch {
                    return OutboxBatchResult(stored: index, error: error)
                }
            }
            return OutboxBatchResult(stored: entries.count, error: nil)
        }
        // Room for all without shedding: a newer state only supersedes the older one on its topic (an earlier
        // entry of this batch included).
        var planned: [(message: OutboxMessage, superseded: UInt64?)] = []
        planned.reserveCapacity(entries.count)
        var buffer = takeJournalBuffer()
        defer { returnJournalBuffer(&buffer) }
        buffer.reserveCapacity(totalSize + entries.count * 64)
        var sequence = nextSequence
        for entry in entries {
            let message = OutboxMessage(sequence: sequence, topic: entry.topic, payload: entry.payload,
                                        retain: entry.retain, kind: entry.kind)
            var superseded: UInt64?
            if entry.kind == .state {
                superseded = planned.last(where: { $0.message.kind == .state && $0.message.topic == entry.topic })?
                    .message.sequence ?? latestStateByTopic[entry.topic]
            }
            OutboxJournal.encode(.put(message), into: &buffer)
            if let superseded { OutboxJournal.encode(.remove(sequence: superseded), into: &buffer) }
            planned.append((message, superseded))
            sequence += 1
        }
        do {
            try write(buffer)  // one write: a crash leaves a prefix of the records, each whole or cut off
        } catch {
            return OutboxBatchResult(stored: 0, error: error)
        }
        nextSequence = sequence
        for (message, superseded) in planned {
            if let superseded { forget(superseded) }
            insert(message)
        }
        needsSync = true
        if configuration.syncEveryAppend {
            do {
                try syncIfNeeded()
            } catch {
                // Written but not synced: stored (a process crash keeps them), as a single append that throws
                // from its sync would leave it.
                return OutboxBatchResult(stored: entries.count, error: error)
            }
        }
        return OutboxBatchResult(stored: entries.count, error: nil)
    }

    private mutating func insert(_ message: OutboxMessage) {
        messages[message.sequence] = message
        order.append(message.sequence)
        liveBytes += message.size
        liveRecordBytes += OutboxJournal.recordHeaderLength + 19 + message.size
        if message.kind == .state {
            if let older = latestStateByTopic[message.topic], older != message.sequence {
                forget(older)
            }
            latestStateByTopic[message.topic] = message.sequence
        }
    }

    /// Removes acknowledged messages and journals their removal in one write.
    mutating func remove(_ sequences: [UInt64]) {
        var buffer = takeJournalBuffer()
        defer { returnJournalBuffer(&buffer) }
        for sequence in sequences where messages[sequence] != nil {
            forget(sequence)
            OutboxJournal.encode(.remove(sequence: sequence), into: &buffer)
        }
        guard !buffer.isEmpty, journalFD >= 0 else { return }
        // A lost removal only means a duplicate delivery later (at-least-once), so no fsync here and a failed
        // write is not fatal; compaction will rewrite the journal from memory anyway.
        try? write(buffer)
        try? compactIfWorthwhile()
    }

    /// `journalBuffer`, empty, moved out (so it is uniquely referenced while filled); give it back with
    /// `returnJournalBuffer`.
    private mutating func takeJournalBuffer() -> [UInt8] {
        var buffer: [UInt8] = []
        swap(&buffer, &journalBuffer)
        return buffer
    }

    private mutating func returnJournalBuffer(_ buffer: inout [UInt8]) {
        guard buffer.capacity <= Self.retainedBufferCapacity else { return }
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &journalBuffer)
    }

    /// Forgets a message in memory; the caller journals the removal (or the record that caused it implies it).
    private mutating func forget(_ sequence: UInt64) {
        guard let message = messages.removeValue(forKey: sequence) else { return }
        liveBytes -= message.size
        liveRecordBytes -= OutboxJournal.recordHeaderLength + 19 + message.size
        if message.kind == .state, latestStateByTopic[message.topic] == sequence {
            latestStateByTopic[message.topic] = nil
        }
        if messages.isEmpty {
            order.removeAll(keepingCapacity: true)
            orderHead = 0
        } else {
            while orderHead < order.count, messages[order[orderHead]] == nil { orderHead += 1 }
            if orderHead > 1024 && orderHead * 2 > order.count {
                order.removeFirst(orderHead)
                orderHead = 0
            }
        }
    }

    func pending(after sequence: UInt64, limit: Int) -> [OutboxMessage] {
        guard limit > 0, orderHead < order.count else { return [] }
        var result: [OutboxMessage] = []
        var index = firstOrderIndex(after: sequence)
        while index < order.count && result.count < limit {
            if let message = messages[order[index]] { result.append(message) }
            index += 1
        }
        return result
    }

    /// The index in `order` (from `orderHead`) of the first sequence number greater than `sequence`:
    /// `order` is sorted, so a binary search.
    private func firstOrderIndex(after sequence: UInt64) -> Int {
        var low = orderHead
        var high = order.count
        while low < high {
            let mid = (low + high) / 2
            if order[mid] <= sequence { low = mid + 1 } else { high = mid }
        }
        return low
    }

    mutating func compactIfWorthwhile() throws(MQTTError) {
        let live = OutboxJournal.headerLength + liveRecordBytes
        if journalLength > configuration.compactionThresholdBytes && journalLength > 2 * live {
            try compact()
        }
    }

    /// Writes live records to a temporary file, fsyncs it, renames it over the journal and fsyncs the
    /// directory, so a crash at any point leaves either the old or the new journal, both complete.
    mutating func compact() throws(MQTTError) {
        guard journalFD >= 0 else { return }
        var buffer = OutboxJournal.magic
        for sequence in order[orderHead...] {
            if let message = messages[sequence] { OutboxJournal.encode(.put(message), into: &buffer) }
        }
        // Keep the high-water mark so sequence numbers never go backwards across a restart. Only when the newest
        // message is gone already: a removal of a live one would drop it at the next replay (its put above already
        // carries the mark).
        if nextSequence > 1, messages[nextSequence - 1] == nil {
            OutboxJournal.encode(.remove(sequence: nextSequence - 1), into: &buffer)
        }
        let temporaryPath = journalPath + ".tmp"
        let fd = Glibc.open(temporaryPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Storage.ioError("open \(temporaryPath)") }
        do throws(MQTTError) {
            try Storage.writeAll(fd, buffer)
            guard fsync(fd) == 0 else { throw Storage.ioError("fsync \(temporaryPath)") }
            guard rename(temporaryPath, journalPath) == 0 else { throw Storage.ioError("rename outbox journal") }
        } catch {
            Glibc.close(fd)
            unlink(temporaryPath)
            throw error
        }
        Storage.fsyncDirectory(directory)
        Glibc.close(journalFD)
        journalFD = fd
        journalLength = buffer.count
        needsSync = false
        order = Array(order[orderHead...].filter { messages[$0] != nil })
        orderHead = 0
    }

    /// A duplicate of the journal's descriptor to fsync outside the lock, marking the appends so far as synced; -1
    /// when nothing needs a sync (or the descriptor cannot be duplicated: then the appends stay unsynced).
    mutating func takeSyncDescriptor() -> Int32 {
        guard needsSync, journalFD >= 0 else { return -1 }
        let descriptor = fcntl(journalFD, F_DUPFD_CLOEXEC, 0)
        if descriptor >= 0 { needsSync = false }
        return descriptor
    }

    mutating func syncIfNeeded() throws(MQTTError) {
        guard needsSync, journalFD >= 0 else { return }
        try fsyncJournal()
        needsSync = false
    }

    mutating func close() {
        guard journalFD >= 0 else { return }
        if needsSync { _ = fdatasync(journalFD) }
        Glibc.close(journalFD)
        journalFD = -1
        flock(lockFD, LOCK_UN)
        Glibc.close(lockFD)
        lockFD = -1
    }

    deinit {
        if journalFD >= 0 { Glibc.close(journalFD) }
        if lockFD >= 0 { Glibc.close(lockFD) }
    }

    // MARK: File helpers

    private mutating func write(_ bytes: [UInt8]) throws(MQTTError) {
        try Storage.writeAll(journalFD, bytes)
        journalLength += bytes.count
    }

    private func fsyncJournal() throws(MQTTError) {
        guard fdatasync(journalFD) == 0 else { throw Storage.ioError("fsync outbox journal") }
    }

    private mutating func truncate(to length: Int) throws(MQTTError) {
        guard ftruncate(journalFD, off_t(length)) == 0, lseek(journalFD, off_t(length), SEEK_SET) >= 0 else {
            throw Storage.ioError("truncate outbox journal")
        }
        journalLength = length
    }

    private func readAll(_ fd: Int32) throws(MQTTError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        guard lseek(fd, 0, SEEK_SET) >= 0 else { throw Storage.ioError("seek journal") }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Storage.ioError("read outbox journal")
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(MQTTError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ioError("write outbox journal")
            }
            offset += written
        }
    }

    private static func fsyncDirectory(_ path: String) {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        Glibc.close(fd)
    }

    private static func ensureDirectory(_ path: String) throws(MQTTError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw MQTTError(
                code: .outboxIO, message: "cannot create \(path): \(error.localizedDescription)",
                operation: "Outbox.open")
        }
    }

    static func ioError(_ what: String, errnoValue: Int32 = errno) -> MQTTError {
        let reason = errnoValue == 0 ? "" : ": " + String(cString: strerror(errnoValue))
        return MQTTError(code: .outboxIO, message: what + reason, operation: "Outbox", rawCode: nil)
    }
}
