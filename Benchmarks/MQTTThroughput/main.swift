// QoS 1 publish throughput of MQTTClient (outbox included), for scripts/bench-mqtt.
//   bench-mqtt --url mqtt://127.0.0.1:PORT --count N --topic T --payload-bytes B --state DIR
// Prints one line: "ours N messages acked in S s = R msg/s (outbox max X messages)".
//   bench-mqtt --shed N --state DIR
// No broker: an outbox bounded at N messages is filled with N retained states on distinct topics (a fleet's
// outputs while the broker is away or slow), then N more are appended, each shedding the oldest state. Prints the
// time per append while full.
import Foundation
import MQTT
import Synchronization

var options: [String: String] = [:]
var remaining = Array(CommandLine.arguments.dropFirst())
while remaining.count >= 2 {
    options[remaining[0]] = remaining[1]
    remaining.removeFirst(2)
}
if let shedText = options["--shed"], let capacity = Int(shedText), capacity > 0, let stateDirectory = options["--state"] {
    do {
        let shedCount = Mutex(0)
        let outbox = try Outbox(
            directory: stateDirectory, configuration: OutboxConfiguration(maxMessages: capacity, maxBytes: 1 << 30),
            onShed: { _ in shedCount.withLock { $0 += 1 } })
        let payload = Array(repeating: UInt8(ascii: "x"), count: 200)
        for index in 0..<capacity {
            try outbox.append(topic: "fleet/v\(index)/location/snapped", payload: payload, retain: true, kind: .state)
        }
        let start = ContinuousClock.now
        for index in capacity..<(2 * capacity) {
            try outbox.append(topic: "fleet/v\(index)/location/snapped", payload: payload, retain: true, kind: .state)
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "shed: %d appends on a full outbox of %d states in %.3f s = %.1f µs per append (%d shed)",
                     capacity, capacity, seconds, seconds * 1e6 / Double(capacity), shedCount.withLock { $0 }))
        exit(0)
    } catch {
        print("bench-mqtt: \(error)")
        exit(1)
    }
}
guard let url = options["--url"], let stateDirectory = options["--state"] else {
    FileHandle.standardError.write(
        Data("usage: bench-mqtt --url URL --state DIR [--count N] [--topic T] [--payload-bytes B]\n".utf8))
    exit(2)
}
let count = Int(options["--count"] ?? "") ?? 20_000
let topic = options["--topic"] ?? "bench/ours"
let payloadBytes = Int(options["--payload-bytes"] ?? "") ?? 32

final class Connected: Sendable {
    let value = Mutex(false)
}

do {
    var configuration = MQTTConfiguration(broker: try BrokerURL(parsing: url), clientID: "bench-mqtt-\(getpid())")
    configuration.cleanStart = true
    let outbox = try Outbox(
        directory: stateDirectory, configuration: OutboxConfiguration(maxMessages: count + 10, maxBytes: 1 << 30))
    let connected = Connected()
    let client = try MQTTClient(
        configuration: configuration, outbox: outbox,
        onEvent: { event in
            switch event {
            case .connected: connected.value.withLock { $0 = true }
            case .connectionFailed(let error, _), .connectionLost(let error, _):
                FileHandle.standardError.write(Data("bench-mqtt: \(error)\n".utf8))
            default: break
            }
        })
    let launched = ContinuousClock.now
    try client.start()
    while !connected.value.withLock({ $0 }) { usleep(1_000) }
    let connectTime = ContinuousClock.now - launched

    let start = ContinuousClock.now
    for index in 0..<count {
        var payload = Array(String(format: "%08d", index).utf8)
        if payload.count < payloadBytes {
            payload += Array(repeating: UInt8(ascii: "x"), count: payloadBytes - payload.count)
        }
        try client.publish(topic: topic, payload: payload, retain: false, kind: .event)
    }
    let queued = ContinuousClock.now - start
    let flushed = await client.flush(timeoutSeconds: 300)
    let elapsed = ContinuousClock.now - start
    let stopStart = ContinuousClock.now
    await client.stop()
    let stopTime = ContinuousClock.now - stopStart
    FileHandle.standardError.write(Data("bench-mqtt: connect \(connectTime), stop \(stopTime)\n".utf8))
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let queuedSeconds = Double(queued.components.seconds) + Double(queued.components.attoseconds) / 1e18
    guard flushed else {
        print("ours FAILED: not all \(count) messages acknowledged within 300 s")
        exit(1)
    }
    print(
        String(
            format: "ours %d messages acked in %.3f s = %.0f msg/s (all queued in the outbox after %.3f s)", count,
            seconds, Double(count) / seconds, queuedSeconds))
} catch {
    print("bench-mqtt: \(error)")
    exit(1)
}
