import Foundation
import MQTT
import Testing

@testable import Agent

@Suite struct ShedLedgerTests {
    @Test func talliesPerTopicAndReportsAtMostOncePerInterval() {
        let ledger = ShedLedger(minimumIntervalSeconds: 1)
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(ledger.take(now: start) == nil)
        ledger.record(topic: "fleet/v/nav/eta")
        ledger.record(topic: "fleet/v/nav/eta")
        ledger.record(topic: "fleet/v/location/snapped")
        let report = ledger.take(now: start)
        #expect(report?.countsByTopic == ["fleet/v/nav/eta": 2, "fleet/v/location/snapped": 1])
        #expect(report?.total == 3)
        #expect(report?.message.contains("shed 3 state message(s)") == true)

        ledger.record(topic: "fleet/v/nav/eta")
        #expect(ledger.take(now: start.addingTimeInterval(0.5)) == nil, "within the interval: held back")
        #expect(ledger.take(now: start.addingTimeInterval(1.0))?.total == 1, "then reported, not lost")
        #expect(ledger.take(now: start.addingTimeInterval(5)) == nil)
    }

    @Test func aFleetWideShedNamesTwentyTopicsAndCountsTheRest() throws {
        let ledger = ShedLedger(minimumIntervalSeconds: 1)
        for vehicle in 0..<500 { ledger.record(topic: "fleet/v\(vehicle)/location/snapped") }
        let message = try #require(ledger.take(now: Date(timeIntervalSince1970: 1_000))).message
        #expect(message.contains("shed 500 state message(s) on 500 topic(s)"))
        #expect(message.contains("fleet/v0/location/snapped ×1"))
        #expect(message.hasSuffix(", and 480 more topic(s)"))
        #expect(message.utf8.count < 1_200, "\(message.utf8.count) bytes")
    }
}

/// The agent says on `agent/error` when its outbox sheds state messages (issue: "says so on the error topic").
@Suite struct OutboxShedReportTests {
    @Test func aFullOutboxIsReportedOnTheErrorTopic() throws {
        let stateDirectory = NSTemporaryDirectory() + "edgenav-shed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        // Port 1 on loopback: nothing listens, so everything stays in the outbox (the client is never started).
        let configuration = AgentConfiguration(
            brokerURL: "mqtt://127.0.0.1:1", vehicleID: "van-1", stateDirectory: stateDirectory)
        let runtime = try AgentRuntime(configuration: configuration, logger: Logger(minimumLevel: .error, sink: { _ in }))
        let capacity = OutboxConfiguration().maxMessages
        // Distinct state topics cannot be coalesced, so one more than the capacity forces a shed.
        for index in 0...capacity {
            runtime.publish(topic: "fleet/van-1/test/state-\(index)", payload: "{}", kind: .state)
        }
        let errors = runtime.client.outbox.snapshot().filter { $0.topic == "fleet/van-1/agent/error" }
        #expect(errors.count == 1)
        let text = String(decoding: try #require(errors.first).payload, as: UTF8.self)
        #expect(text.contains(#""code":"outboxShed""#))
        #expect(text.contains("fleet/van-1/test/state-0"), "the oldest state message is the one shed: \(text)")
    }
}
