import Foundation
import MQTT

/// Everything `edgenav run` needs, checked before the agent starts.
///
/// `description` never shows the password.
public struct AgentConfiguration: Sendable, CustomStringConvertible {
    public enum ProtocolVersion: String, Sendable { case v5 = "5", v311 = "3.1.1" }

    /// `mqtt://host:port` or `mqtts://host:port`.
    public var brokerURL: String
    public var vehicleID: String
    /// The road graph file, when the agent navigates.
    public var mapPath: String?
    /// Where the outbox and the trip journal live; created when missing.
    public var stateDirectory: String
    public var topicPrefix: String
    public var clientID: String
    public var protocolVersion: ProtocolVersion
    /// MQTT keepalive [s]. The broker declares us gone (and publishes the will) after 1.5 × this.
    public var keepAliveSeconds: Int
    /// How long the broker keeps our session while we are disconnected [s].
    public var sessionExpirySeconds: Int
    public var username: String?
    public var password: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// Permit a user name and password over plain TCP to a broker that is not on loopback.
    public var allowPlaintextCredentials: Bool
    public var logLevel: LogLevel
    /// A JSON file of named places `{"placeId": {"lat", "lon", "title"}}`, read at start.
    public var placesFile: String?
    /// Read raw fixes from this topic instead of `{prefix}/{vid}/location/raw` (e.g. `owntracks/alice/phone`).
    /// One vehicle only.
    public var locationTopic: String?
    /// Fleet mode (vehicle id `+`): a vehicle with no input for this long is evicted from memory (its trip stays in
    /// the journal and resumes on its next message) [s]. Default 600.
    public var idleEvictionSeconds: Double = 600
    /// How often `agent/metrics` is published [s]; 0 = never. Default 10.
    public var metricsIntervalSeconds: Double = 10
    /// Input bounds (payload size, fix age and lead).
    public var limits = InputLimits()
    /// The outbox's bounds while the broker is unreachable: messages and bytes (topic + payload) held on disk.
    /// Past either, state messages are shed oldest first (reported as `outboxShed` on `agent/error`); events are
    /// never shed. Defaults 10,000 messages and 16 MiB.
    public var outboxMaxMessages: Int = 10_000
    public var outboxMaxBytes: Int = 16 << 20
    /// Inbox bounds and rates: queued inputs per vehicle, fixes per second, errors per second.
    public var inbox = InboxLimits()

    /// `--vehicle-id '+'`: serve every vehicle under the prefix.
    public var isFleet: Bool { vehicleID == "+" }

    public init(
        brokerURL: String, vehicleID: String, mapPath: String? = nil, stateDirectory: String,
        topicPrefix: String = "fleet", clientID: String? = nil, protocolVersion: ProtocolVersion = .v5,
        keepAliveSeconds: Int = 30, sessionExpirySeconds: Int = 86_400, username: String? = nil,
        password: String? = nil, caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil,
        allowPlaintextCredentials: Bool = false, logLevel: LogLevel = .info
    ) {
        self.brokerURL = brokerURL
        self.vehicleID = vehicleID
        self.mapPath = mapPath
        self.stateDirectory = stateDirectory
        self.topicPrefix = topicPrefix
        self.clientID = clientID ?? (vehicleID == "+" ? "edgenav-fleet" : "edgenav-\(vehicleID)")
        self.protocolVersion = protocolVersion
        self.keepAliveSeconds = keepAliveSeconds
        self.sessionExpirySeconds = sessionExpirySeconds
        self.username = username
        self.password = password
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.allowPlaintextCredentials = allowPlaintextCredentials
        self.logLevel = logLevel
    }

    public var description: String {
        "AgentConfiguration(broker: \(brokerURL), vehicleID: \(vehicleID), map: \(mapPath ?? "none"), "
            + "stateDirectory: \(stateDirectory), topicPrefix: \(topicPrefix), clientID: \(clientID), "
            + "mqtt: \(protocolVersion.rawValue), keepAlive: \(keepAliveSeconds)s, "
            + "username: \(username ?? "none"), password: \(password == nil ? "none" : "<redacted>"))"
    }

