import Agent
import Foundation

/// `edgenav run`: the agent.
enum RunCommand {
    static let spec = CommandSpec(
        invocation: "edgenav run",
        summary: "Run the navigation agent for one vehicle (or a fleet) against an MQTT broker.",
        discussion: """
            Every option can also be set by the environment variable shown with it; a flag wins over
            its variable. The broker password is never taken from the command line (where `ps` would
            show it): put it in a file named by --password-file, or in EDGENAV_PASSWORD.
            The agent publishes retained {"state":"online",...} on <prefix>/<vehicle>/agent/status on
            every connect, leaves {"state":"offline",...} there as its Last Will, and publishes offline
            itself on SIGTERM or SIGINT before disconnecting. topics.md describes every topic and payload.
            --vehicle-id '+' serves every vehicle under the prefix (fleet mode), one navigator each, created on
            its first message and evicted after --idle-eviction seconds without input; the agent's own status
            then lives at <prefix>/agents/<client-id>/agent/status.
            """,
        options: [
            OptionSpec("broker", value: "URL", default: "mqtt://127.0.0.1:1883",
                       help: "broker URL, mqtt://host:port or mqtts://host:port (TLS)"),
            OptionSpec("vehicle-id", value: "ID", help: "the vehicle this agent serves (one topic level), or '+' for every vehicle"),
            OptionSpec("map", value: "FILE", help: "road graph file made by 'edgenav map import'"),
            OptionSpec("state-dir", value: "DIR", default: "./edgenav-state",
                       help: "directory for the outbox, the trip journal and the private copy of the map"),
            OptionSpec("topic-prefix", value: "PREFIX", default: "fleet", help: "first topic level(s)"),
            OptionSpec("client-id", value: "ID", help: "MQTT client id [default: edgenav-<vehicle-id>]"),
            OptionSpec("mqtt-version", value: "VERSION", default: "5", help: "MQTT protocol version: 5 or 3.1.1"),
            OptionSpec("keepalive", value: "SECONDS", default: "30", help: "MQTT keepalive interval"),
            OptionSpec("session-expiry", value: "SECONDS", default: "86400",
                       help: "how long the broker keeps our session and queued QoS 1 messages while we are away"),
            OptionSpec("username", value: "NAME", help: "broker user name"),
            OptionSpec("password-file", value: "FILE", help: "file holding the broker password (first line)"),
            OptionSpec("ca-file", value: "FILE", help: "CA certificate(s) to verify an mqtts:// broker (PEM)"),
            OptionSpec("cert-file", value: "FILE", help: "client certificate for mqtts:// (PEM)"),
            OptionSpec("key-file", value: "FILE", help: "client private key for mqtts:// (PEM)"),
            OptionSpec("allow-plaintext-credentials",
                       help: "allow sending a user name and password over plain mqtt:// to a non-loopback broker"),
            OptionSpec("log-level", value: "LEVEL", default: "info", help: "debug, info, warning or error"),
            OptionSpec("places-file", value: "FILE", help: "named places {\"placeId\":{\"lat\":…,\"lon\":…,\"title\":…}}"),
            OptionSpec("location-topic", value: "TOPIC",
                       help: "read raw fixes from this topic instead of <prefix>/<vehicle>/location/raw (one vehicle)"),
            OptionSpec("idle-eviction", value: "SECONDS", default: "600",
                       help: "fleet mode: forget a vehicle after this long without input (its trip stays journaled)"),
            OptionSpec("metrics-interval", value: "SECONDS", default: "10", help: "agent/metrics period; 0 = never"),
            OptionSpec("outbox-max-messages", value: "N", default: "10000",
                       help: "messages the on-disk outbox holds while the broker is away; past it, state messages are shed"),
            OptionSpec("outbox-max-bytes", value: "BYTES", default: "16777216",
                       help: "bytes (topic + payload) the outbox holds; past it, state messages are shed"),
            OptionSpec("max-fix-age", value: "SECONDS", default: "300", help: "older fixes are refused as stale"),
            OptionSpec("max-fix-lead", value: "SECONDS", default: "5",
                       help: "fixes further in the future than this are refused (clock skew allowance)"),
        ])

    static var command: Command {
        Command(name: "run", spec: spec) { arguments, context in
            let configuration = try configuration(from: arguments, environment: context.variables)
            return try AgentProcess.run(configuration: configuration)
        }
    }

    /// Turns parsed options into a checked agent configuration. Reads the password file.
    static func configuration(
        from arguments: ParsedArguments, environment: [String: String]
    ) throws -> AgentConfiguration {
        guard let vehicleID = arguments.string("vehicle-id") else {
            throw ArgumentError.missingRequired(option: "vehicle-id", environmentVariable: "EDGENAV_VEHICLE_ID")
        }
        guard let logLevel = LogLevel(rawValue: arguments.string("log-level") ?? "info") else {
            throw ArgumentError.invalidValue(
                option: "log-level", value: arguments.string("log-level") ?? "",
                reason: "expected debug, info, warning or error")
        }
        let protocolVersion: AgentConfiguration.ProtocolVersion
        switch arguments.string("mqtt-version") {
        case "5", "5.0", nil: protocolVersion = .v5
        case "3.1.1", "311", "4": protocolVersion = .v311
        case let other?:
            throw ArgumentError.invalidValue(option: "mqtt-version", value: other, reason: "expected 5 or 3.1.1")
        }
        var password: String?
        if let file = arguments.string("password-file") {
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                password = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            } catch {
                throw ArgumentError.invalidValue(
                    option: "password-file", value: file, reason: "cannot read it (\(error.localizedDescription))")
            }
        } else if let text = environment["EDGENAV_PASSWORD"], !text.isEmpty {
            password = text
        }
        var configuration = AgentConfiguration(
            brokerURL: arguments.string("broker") ?? "mqtt://127.0.0.1:1883",
            vehicleID: vehicleID,
            mapPath: arguments.string("map"),
            stateDirectory: arguments.string("state-dir") ?? "./edgenav-state",
            topicPrefix: arguments.string("topic-prefix") ?? "fleet",
            clientID: arguments.string("client-id"),
            protocolVersion: protocolVersion,
            keepAliveSeconds: try arguments.integer("keepalive", in: 5...65_535) ?? 30,
            sessionExpirySeconds: try arguments.integer("session-expiry", in: 0...4_294_967_295) ?? 86_400,
            username: arguments.string("username"),
            password: password,
            caFile: arguments.string("ca-file"),
            certFile: arguments.string("cert-file"),
            keyFile: arguments.string("key-file"),
            allowPlaintextCredentials: arguments.flag("allow-plaintext-credentials"),
            logLevel: logLevel)
        configuration.placesFile = arguments.string("places-file")
        configuration.locationTopic = arguments.string("location-topic")
        configuration.idleEvictionSeconds = try arguments.double("idle-eviction", in: 1...31_536_000) ?? 600
        configuration.metricsIntervalSeconds = try arguments.double("metrics-interval", in: 0...86_400) ?? 10
        configuration.outboxMaxMessages = try arguments.integer("outbox-max-messages", in: 10...10_000_000) ?? 10_000
        configuration.outboxMaxBytes = try arguments.integer("outbox-max-bytes", in: 65_536...(1 << 40)) ?? 16 << 20
        configuration.limits.maximumFixAgeSeconds = try arguments.double("max-fix-age", in: 1...31_536_000) ?? 300
        configuration.limits.maximumFixLeadSeconds = try arguments.double("max-fix-lead", in: 0...86_400) ?? 5
        try configuration.validate()
        return configuration
    }
}
