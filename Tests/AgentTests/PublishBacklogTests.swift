import Foundation
import MQTT
import Testing

@testable import Agent

@Suite struct PublishBacklogTests {
    func message(_ topic: String, _ kind: MessageKind, _ text: String = "x") -> PublishBacklog.Message {
        PublishBacklog.Message(topic: topic, payload: Array(text.utf8), retain: true, kind: kind,
                               isError: topic.hasSuffix("agent/error"))
    }

    func drain(_ backlog: inout PublishBacklog) -> [String] {
        var out: [String] = []
        while let first = backlog.first {
            out.append(first.topic + ":" + String(decoding: first.payload, as: UTF8.self))
            backlog.removeFirst()
        }
        return out
    }

    @Test func keepsOrderAndCoalescesStatesToTheirNewestValueAtTheEnd() {
        var backlog = PublishBacklog(maximumMessages: 10)
        _ = backlog.hold(message("v/nav/eta", .state, "1"))
        _ = backlog.hold(message("v/nav/arrival", .event, "a"))
        _ = backlog.hold(message("v/nav/eta", .state, "2"))
        #expect(backlog.count == 2)
        #expect(drain(&backlog) == ["v/nav/arrival:a", "v/nav/eta:2"])
        #expect(backlog.isEmpty)
    }

    @Test func whenFullItDropsStatesFirstThenErrorsAndOnlyThenEvents() {
        var backlog = PublishBacklog(maximumMessages: 3)
        _ = backlog.hold(message("v/nav/arrival", .event, "a1"))
        _ = backlog.hold(message("v/agent/error", .event, "e1"))
        _ = backlog.hold(message("v/nav/eta", .state, "1"))
        #expect(backlog.hold(message("v/nav/route", .event, "r1")) == .state(topic: "v/nav/eta"))
        #expect(backlog.hold(message("v/nav/arrival", .event, "a2")) == .error(topic: "v/agent/error"))
        #expect(backlog.hold(message("v/nav/route", .event, "r2")) == .event(topic: "v/nav/arrival"))
        #expect(backlog.eventsLost == 1)
        #expect(backlog.errorsDropped == 1)
        #expect(drain(&backlog) == ["v/nav/route:r1", "v/nav/arrival:a2", "v/nav/route:r2"])
    }
}

/// An event the outbox refuses is held and published once the outbox has room, in order.
@Suite struct RefusedEventTests {
    @Test func anArrivalRefusedByAFullOutboxIsHeldAndQueuedWhenThereIsRoom() throws {
        let stateDirectory = NSTemporaryDirectory() + "edgenav-backlog-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        // Port 1 on loopback: nothing listens; the client is never started, so the outbox only fills.
        let configuration = AgentConfiguration(
            brokerURL: "mqtt://127.0.0.1:1", vehicleID: "van-1", stateDirectory: stateDirectory)
        let runtime = try AgentRuntime(configuration: configuration, logger: Logger(minimumLevel: .error, sink: { _ in }))
        let outbox = runtime.client.outbox
        let capacity = OutboxConfiguration().maxMessages
        for index in 0..<capacity {
            runtime.publish(topic: "fleet/van-1/nav/route", payload: #"{"n":\#(index)}"#, kind: .event)
        }
        #expect(outbox.count == capacity)
        #expect(runtime.backlog.isEmpty)

        runtime.publish(topic: "fleet/van-1/nav/arrival", payload: #"{"arrival":1}"#, kind: .event)
        runtime.publish(topic: "fleet/van-1/nav/eta", payload: #"{"eta":1}"#, kind: .state)
        runtime.publish(topic: "fleet/van-1/nav/eta", payload: #"{"eta":2}"#, kind: .state)
        #expect(runtime.backlog.count == 2, "the arrival and the newest eta are held")
        #expect(outbox.count == capacity)

        runtime.retryBacklog()
        #expect(runtime.backlog.count == 2, "still no room")

        let sent = outbox.pending(after: 0, limit: 2).map(\.sequence)
        for sequence in sent { outbox.acknowledge(sequence) }
        runtime.retryBacklog()
        #expect(runtime.backlog.isEmpty)
        let tail = outbox.snapshot().suffix(2).map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(tail == [#"{"arrival":1}"#, #"{"eta":2}"#], "in publish order")
    }
}
