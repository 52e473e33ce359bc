import Foundation
import TestKit
import Testing

@testable import MQTT

/// The outbox's bounds against a plain model of its documented rules: a newer state supersedes the older one on its
/// topic; past a bound the oldest states are shed (never the one being superseded, never events), oldest first;
/// when shedding cannot make room the message is refused and nothing changes. Long runs with the outbox kept full,
/// acknowledgements and re-openings in between, so the outbox's incremental search for the oldest states (it does
/// not sort them again per append) meets holes, events at the front and states it already passed.
@Suite("Outbox shedding against a model")
struct OutboxSheddingModelTests {
    struct ModelMessage: Equatable {
        var sequence: UInt64
        var topic: String
        var payload: String
        var kind: MessageKind
        var size: Int { topic.utf8.count + payload.utf8.count }
    }

    struct Model {
        let maxMessages: Int
        let maxBytes: Int
        var messages: [ModelMessage] = []
        var nextSequence: UInt64 = 1

        /// The topics shed, or nil when the message is refused.
        mutating func append(topic: String, payload: String, kind: MessageKind) -> [String]? {
            let message = ModelMessage(sequence: nextSequence, topic: topic, payload: payload, kind: kind)
            let superseded = kind == .state
                ? messages.first(where: { $0.kind == .state && $0.topic == topic })?.sequence : nil
            var kept = messages.filter { $0.sequence != superseded }
            var shed: [String] = []
            func over(_ list: [ModelMessage]) -> Bool {
                list.count + 1 > maxMessages || list.reduce(0) { $0 + $1.size } + message.size > maxBytes
            }
            while over(kept) {
                guard let oldest = kept.firstIndex(where: { $0.kind == .state }) else { return nil }
                shed.append(kept.remove(at: oldest).topic)
            }
            messages = kept + [message]
            nextSequence += 1
            return shed
        }

        mutating func acknowledge(_ sequence: UInt64) { messages.removeAll { $0.sequence == sequence } }
    }

    @Test("random appends on a full outbox shed what the model sheds, in the same order, across re-openings")
    func matchesModel() throws {
        var random = SeededGenerator(seed: 10)
        for round in 0..<6 {
            let directory = StateDirectory()
            let configuration = round % 2 == 0
                ? OutboxConfiguration(maxMessages: 40, compactionThresholdBytes: 4096)
                : OutboxConfiguration(maxMessages: 1000, maxBytes: 900, compactionThresholdBytes: 4096)
            var model = Model(maxMessages: configuration.maxMessages, maxBytes: configuration.maxBytes)
            let shedLog = ShedLog()
            var outbox: Outbox? = try Outbox(
                directory: directory.path, configuration: configuration, onShed: shedLog.callback)
            var shedSeen = 0
            for step in 0..<1500 {
                let roll = Int.random(in: 0..<100, using: &random)
                if roll < 3 {
                    outbox?.close()
                    outbox = nil
                    outbox = try Outbox(directory: directory.path, configuration: configuration, onShed: shedLog.callback)
                } else if roll < 15, !model.messages.isEmpty {
                    // Acknowledge one of the oldest few (a broker answers roughly in order) or any.
                    let pick = roll < 12 ? Int.random(in: 0..<min(3, model.messages.count), using: &random)
                        : Int.random(in: 0..<model.messages.count, using: &random)
                    let sequence = model.messages[pick].sequence
                    model.acknowledge(sequence)
                    outbox?.acknowledge(sequence)
                } else {
                    let kind: MessageKind = Int.random(in: 0..<10, using: &random) == 0 ? .event : .state
                    let topic = "v/\(Int.random(in: 0..<60, using: &random))"
                    let payload = "p\(step)" + String(repeating: "x", count: Int.random(in: 0...12, using: &random))
                    let expected = model.append(topic: topic, payload: payload, kind: kind)
                    do {
                        try outbox?.append(topic: topic, payload: Array(payload.utf8), retain: kind == .state, kind: kind)
                        #expect(expected != nil, "round \(round) step \(step): stored, the model refused")
                    } catch {
                        #expect(expected == nil && error.code == .outboxFull,
                                "round \(round) step \(step): \(error.code), the model stored it")
                    }
                    let shed = shedLog.all.dropFirst(shedSeen).map(\.topic)
                    shedSeen = shedLog.all.count
                    #expect(shed == (expected ?? []), "round \(round) step \(step)")
                }
                let held = (outbox?.snapshot() ?? []).map {
                    ModelMessage(sequence: $0.sequence, topic: $0.topic,
                                 payload: String(decoding: $0.payload, as: UTF8.self), kind: $0.kind)
                }
                guard held == model.messages else {
                    Issue.record("""
                        round \(round) step \(step): outbox \(held.count) messages, model \(model.messages.count); \
                        only in the outbox \(held.filter { !model.messages.contains($0) }), \
                        only in the model \(model.messages.filter { !held.contains($0) })
                        """)
                    return
                }
            }
            #expect(shedSeen > 100, "round \(round): the outbox must have been full for much of the run")
        }
    }
}
