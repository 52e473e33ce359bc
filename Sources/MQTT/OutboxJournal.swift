import Foundation

/// The outbox's on-disk format: an append-only journal of checksummed records.
///
/// ```
/// file    := magic record*
/// magic   := "EDGEOBX1"                                  (8 bytes)
/// record  := bodyLength:u32le crc32(body):u32le body
/// body    := 0x01 sequence:u64le kind:u8 retain:u8 topicLength:u32le topic payloadLength:u32le payload   (put)
///          | 0x02 sequence:u64le                                                                    (remove)
/// ```
/// Replay applies puts and removes in file order. The first record that is incomplete, implausibly long
/// or fails its checksum ends the replay: it and everything after it are a torn tail (kill -9 or power
/// loss mid-write) and are cut off, never trusted, never a crash.
enum OutboxJournal {
    static let magic: [UInt8] = Array("EDGEOBX1".utf8)
    static let headerLength = 8
    static let recordHeaderLength = 8
    /// Sanity bound on one record body (64 MiB); a longer length field means garbage.
    static let maxBodyLength = 64 << 20
    /// Largest sequence number a record may carry (2^63 - 1): far beyond any real outbox, and low enough
    /// that `maxSequence + 1` and later appends never overflow. A larger one is damage, like a bad checksum.
    static let maxSequence = UInt64(Int64.max)

    enum Record: Equatable {
        case put(OutboxMessage)
        case remove(sequence: UInt64)
    }

    static func encode(_ record: Record, into buffer: inout [UInt8]) {
        // Written in place: the header's two fields are filled in once the body behind them is complete.
        let start = buffer.count
        appendLE(UInt64(0), to: &buffer)
        switch record {
        case .put(let message):
            let topicLength = message.topic.utf8.count
            buffer.reserveCapacity(buffer.count + 19 + topicLength + message.payload.count)
            buffer.append(1)
            appendLE(message.sequence, to: &buffer)
            buffer.append(message.kind == .state ? 1 : 2)
            buffer.append(message.retain ? 1 : 0)
            appendLE(UInt32(topicLength), to: &buffer)
            buffer.append(contentsOf: message.topic.utf8)
            appendLE(UInt32(message.payload.count), to: &buffer)
            buffer.append(contentsOf: message.payload)
        case .remove(let sequence):
            buffer.append(2)
            appendLE(sequence, to: &buffer)
        }
        let bodyStart = start + recordHeaderLength
        buffer.withUnsafeMutableBytes { bytes in
            let checksum = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[bodyStart...]))
            bytes.storeBytes(of: UInt32(bytes.count - bodyStart).littleEndian, toByteOffset: start, as: UInt32.self)
            bytes.storeBytes(of: checksum.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
    }

    struct Replay {
        var records: [Record] = []
        /// Length of the valid prefix (header included); the file should be truncated to this.
        var validLength: Int
        var droppedBytes: Int
    }

    /// Decodes as many whole, checksum-valid records as the bytes hold. Never throws on damage.
    /// Returns nil if the bytes do not start with our magic (a foreign file); a torn magic counts as empty.
    static func replay(_ bytes: [UInt8]) -> Replay? {
        if bytes.count < headerLength {
            // A header torn by a crash during creation: start over.
            return bytes.elementsEqual(magic.prefix(bytes.count))
                ? Replay(validLength: 0, droppedBytes: bytes.count) : nil
        }
        guard bytes[0..<headerLength].elementsEqual(magic) else { return nil }
        var replay = Replay(validLength: headerLength, droppedBytes: 0)
        var offset = headerLength
        while offset + recordHeaderLength <= bytes.count {
            let length = Int(readLE(UInt32.self, bytes, at: offset))
            let checksum = readLE(UInt32.self, bytes, at: offset + 4)
            let bodyStart = offset + recordHeaderLength
            guard length >= 9, length <= maxBodyLength, bodyStart + length <= bytes.count else { break }
            let body = bytes[bodyStart..<(bodyStart + length)]
            guard CRC32.checksum(body) == checksum, let record = decodeBody(body) else { break }
            replay.records.append(record)
            offset = bodyStart + length
            replay.validLength = offset
        }
        replay.droppedBytes = bytes.count - replay.validLength
        return replay
    }

    private static func decodeBody(_ body: ArraySlice<UInt8>) -> Record? {
        var cursor = body.startIndex
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard body.endIndex - cursor >= count else { return nil }
            defer { cursor += count }
            return body[cursor..<(cursor + count)]
        }
        guard let type = take(1)?.first, let sequenceBytes = take(8) else { return nil }
        let sequence = readLE(UInt64.self, Array(sequenceBytes), at: 0)
        guard sequence <= maxSequence else { return nil }
        switch type {
        case 1:
            guard let header = take(2), let kind = MessageKind(journalByte: header.first!),
                let topicLengthBytes = take(4)
            else { return nil }
            let retain = header.last! != 0
            let topicLength = Int(readLE(UInt32.self, Array(topicLengthBytes), at: 0))
            guard let topicBytes = take(topicLength), let payloadLengthBytes = take(4) else { return nil }
            let payloadLength = Int(readLE(UInt32.self, Array(payloadLengthBytes), at: 0))
            guard let payload = take(payloadLength), cursor == body.endIndex,
                let topic = String(validating: topicBytes, as: UTF8.self)
            else { return nil }
            return .put(
                OutboxMessage(
                    sequence: sequence, topic: topic, payload: Array(payload), retain: retain, kind: kind))
        case 2:
            return cursor == body.endIndex ? .remove(sequence: sequence) : nil
        default:
            return nil
        }
    }

    private static func appendLE<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    private static func readLE<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
        return value
    }
}

extension MessageKind {
    fileprivate init?(journalByte: UInt8) {
        switch journalByte {
        case 1: self = .state
        case 2: self = .event
        default: return nil
        }
    }
}
