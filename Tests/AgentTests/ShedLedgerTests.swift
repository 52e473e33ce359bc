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

/// While the outbox stays full (a broker slower than the fleet), shed topics wait to be republished: republishing them
/// there would shed other vehicles' values, to be republished in turn. Once the outbox has room they go out again,
/// except the topics a fresh value has replaced meanwhile.
@Suite struct ShedRepublishTests {
    @Test func shedTopicsAreRepublishedOnlyOnceTheOutboxHasRoom() throws {
        let street = try StreetFixture()
        let directory = NSTemporaryDirectory() + "edgenav-shed-republish-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Port 1 on loopback: nothing listens; the client is never started, so outputs stay in the outbox.
        var configuration = AgentConfiguration(brokerURL: "mqtt://127.0.0.1:1", vehicleID: "+", stateDirectory: directory)
        configuration.outboxMaxMessages = 10
        configuration.inbox.minimumFixSpacingSeconds = 0
        let runtime = try AgentRuntime(configuration: configuration, logger: Logger(minimumLevel: .error, sink: { _ in }),
                                       map: street.map)
        let now = Date().timeIntervalSince1970
        func fix(_ vehicle: String, east: Double, secondsAgo: Double) {
            runtime.messageInbox.deliver(MQTTMessage(topic: "fleet/\(vehicle)/location/raw", payload: Array(
                #"{"lat":\#(street.a.latitude),"lon":\#(street.a.longitude + east),"timestamp":\#(now - secondsAgo)}"#.utf8),
                retain: false))
            runtime.messageInbox.deliveriesEnded()
            _ = runtime.vehicleCount
        }
        let vehicles = (0..<12).map { "v\($0)" }
        for vehicle in vehicles { fix(vehicle, east: 0, secondsAgo: 3) }
        func held() -> Set<String> { Set(runtime.client.outbox.snapshot().map(\.topic)) }
        let waiting = runtime.syncExclusively { runtime.shedTopicsToRepublish }
        #expect(waiting.contains("fleet/v0/location/snapped") && waiting.contains("fleet/v0/nav/speeding"),
                "12 vehicles' states do not fit in 10 messages: the first vehicle's were shed: \(waiting.sorted())")
        #expect(runtime.client.outbox.count <= 10)
        #expect(held().isDisjoint(with: waiting), "nothing republished into a full outbox")

        // A fresh value of a waiting topic: it no longer waits (its speeding, unchanged, still does).
        fix("v0", east: 0.00005, secondsAgo: 2)
        let afterFresh = runtime.syncExclusively { runtime.shedTopicsToRepublish }
        #expect(!afterFresh.contains("fleet/v0/location/snapped") && afterFresh.contains("fleet/v0/nav/speeding"))

        // The broker takes everything: the outbox empties, and the next report republishes what still waits.
        runtime.client.outbox.acknowledge(runtime.client.outbox.snapshot().map(\.sequence))
        #expect(runtime.client.outbox.count == 0)
        runtime.syncExclusively { runtime.reportShedIfDue() }
        #expect(runtime.syncExclusively { runtime.shedTopicsToRepublish }.isEmpty)
        #expect(held().contains("fleet/v0/nav/speeding"), "republished once there was room: \(held().sorted())")
    }
}
