import Foundation
import MQTT
import TestKit
import Testing

@Suite("MQTTClient against a real mosquitto")
struct MQTTClientIntegrationTests {
    @Test("connects, publishes the retained birth first, and a graceful stop sends the final message, not the will")
    func birthAndGracefulStop() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let observer = try await TestSubscriber(broker: broker, filters: ["fleet/v1/#"])
        defer { observer.stop() }

        var configuration = try testConfiguration(url: broker.url, clientID: "edgenav-v1")
        configuration.birth = MQTTStatusMessage(topic: "fleet/v1/agent/status", text: #"{"state":"online"}"#)
        configuration.will = MQTTStatusMessage(
            topic: "fleet/v1/agent/status", text: #"{"state":"offline","reason":"will"}"#)
        let recorder = ClientRecorder()
        let outbox = try Outbox(directory: stateDirectory)
        let client = try MQTTClient(
            configuration: configuration, outbox: outbox, onMessage: recorder.onMessage, onEvent: recorder.onEvent)
        // Published before start: must wait in the outbox and go out after the birth message.
        try client.publish(topic: "fleet/v1/events", payload: Array("early".utf8), retain: false, kind: .event)
        try client.start()
        #expect(await recorder.waitForConnections(1))
        #expect(await observer.waitFor(count: 2, timeoutSeconds: 5))
        #expect(observer.messages.map(\.payload).prefix(2) == [#"{"state":"online"}"#, "early"])

        // A fresh subscriber sees the birth as a retained message.
        let late = try await TestSubscriber(broker: broker, filters: ["fleet/v1/agent/status"], persistent: false)
        defer { late.stop() }
        #expect(await late.waitFor(count: 1, timeoutSeconds: 5))
        #expect(
            late.messages.first == .init(topic: "fleet/v1/agent/status", payload: #"{"state":"online"}"#, retain: true))

        let acknowledged = await client.stop(
            finalMessage: MQTTStatusMessage(
                topic: "fleet/v1/agent/status", text: #"{"state":"offline","reason":"shutdown"}"#),
            timeoutSeconds: 3)
        #expect(acknowledged)
        #expect(await observer.waitUntil(timeoutSeconds: 5) { $0.contains { $0.payload.contains("shutdown") } })
        // Clean DISCONNECT: the broker must not publish the will.
        try await Task.sleep(nanoseconds: 700_000_000)
        #expect(!observer.messages.contains { $0.payload.contains(#""reason":"will""#) })
        #expect(recorder.snapshot.last == .stopped(nil))

        // Retained state survives a broker restart (TestBroker keeps persistence on the same port).
        try broker.restart()
        let afterRestart = try await TestSubscriber(
            broker: broker, filters: ["fleet/v1/agent/status"], persistent: false)
        defer { afterRestart.stop() }
        #expect(await afterRestart.waitFor(count: 1, timeoutSeconds: 5))
        #expect(afterRestart.messages.first?.payload.contains("shutdown") == true)
        #expect(afterRestart.messages.first?.retain == true)
    }

    @Test("receives messages on subscriptions, and resubscribes after the broker restarts")
    func subscribeAndResubscribe() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        // A clean session: the broker forgets our subscription when it restarts without it... so only our
        // resubscription can bring the messages back.
        var configuration = try testConfiguration(url: broker.url, clientID: "edgenav-sub")
        configuration.cleanStart = true
        let recorder = ClientRecorder()
        let client = try MQTTClient(
            configuration: configuration, outbox: try Outbox(directory: stateDirectory),
            onMessage: recorder.onMessage, onEvent: recorder.onEvent)
        try client.subscribe("fleet/v2/cmd/#")
        try client.start()
        #expect(await recorder.waitForConnections(1))
        try await waitForMessage(recorder, broker: broker, topic: "fleet/v2/cmd/route", payload: "one")

        broker.kill()  // SIGKILL: no goodbye to the client, the broker just vanishes
        try broker.restart()
        #expect(await recorder.waitForConnections(2))
        try await waitForMessage(recorder, broker: broker, topic: "fleet/v2/cmd/route", payload: "two")
        let received = recorder.messages.withLock { $0 }
        #expect(received.contains { $0.topic == "fleet/v2/cmd/route" && text($0.payload) == "two" && !$0.retain })
        await client.stop()
    }

    /// Publishes with mosquitto_pub until the client has it (a subscription may take a moment to land).
    private func waitForMessage(_ recorder: ClientRecorder, broker: TestBroker, topic: String, payload: String)
        async throws
    {
        for _ in 0..<50 {
            try broker.publishWithTool(topic: topic, payload: payload)
            try await Task.sleep(nanoseconds: 100_000_000)
            if recorder.messages.withLock({ $0.contains { $0.topic == topic && text($0.payload) == payload } }) {
                return
            }
        }
        Issue.record("client never received \(payload) on \(topic)")
    }
}

@Suite("Persistent sessions against a real mosquitto")
struct PersistentSessionIntegrationTests {
    @Test(
        "QoS 1 messages sent while the client is away are delivered when it comes back",
        arguments: [
            MQTTProtocolVersion.v5, .v311,
        ])
    func queuedWhileAway(version: MQTTProtocolVersion) async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        var configuration = try testConfiguration(url: broker.url, clientID: "edgenav-session-\(version)")
        configuration.protocolVersion = version
        configuration.sessionExpiryIntervalSeconds = 300

        let first = ClientRecorder()
        do {
            let client = try MQTTClient(
                configuration: configuration, outbox: try Outbox(directory: stateDirectory),
                onMessage: first.onMessage, onEvent: first.onEvent)
            try client.subscribe("fleet/v8/cmd/#")
            try client.start()
            #expect(await first.waitForConnections(1))
            #expect(first.snapshot.contains(.connected(sessionPresent: false)))
            // Make sure the SUBSCRIBE has landed before leaving.
            for attempt in 0..<50 where first.messages.withLock({ $0.isEmpty }) {
                try broker.publishWithTool(topic: "fleet/v8/cmd/ping", payload: "ping-\(attempt)")
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            await client.stop()
            client.outbox.close()
        }
        for index in 0..<3 { try broker.publishWithTool(topic: "fleet/v8/cmd/route", payload: "while-away-\(index)") }

        let second = ClientRecorder()
        let client = try MQTTClient(
            configuration: configuration, outbox: try Outbox(directory: stateDirectory),
            onMessage: second.onMessage, onEvent: second.onEvent)
        try client.start()  // no subscribe call: the broker's session alone must deliver
        #expect(await second.waitForConnections(1))
        #expect(second.snapshot.contains(.connected(sessionPresent: true)))
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, second.messages.withLock({ $0.count }) < 3 {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(second.messages.withLock { $0.map { text($0.payload) } } == (0..<3).map { "while-away-\($0)" })
        await client.stop()
    }
}
