import Foundation
import MQTT
import TestKit
import Testing

@Suite("Reconnects, outbox durability, and the Last Will against a real mosquitto")
struct ResilienceIntegrationTests {
    @Test("no QoS 1 message of a 1,000-message burst is lost when the broker restarts mid-burst")
    func burstAcrossBrokerRestart() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let observer = try await TestSubscriber(broker: broker, filters: ["fleet/v3/events"])
        defer { observer.stop() }

        let recorder = ClientRecorder()
        let client = try MQTTClient(
            configuration: try testConfiguration(url: broker.url, clientID: "edgenav-burst"),
            outbox: try Outbox(directory: stateDirectory), onEvent: recorder.onEvent)
        try client.start()
        #expect(await recorder.waitForConnections(1))

        let total = 1_000
        for index in 0..<total {
            try client.publish(
                topic: "fleet/v3/events", payload: Array(String(format: "burst-%04d", index).utf8), retain: false,
                kind: .event)
            if index == 300 {
                broker.stop()  // mid-burst: the next 700 go to the outbox while the broker is down
            }
            if index == 600 {
                try broker.restart()
            }
        }
        #expect(await client.flush(timeoutSeconds: 20))
        #expect(await observer.waitUntil(timeoutSeconds: 20) { Set($0.map(\.payload)).count >= total })

        let payloads = observer.messages(on: "fleet/v3/events").map(\.payload)
        #expect(Set(payloads).count == total, "unique payloads received")
        // At-least-once: duplicates may appear after the reconnect, but first occurrences are in order.
        var seen = Set<String>()
        let firstOccurrences = payloads.filter { seen.insert($0).inserted }
        #expect(firstOccurrences == (0..<total).map { String(format: "burst-%04d", $0) })
        #expect(recorder.connectedCount >= 2)
        #expect(recorder.snapshot.contains { if case .connectionLost = $0 { true } else { false } })
        await client.stop()
    }

    @Test("messages published while the broker is down survive a client restart with the same state directory")
    func outboxSurvivesClientRestart() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        broker.stop()

        // First "process": the broker is down, so everything stays in the outbox; stopped without flushing.
        do {
            let recorder = ClientRecorder()
            let outbox = try Outbox(directory: stateDirectory)
            let client = try MQTTClient(
                configuration: try testConfiguration(url: broker.url, clientID: "edgenav-restart"), outbox: outbox,
                onEvent: recorder.onEvent)
            try client.start()
            for index in 0..<50 {
                try client.publish(
                    topic: "fleet/v4/events", payload: Array("offline-\(index)".utf8), retain: false, kind: .event)
            }
            #expect(await recorder.waitUntil(timeoutSeconds: 5) { $0.count >= 3 })
            #expect(recorder.failures.allSatisfy { $0.code == .brokerUnreachable })
            await client.stop()
            outbox.close()
        }

        try broker.restart()
        let observer = try await TestSubscriber(broker: broker, filters: ["fleet/v4/events"])
        defer { observer.stop() }
        // Second "process": same directory, fresh objects.
        let outbox = try Outbox(directory: stateDirectory)
        #expect(outbox.count == 50)
        let client = try MQTTClient(
            configuration: try testConfiguration(url: broker.url, clientID: "edgenav-restart"), outbox: outbox)
        try client.start()
        #expect(await client.flush(timeoutSeconds: 10))
        #expect(await observer.waitFor(count: 50, timeoutSeconds: 10))
        #expect(observer.messages.map(\.payload) == (0..<50).map { "offline-\($0)" })
        await client.stop()
    }

    @Test(
        "a client process killed with SIGKILL: the broker publishes its will, and its outbox is re-sent by the next process"
    )
    func willAndOutboxAfterKill9() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let observer = try await TestSubscriber(broker: broker, filters: ["fleet/v5/#"])
        defer { observer.stop() }

        // 1. The will: a connected helper process dies by SIGKILL (no DISCONNECT is ever sent).
        let log = LineLog()
        let helper = try ChildProcess(
            executable: try testClientExecutable(),
            arguments: [
                "--url", broker.url, "--id", "edgenav-v5", "--state", stateDirectory + "/first",
                "--will", "fleet/v5/agent/status", #"{"state":"offline"}"#,
                "--birth", "fleet/v5/agent/status", #"{"state":"online"}"#,
            ], captureOutput: true)
        helper.readLines(log.append)
        #expect(await log.waitFor(prefix: "CONNECTED", timeoutSeconds: 10))
        #expect(await observer.waitUntil(timeoutSeconds: 5) { $0.contains { $0.payload == #"{"state":"online"}"# } })
        helper.kill(SIGKILL)
        helper.waitForExit(timeoutSeconds: 5)
        #expect(await observer.waitUntil(timeoutSeconds: 10) { $0.contains { $0.payload == #"{"state":"offline"}"# } })
        // It is retained: a fresh subscriber sees the vehicle offline.
        let late = try await TestSubscriber(broker: broker, filters: ["fleet/v5/agent/status"], persistent: false)
        defer { late.stop() }
        #expect(await late.waitFor(count: 1, timeoutSeconds: 5))
        #expect(late.messages.first?.payload == #"{"state":"offline"}"#)
        #expect(late.messages.first?.retain == true)

        // 2. The outbox: a helper publishes while the broker is down, then is SIGKILLed.
        broker.stop()
        let offlineLog = LineLog()
        let offline = try ChildProcess(
            executable: try testClientExecutable(),
            arguments: [
                "--url", broker.url, "--id", "edgenav-v5b", "--state", stateDirectory + "/second",
                "--publish", "20", "fleet/v5/events", "killed-",
            ], captureOutput: true)
        offline.readLines(offlineLog.append)
        #expect(await offlineLog.waitFor(prefix: "PUBLISHED 20", timeoutSeconds: 10))
        #expect(await offlineLog.waitFor(prefix: "FAILED mqtt.brokerUnreachable", timeoutSeconds: 10))
        offline.kill(SIGKILL)
        offline.waitForExit(timeoutSeconds: 5)

        try broker.restart()
        let outbox = try Outbox(directory: stateDirectory + "/second")
        #expect(outbox.count == 20)
        let client = try MQTTClient(
            configuration: try testConfiguration(url: broker.url, clientID: "edgenav-v5b"), outbox: outbox)
        try client.start()
        #expect(await client.flush(timeoutSeconds: 10))
        #expect(
            await observer.waitUntil(timeoutSeconds: 10) { $0.filter { $0.topic == "fleet/v5/events" }.count >= 20 })
        #expect(observer.messages(on: "fleet/v5/events").map(\.payload) == (0..<20).map { "killed-\($0)" })
        await client.stop()
    }
}
