import Foundation
import Synchronization
import TestKit
import Testing

@testable import MQTT

/// A temporary state directory, removed when the test ends.
final class StateDirectory {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "/edgenav-outbox-test-" + UUID().uuidString
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var journal: String { path + "/outbox.journal" }
}

final class ShedLog: Sendable {
    let notices = Mutex<[OutboxShedNotice]>([])
    var callback: @Sendable (OutboxShedNotice) -> Void { { [self] notice in notices.withLock { $0.append(notice) } } }
    var all: [OutboxShedNotice] { notices.withLock { $0 } }
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
private func payloads(_ messages: [OutboxMessage]) -> [String] {
    messages.map { String(decoding: $0.payload, as: UTF8.self) }
}

@Suite("Outbox")
struct OutboxTests {
    @Test("keeps messages in publish order and forgets acknowledged ones")
    func ordering() throws {
        let directory = StateDirectory()
        let outbox = try Outbox(directory: directory.path)
        for index in 0..<10 {
            try outbox.append(topic: "t/\(index % 3)", payload: bytes("e\(index)"), retain: false, kind: .event)
        }
        #expect(payloads(outbox.snapshot()) == (0..<10).map { "e\($0)" })
        #expect(outbox.snapshot().map(\.sequence) == Array(1...10))
        outbox.acknowledge(1)
        outbox.acknowledge(5)
        outbox.acknowledge(99)  // unknown: ignored
        #expect(payloads(outbox.snapshot()) == ["e1", "e2", "e3", "e5", "e6", "e7", "e8", "e9"])
        #expect(payloads(outbox.pending(after: 3, limit: 3)) == ["e3", "e5", "e6"])
        #expect(payloads(outbox.pending(after: 10, limit: 3)) == [])
        #expect(outbox.count == 8)
    }

    @Test("a newer .state replaces an older one on the same topic; events are never coalesced")
    func coalescing() throws {
        let directory = StateDirectory()
        let shed = ShedLog()
        let outbox = try Outbox(directory: directory.path, onShed: shed.callback)
        try outbox.append(topic: "v/position", payload: bytes("p1"), retain: true, kind: .state)
        try outbox.append(topic: "v/arrival", payload: bytes("a1"), retain: false, kind: .event)
        try outbox.append(topic: "v/position", payload: bytes("p2"), retain: true, kind: .state)
        try outbox.append(topic: "v/arrival", payload: bytes("a2"), retain: false, kind: .event)
        try outbox.append(topic: "v/eta", payload: bytes("eta1"), retain: true, kind: .state)
        try outbox.append(topic: "v/position", payload: bytes("p3"), retain: true, kind: .state)
        #expect(payloads(outbox.snapshot()) == ["a1", "a2", "eta1", "p3"])
        #expect(shed.all.isEmpty)  // superseding is not shedding
        #expect(outbox.byteCount == outbox.snapshot().reduce(0) { $0 + $1.size })
    }

    @Test("when full, the oldest .state is shed and reported; events are kept")
    func shedding() throws {
        let directory = StateDirectory()
        let shed = ShedLog()
        let outbox = try Outbox(
            directory: directory.path, configuration: OutboxConfiguration(maxMessages: 4), onShed: shed.callback)
        try outbox.append(topic: "v/a", payload: bytes("a"), retain: true, kind: .state)
        try outbox.append(topic: "v/e", payload: bytes("e1"), retain: false, kind: .event)
        try outbox.append(topic: "v/b", payload: bytes("b"), retain: true, kind: .state)
        try outbox.append(topic: "v/e", payload: bytes("e2"), retain: false, kind: .event)
        try outbox.append(topic: "v/e", payload: bytes("e3"), retain: false, kind: .event)
        #expect(payloads(outbox.snapshot()) == ["e1", "b", "e2", "e3"])
        #expect(shed.all.map(\.topic) == ["v/a"])
        #expect(shed.all.first?.kind == .state)
        #expect(shed.all.first?.reason.contains("outbox full") == true)
        try outbox.append(topic: "v/c", payload: bytes("c"), retain: true, kind: .state)
        #expect(payloads(outbox.snapshot()) == ["e1", "e2", "e3", "c"])
        #expect(shed.all.map(\.topic) == ["v/a", "v/b"])
    }

    @Test("when only events remain and there is no room, publishing throws mqtt.outboxFull and stores nothing")
    func fullOfEvents() throws {
        let directory = StateDirectory()
        let shed = ShedLog()
        let outbox = try Outbox(
            directory: directory.path, configuration: OutboxConfiguration(maxMessages: 3), onShed: shed.callback)
        for index in 0..<3 {
            try outbox.append(topic: "v/e", payload: bytes("e\(index)"), retain: false, kind: .event)
        }
        for kind in [MessageKind.event, .state] {
            #expect {
                try outbox.append(topic: "v/x", payload: bytes("x"), retain: false, kind: kind)
            } throws: { ($0 as? MQTTError)?.code == .outboxFull }
        }
        #expect(payloads(outbox.snapshot()) == ["e0", "e1", "e2"])
        #expect(shed.all.isEmpty)
        outbox.acknowledge(1)
        try outbox.append(topic: "v/e", payload: bytes("e3"), retain: false, kind: .event)
        #expect(payloads(outbox.snapshot()) == ["e1", "e2", "e3"])
    }

