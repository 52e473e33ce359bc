import Foundation
import Testing

@testable import MQTT

/// Inputs found by `scripts/fuzz` (target journal-fixed) that once crashed the outbox.
@Suite("Outbox journal: fuzz regressions")
struct OutboxJournalRegressionTests {
    /// A checksum-valid put record with sequence 2^64 - 1: opening the outbox trapped on `maxSequence + 1`
    /// (an arithmetic overflow in `Storage.load`), so the agent crashed on every start with that state directory.
    @Test func aRecordWithTheLargestSequenceNumberIsDamageNotACrash() throws {
        let directory = NSTemporaryDirectory() + "/edgenav-outbox-regression-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

        var journal = OutboxJournal.magic
        OutboxJournal.encode(
            .put(OutboxMessage(sequence: 7, topic: "fleet/car/nav/arrival", payload: Array("a".utf8), retain: false,
                               kind: .event)), into: &journal)
        let goodLength = journal.count
        OutboxJournal.encode(
            .put(OutboxMessage(sequence: .max, topic: "t", payload: Array("p".utf8), retain: false, kind: .event)),
            into: &journal)
        #expect(FileManager.default.createFile(atPath: directory + "/outbox.journal", contents: Data(journal)))

        let outbox = try Outbox(directory: directory)
        // The record before the damage survives; the damaged one is cut off like a torn tail.
        #expect(outbox.snapshot().map(\.sequence) == [7])
        #expect(outbox.recoveredTornBytes == journal.count - goodLength)
        // And the outbox goes on numbering above what it kept.
        #expect(try outbox.append(topic: "t", payload: [1], retain: false, kind: .event) == 8)
        outbox.close()
    }

    @Test func theLargestPlausibleSequenceStillReplays() {
        var journal = OutboxJournal.magic
        let message = OutboxMessage(sequence: OutboxJournal.maxSequence, topic: "t", payload: [1], retain: true, kind: .state)
        OutboxJournal.encode(.put(message), into: &journal)
        #expect(OutboxJournal.replay(journal)?.records == [.put(message)])
    }
}