    /// The topic tree these settings make. In fleet mode, the agent's own topics (`agent/status` and errors no
    /// vehicle can be named for) live under `{prefix}/agents/{clientId}/`.
    public var topics: TopicTree {
        get throws(AgentConfigurationError) {
            isFleet ? try TopicTree(prefix: topicPrefix + "/agents", vehicleID: clientID)
                : try TopicTree(prefix: topicPrefix, vehicleID: vehicleID)
        }
    }
}

extension AgentConfiguration {
    /// The broker address, parsed.
    public var broker: BrokerURL {
        get throws(AgentConfigurationError) {
            do {
                return try BrokerURL(parsing: brokerURL)
            } catch {
                throw AgentConfigurationError(code: "config.invalidBroker", message: error.message)
            }
        }
    }

    /// Checks everything that can be checked before connecting, with a message that names the fix.
    public func validate() throws(AgentConfigurationError) {
        _ = try topics
        let broker = try broker
        try TopicTree.validateTopicLevel(clientID, what: "client id")
        if isFleet && locationTopic != nil {
            throw AgentConfigurationError(
                code: "config.locationTopicInFleetMode", message: "--location-topic serves one vehicle, not --vehicle-id '+'")
        }
        if let locationTopic {
            guard !locationTopic.isEmpty, !locationTopic.contains("#"), !locationTopic.contains("+"),
                  !locationTopic.contains("\0") else {
                throw .invalid("location topic", locationTopic, "must be one topic name without wildcards")
            }
        }
        guard idleEvictionSeconds > 0, metricsIntervalSeconds >= 0 else {
            throw .invalid("idle eviction / metrics interval", "\(idleEvictionSeconds)/\(metricsIntervalSeconds)",
                           "must be positive")
        }
        guard outboxMaxMessages >= 10, outboxMaxBytes >= 64 << 10 else {
            throw .invalid("outbox bounds", "\(outboxMaxMessages) messages / \(outboxMaxBytes) bytes",
                           "need at least 10 messages and 65536 bytes")
        }
        try inbox.validate()
        guard (5...65_535).contains(keepAliveSeconds) else {
            throw .invalid("keepalive", String(keepAliveSeconds), "must be 5 to 65535 seconds")
        }
        if password != nil && username == nil {
            throw AgentConfigurationError(
                code: "config.passwordWithoutUser", message: "a password is set but no --username")
        }
        if !broker.usesTLS, caFile != nil || certFile != nil || keyFile != nil {
            throw AgentConfigurationError(
                code: "config.tlsOnPlainBroker",
                message: "--ca-file, --cert-file and --key-file need an mqtts:// broker URL (got \(broker))")
        }
        if (certFile == nil) != (keyFile == nil) {
            throw AgentConfigurationError(
                code: "config.incompleteClientCertificate", message: "--cert-file and --key-file go together")
        }
        for (flag, path) in [("ca-file", caFile), ("cert-file", certFile), ("key-file", keyFile), ("map", mapPath),
                             ("places-file", placesFile)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw AgentConfigurationError(code: "config.fileUnreadable", message: "--\(flag) \(path): no such readable file")
            }
        }
        if username != nil, !broker.usesTLS, !allowPlaintextCredentials, !Self.isLoopback(host: broker.host) {
            throw AgentConfigurationError(
                code: "config.plaintextCredentials",
                message: "refusing to send credentials over plain TCP to \(broker); use mqtts:// "
                    + "or pass --allow-plaintext-credentials if this network is trusted")
        }
    }

    static func isLoopback(host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The CA bundle used for mqtts:// when no --ca-file is given: Debian's system bundle.
    public static let systemCABundle = "/etc/ssl/certs/ca-certificates.crt"
}

extension AgentConfigurationError {
    /// Creates `path` (and its parents) for the agent's state, or says plainly why it cannot: "state.unwritable"
    /// with the system's reason (read-only file system, permission denied, no such parent), not Foundation's dump of
    /// the NSError.
    static func createStateDirectory(_ path: String, purpose: String) throws(AgentConfigurationError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            let nsError = error as NSError
            let underlying = (nsError.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
            let reason = [nsError.localizedDescription, underlying].compactMap { $0 }.joined(separator: ": ")
            throw AgentConfigurationError(code: "state.unwritable",
                                          message: "cannot create \(purpose) \(path) (--state-dir): \(reason)")
        }
    }
}
