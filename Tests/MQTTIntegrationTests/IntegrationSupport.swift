import Foundation
import MQTT
import Synchronization
import TestKit

/// Collects a client's connection events and received messages for assertions.
final class ClientRecorder: Sendable {
    let events = Mutex<[MQTTConnectionEvent]>([])
    let messages = Mutex<[MQTTMessage]>([])

    var onEvent: @Sendable (MQTTConnectionEvent) -> Void { { [self] event in events.withLock { $0.append(event) } } }
    var onMessage: @Sendable (MQTTMessage) -> Void { { [self] message in messages.withLock { $0.append(message) } } }

    var snapshot: [MQTTConnectionEvent] { events.withLock { $0 } }

    var connectedCount: Int {
        snapshot.filter { if case .connected = $0 { true } else { false } }.count
    }

    var failures: [MQTTError] {
        snapshot.compactMap { if case .connectionFailed(let error, _) = $0 { error } else { nil } }
    }

    var failureDelays: [Double] {
        snapshot.compactMap { if case .connectionFailed(_, let delay) = $0 { delay } else { nil } }
    }

    func waitUntil(timeoutSeconds: Double, _ predicate: @Sendable ([MQTTConnectionEvent]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if predicate(snapshot) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return predicate(snapshot)
    }

    func waitForConnections(_ count: Int, timeoutSeconds: Double = 10) async -> Bool {
        await waitUntil(timeoutSeconds: timeoutSeconds) { events in
            events.filter { if case .connected = $0 { true } else { false } }.count >= count
        }
    }
}

/// Short timings so the suite stays fast: keepalive 5 s (libmosquitto's minimum), backoff 0.1…0.5 s.
func testConfiguration(url: String, clientID: String) throws -> MQTTConfiguration {
    var configuration = MQTTConfiguration(broker: try BrokerURL(parsing: url), clientID: clientID)
    configuration.keepAliveSeconds = 5
    configuration.connectTimeoutSeconds = 3
    configuration.reconnect = ReconnectPolicy(
        initialDelaySeconds: 0.1, maxDelaySeconds: 0.5, multiplier: 2, jitterFraction: 0.2)
    return configuration
}

func temporaryStateDirectory() throws -> String {
    try TestTools.makeTemporaryDirectory(prefix: "edgenav-mqtt-state")
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The `mqtt-test-client` helper, built next to the test bundle.
func testClientExecutable() throws -> String {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let path = directory.appendingPathComponent("mqtt-test-client").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw TestBrokerError("mqtt-test-client not found at \(path); build the package first")
    }
    return path
}

/// Lines printed by a helper process.
final class LineLog: Sendable {
    let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func waitFor(prefix: String, timeoutSeconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if lines.withLock({ $0.contains { $0.hasPrefix(prefix) } }) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }
}
