import Foundation
import TestKit
import Testing

@testable import MQTT

/// `Outbox.append(_:)` (several messages, one journal write) must leave exactly what appending them one by one
/// leaves, in memory and on disk, and a write torn anywhere must replay to a prefix of the batch.
@Suite("Outbox batches")
struct OutboxBatchTests {
    static func entry(_ topic: String, _ payload: String, _ kind: MessageKind) -> OutboxEntry {
        OutboxEntry(topic: topic, payload: Array(payload.utf8), retain: kind == .state, kind: kind)
    }

    /// What the outbox holds, comparable across two outboxes.
    static func content(_ outbox: Outbox) -> [String] {
        outbox.snapshot().map { "\($0.sequence) \($0.kind.rawValue) \($0.retain) \($0.topic) \(String(decoding: $0.payload, as: UTF8.self))" }
    }

    @Test("random batches leave what one-by-one appends leave, before and after re-opening, bounds and shedding included")
    func batchesMatchSingleAppends() throws {
        var random = SeededGenerator(seed: 4)
        for round in 0..<20 {
            let batched = StateDirectory(), single = StateDirectory()
            // Small bounds in half the rounds, so batches meet them (shedding, refusals).
            let configuration = round % 2 == 0 ? OutboxConfiguration()
                : OutboxConfiguration(maxMessages: 12, maxBytes: 600, compactionThresholdBytes: 1 << 20)
            let shedBatched = ShedLog(), shedSingle = ShedLog()
            do {
                let a = try Outbox(directory: batched.path, configuration: configuration, onShed: shedBatched.callback)
                let b = try Outbox(directory: single.path, configuration: configuration, onShed: shedSingle.callback)
                for step in 0..<60 {
                    let entries = (0..<Int.random(in: 0...4, using: &random)).map { index in
                        Self.entry("v/\(Int.random(in: 0..<3, using: &random))/t\(Int.random(in: 0..<2, using: &random))",
                                   "p\(step).\(index)" + String(repeating: "x", count: Int.random(in: 0...40, using: &random)),
                                   Int.random(in: 0..<3, using: &random) == 0 ? .event : .state)
                    }
                    let result = a.append(entries)
                    var stored = 0
                    var refusal: MQTTError?
                    for entry in entries {
                        do {
                            try b.append(topic: entry.topic, payload: entry.payload, retain: entry.retain, kind: entry.kind)
                            stored += 1
                        } catch {
                            refusal = error
                            break
                        }
                    }
                    #expect(result.stored == stored)
                    #expect(result.error?.code == refusal?.code)
                    #expect(Self.content(a) == Self.content(b))
                    if Int.random(in: 0..<4, using: &random) == 0, let oldest = a.snapshot().first?.sequence {
                        a.acknowledge(oldest)
                        b.acknowledge(oldest)
                    }
                }
                #expect(shedBatched.all == shedSingle.all)
                a.close()
                b.close()
            }
            let reopenedA = try Outbox(directory: batched.path, configuration: configuration)
            let reopenedB = try Outbox(directory: single.path, configuration: configuration)
            #expect(Self.content(reopenedA) == Self.content(reopenedB))
            #expect(!Self.content(reopenedA).isEmpty)
        }
    }

    @Test("a batch is one write: cut anywhere, the journal replays to a prefix of the batch")
    func tornBatchReplaysToAPrefix() throws {
        let directory = StateDirectory()
        let entries = [Self.entry("v/1/snapped", "s1", .state), Self.entry("v/1/eta", "e1", .state),
                       Self.entry("v/1/arrival", "a1", .event), Self.entry("v/1/snapped", "s2", .state)]
        let before: Int
        do {
            let outbox = try Outbox(directory: directory.path)
            try outbox.append(topic: "v/1/snapped", payload: Array("s0".utf8), retain: true, kind: .state)
            before = outbox.journalBytes
            #expect(outbox.append(entries).stored == 4)
            #expect(Self.content(outbox).map { $0.split(separator: " ").last! } == ["e1", "a1", "s2"])
            outbox.close()
        }
        let full = try Data(contentsOf: URL(fileURLWithPath: directory.journal))
        var prefixes: Set<[String]> = []
        for cut in before...full.count {
            try full.prefix(cut).write(to: URL(fileURLWithPath: directory.journal))
            let outbox = try Outbox(directory: directory.path)
            let payloads = Self.content(outbox).map { String($0.split(separator: " ").last!) }
            prefixes.insert(payloads)
            outbox.close()
        }
        // Every cut gives the state after 0…4 of the entries, never anything else.
        let expected: Set<[String]> = [["s0"], ["s1"], ["s1", "e1"], ["s1", "e1", "a1"], ["e1", "a1", "s2"]]
        #expect(prefixes.isSubset(of: expected), "\(prefixes)")
        #expect(prefixes.contains(["s0"]) && prefixes.contains(["e1", "a1", "s2"]))
    }
}
