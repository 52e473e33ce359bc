// A tiny MQTTClient process for integration tests that need a real process to SIGKILL (the Last Will,
// an outbox that must survive kill -9). It prints one line per milestone on stdout and then waits to be
// killed:
//   mqtt-test-client --url URL --id CLIENT_ID --state DIR [--will TOPIC PAYLOAD] [--birth TOPIC PAYLOAD]
//                    [--publish COUNT TOPIC PREFIX]
// Lines: "PUBLISHED <count>" once the messages are in the outbox, "CONNECTED" on each connect,
// "FAILED <code>" on each failed attempt.
import Foundation
import MQTT

@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))  // unbuffered: the test reads it at once
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func take(_ count: Int) -> [String] {
    defer { arguments.removeFirst(count) }
    return Array(arguments.prefix(count))
}

var url = ""
var clientID = ""
var stateDirectory = ""
var will: MQTTStatusMessage?
var birth: MQTTStatusMessage?
var publishCount = 0
var publishTopic = ""
var publishPrefix = ""
while let option = arguments.first {
    arguments.removeFirst()
    switch option {
    case "--url": url = take(1)[0]
    case "--id": clientID = take(1)[0]
    case "--state": stateDirectory = take(1)[0]
    case "--will":
        let values = take(2)
        will = MQTTStatusMessage(topic: values[0], text: values[1])
    case "--birth":
        let values = take(2)
        birth = MQTTStatusMessage(topic: values[0], text: values[1])
    case "--publish":
        let values = take(3)
        publishCount = Int(values[0]) ?? 0
        publishTopic = values[1]
        publishPrefix = values[2]
    default:
        say("USAGE unknown option \(option)")
        exit(2)
    }
}

do {
    var configuration = MQTTConfiguration(broker: try BrokerURL(parsing: url), clientID: clientID)
    configuration.keepAliveSeconds = 5
    configuration.reconnect = ReconnectPolicy(initialDelaySeconds: 0.1, maxDelaySeconds: 0.5)
    configuration.will = will
    configuration.birth = birth
    let outbox = try Outbox(directory: stateDirectory)
    let client = try MQTTClient(
        configuration: configuration, outbox: outbox,
        onEvent: { event in
            switch event {
            case .connected: say("CONNECTED")
            case .connectionFailed(let error, _): say("FAILED \(error.code)")
            default: break
            }
        })
    for index in 0..<publishCount {
        try client.publish(
            topic: publishTopic, payload: Array("\(publishPrefix)\(index)".utf8), retain: false, kind: .event)
    }
    say("PUBLISHED \(publishCount)")
    try client.start()
    while true { sleep(60) }
} catch {
    say("ERROR \(error)")
    exit(1)
}