    @Test("the byte bound sheds states too, and a message larger than the bound is refused")
    func byteBound() throws {
        let directory = StateDirectory()
        let shed = ShedLog()
        // Each message below is 3 (topic) + 10 (payload) = 13 bytes; 40 bytes hold three.
        let outbox = try Outbox(
            directory: directory.path, configuration: OutboxConfiguration(maxBytes: 40), onShed: shed.callback)
        try outbox.append(topic: "v/a", payload: Array(repeating: 1, count: 10), retain: true, kind: .state)
        try outbox.append(topic: "v/b", payload: Array(repeating: 2, count: 10), retain: true, kind: .state)
        try outbox.append(topic: "v/e", payload: Array(repeating: 3, count: 10), retain: false, kind: .event)
        try outbox.append(topic: "v/f", payload: Array(repeating: 4, count: 10), retain: false, kind: .event)
        #expect(outbox.snapshot().map(\.topic) == ["v/b", "v/e", "v/f"])
        #expect(shed.all.map(\.topic) == ["v/a"])
        #expect(shed.all.first?.payloadBytes == 10)
        #expect {
            try outbox.append(topic: "v/big", payload: Array(repeating: 0, count: 41), retain: false, kind: .event)
        } throws: { ($0 as? MQTTError)?.code == .payloadTooLarge }
    }

    @Test("survives re-opening: unacknowledged messages come back in order, sequence numbers continue")
    func persistence() throws {
        let directory = StateDirectory()
        do {
            let outbox = try Outbox(directory: directory.path)
            for index in 0..<5 {
                try outbox.append(topic: "v/e", payload: bytes("e\(index)"), retain: index == 2, kind: .event)
            }
            try outbox.append(topic: "v/s", payload: bytes("s1"), retain: true, kind: .state)
            try outbox.append(topic: "v/s", payload: bytes("s2"), retain: true, kind: .state)
            outbox.acknowledge(1)
            outbox.acknowledge(4)
            outbox.close()
        }
        let reopened = try Outbox(directory: directory.path)
        let messages = reopened.snapshot()
        #expect(payloads(messages) == ["e1", "e2", "e4", "s2"])
        #expect(messages.map(\.retain) == [false, true, false, true])
        #expect(messages.map(\.kind) == [.event, .event, .event, .state])
        #expect(reopened.recoveredTornBytes == 0)
        #expect(try reopened.append(topic: "v/e", payload: bytes("next"), retain: false, kind: .event) == 8)
        // Coalescing still knows about the recovered state message.
        try reopened.append(topic: "v/s", payload: bytes("s3"), retain: true, kind: .state)
        #expect(payloads(reopened.snapshot()) == ["e1", "e2", "e4", "next", "s3"])
    }

    @Test("compaction shrinks the journal, keeps the content, and sequence numbers never go backwards")
    func compaction() throws {
        let directory = StateDirectory()
        do {
            let outbox = try Outbox(
                directory: directory.path, configuration: OutboxConfiguration(compactionThresholdBytes: 4096))
            for round in 0..<200 {
                let sequence = try outbox.append(
                    topic: "v/e", payload: Array(repeating: UInt8(round % 256), count: 100), retain: false,
                    kind: .event)
                if round != 150 { outbox.acknowledge(sequence) }
            }
            #expect(outbox.count == 1)
            #expect(outbox.journalBytes < 4096 + 200)  // compacted automatically along the way
            outbox.acknowledge(151)
            try outbox.compact()
            outbox.close()
        }
        let reopened = try Outbox(directory: directory.path)
        #expect(reopened.isEmpty)
        #expect(try reopened.append(topic: "v/e", payload: bytes("x"), retain: false, kind: .event) == 201)
    }

    @Test("a compaction while the newest message awaits its PUBACK keeps it across a restart")
    func compactionKeepsTheNewest() throws {
        let directory = StateDirectory()
        do {
            let outbox = try Outbox(directory: directory.path)
            for index in 0..<3 {
                try outbox.append(topic: "v/e", payload: bytes("e\(index)"), retain: false, kind: .event)
            }
            outbox.acknowledge(1)
            try outbox.compact()  // the high-water mark must not remove message 3, which is still live
            outbox.close()
        }
        let reopened = try Outbox(directory: directory.path)
        #expect(payloads(reopened.snapshot()) == ["e1", "e2"])
        #expect(try reopened.append(topic: "v/e", payload: bytes("e3"), retain: false, kind: .event) == 4)
    }

    @Test("the concurrent group commit syncs without the lock; appends and compaction go on around it")
    func concurrentSync() throws {
        let directory = StateDirectory()
        let outbox = try Outbox(
            directory: directory.path, configuration: OutboxConfiguration(compactionThresholdBytes: 4096))
        try outbox.syncConcurrently()  // nothing appended: nothing to do
        let commit = GroupCommit(outbox: outbox)
        for index in 0..<400 {
            try outbox.append(topic: "t/\(index % 7)", payload: bytes(String(repeating: "x", count: 40) + "\(index)"),
                              retain: true, kind: .event)
            if index % 50 == 0 { commit.request() }
            if index % 3 == 0 { outbox.acknowledge(UInt64(index + 1)) }  // compacts now and then meanwhile
        }
        commit.waitUntilIdle()
        try outbox.syncConcurrently()
        let expected = outbox.snapshot()
        #expect(expected.count == 266)
        outbox.close()
        let reopened = try Outbox(directory: directory.path)
        #expect(reopened.snapshot() == expected)
    }

    @Test("only one Outbox may use a directory at a time")
    func exclusiveDirectory() throws {
        let directory = StateDirectory()
        let first = try Outbox(directory: directory.path)
        #expect { _ = try Outbox(directory: directory.path) } throws: { ($0 as? MQTTError)?.code == .outboxIO }
        first.close()
        _ = try Outbox(directory: directory.path)
    }

    @Test(
        "a journal cut at every byte offset (a torn write after kill -9) opens without a crash and keeps every whole record"
    )
    func tornTailAtEveryOffset() throws {
        let source = StateDirectory()
        var boundaries: [Int] = []
        do {
            let outbox = try Outbox(directory: source.path)
            boundaries.append(outbox.journalBytes)
            for index in 0..<12 {
                try outbox.append(
                    topic: "v/\(index % 2 == 0 ? "e" : "s")", payload: bytes("payload-\(index)"), retain: true,
                    kind: .event)
                boundaries.append(outbox.journalBytes)
            }
            outbox.close()
        }
        let full = try Data(contentsOf: URL(fileURLWithPath: source.journal))
        #expect(full.count == boundaries.last)

        for cut in 0...full.count {  // every byte offset, header included
            let copy = StateDirectory()
            try FileManager.default.createDirectory(atPath: copy.path, withIntermediateDirectories: true)
            try full.prefix(cut).write(to: URL(fileURLWithPath: copy.journal))
            let outbox = try Outbox(directory: copy.path)
            let whole = boundaries.dropFirst().filter { $0 <= cut }.count
            #expect(outbox.count == whole, "cut at \(cut)")
            #expect(payloads(outbox.snapshot()) == (0..<whole).map { "payload-\($0)" }, "cut at \(cut)")
            let lastGood = cut < boundaries[0] ? 0 : boundaries.filter { $0 <= cut }.last!
            #expect(outbox.recoveredTornBytes == cut - lastGood, "cut at \(cut)")
            // The torn tail is gone from disk: a new append lands on a record boundary and survives re-opening.
            try outbox.append(topic: "v/after", payload: bytes("after"), retain: false, kind: .event)
            outbox.close()
            let reopened = try Outbox(directory: copy.path)
            #expect(payloads(reopened.snapshot()) == (0..<whole).map { "payload-\($0)" } + ["after"], "cut at \(cut)")
            #expect(reopened.recoveredTornBytes == 0)
        }
    }

    @Test("corrupted bytes are caught by the checksum: replay stops at the damaged record", arguments: 0..<40)
    func corruption(seed: Int) throws {
        let source = StateDirectory()
        var boundaries: [Int] = []
        do {
            let outbox = try Outbox(directory: source.path)
            boundaries.append(outbox.journalBytes)
            for index in 0..<8 {
                try outbox.append(topic: "v/e", payload: bytes("message-\(index)"), retain: false, kind: .event)
                boundaries.append(outbox.journalBytes)
            }
            outbox.close()
        }
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source.journal)))
        var random = SeededGenerator(seed: UInt64(seed))
        let offset = Int.random(in: boundaries[0]..<data.count, using: &random)
        data[offset] ^= UInt8.random(in: 1...255, using: &random)
        try Data(data).write(to: URL(fileURLWithPath: source.journal))

        let outbox = try Outbox(directory: source.path)
        let damagedRecord = boundaries.lastIndex { $0 <= offset }!  // records before it are intact
        #expect(payloads(outbox.snapshot()) == (0..<damagedRecord).map { "message-\($0)" }, "flip at \(offset)")
        #expect(outbox.recoveredTornBytes == data.count - boundaries[damagedRecord])
    }

    @Test("a foreign file in the journal's place is an error, not a crash")
    func foreignFile() throws {
        let directory = StateDirectory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        try Data("not an outbox at all".utf8).write(to: URL(fileURLWithPath: directory.journal))
        #expect { _ = try Outbox(directory: directory.path) } throws: { ($0 as? MQTTError)?.code == .outboxIO }
    }
}
