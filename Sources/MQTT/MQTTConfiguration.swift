/// MQTT protocol level spoken to the broker.
public enum MQTTProtocolVersion: Int32, Sendable, CustomStringConvertible {
    case v311 = 4
    case v5 = 5
    public var description: String { self == .v5 ? "5" : "3.1.1" }
}

/// MQTT quality of service. The outbox always publishes at QoS 1; subscriptions may choose.
public enum MQTTQoS: Int32, Sendable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2
}

/// A secret string (a password) that never appears in `description`, `debugDescription`, `dump` or
/// string interpolation. Read the value with `.revealed` at the single place that needs it.
public struct MQTTSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public let revealed: String
    public init(_ value: String) { revealed = value }
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Username and password for the broker. The password is passed in as a value (the CLI reads it from a
/// file or an environment variable) and is redacted from every description.
public struct MQTTCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var username: String
    public var password: MQTTSecret?
    public init(username: String, password: String?) {
        self.username = username
        self.password = password.map(MQTTSecret.init)
    }
    public var description: String {
        "MQTTCredentials(username: \(username), password: \(password == nil ? "none" : "<redacted>"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": password as Any], displayStyle: .struct)
    }
}

/// TLS settings for `mqtts://` brokers.
public struct MQTTTLSConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// PEM file with the CA certificate(s) that signed the broker's certificate.
    public var caFile: String
    /// PEM client certificate and its private key, for brokers that require client certificates.
    public var certificateFile: String?
    public var privateKeyFile: String?
    /// Skips checking that the broker's certificate names the host we connect to. Off by default;
    /// turning it on makes a man-in-the-middle possible with any certificate from the same CA.
    public var insecureSkipHostnameVerification: Bool

    public init(
        caFile: String, certificateFile: String? = nil, privateKeyFile: String? = nil,
        insecureSkipHostnameVerification: Bool = false
    ) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.insecureSkipHostnameVerification = insecureSkipHostnameVerification
    }

    public var description: String {
        var parts = ["caFile: \(caFile)"]
        if let certificateFile { parts.append("certificateFile: \(certificateFile)") }
        if privateKeyFile != nil { parts.append("privateKeyFile: <set>") }
        if insecureSkipHostnameVerification { parts.append("INSECURE: hostname verification off") }
        return "MQTTTLSConfiguration(\(parts.joined(separator: ", ")))"
    }
}

/// A message the client publishes by itself: the Last Will (sent by the broker if we vanish) or the
/// birth message (sent by us, first, on every connect). Always QoS 1.
public struct MQTTStatusMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool
    public init(topic: String, payload: [UInt8], retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }
    public init(topic: String, text: String, retain: Bool = true) {
        self.init(topic: topic, payload: Array(text.utf8), retain: retain)
    }
}

/// Reconnect timing. Delays grow `initialDelaySeconds × multiplier^(failures−1)` up to `maxDelaySeconds`,
/// and each is shortened by a random fraction of up to `jitterFraction` so a fleet does not reconnect in step.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Delay after the first failure, in seconds. Default 1 s.
    public var initialDelaySeconds: Double
    /// Upper bound on any delay, in seconds. Default 60 s.
    public var maxDelaySeconds: Double
    /// Growth factor per consecutive failure. Default 2.
    public var multiplier: Double
    /// Largest fraction (0…1) removed from a delay at random. Default 0.2 (a delay of 10 s becomes 8…10 s).
    public var jitterFraction: Double

    public init(
        initialDelaySeconds: Double = 1, maxDelaySeconds: Double = 60, multiplier: Double = 2,
        jitterFraction: Double = 0.2
    ) {
        self.initialDelaySeconds = initialDelaySeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.multiplier = multiplier
        self.jitterFraction = jitterFraction
    }
}

/// Everything `MQTTClient` needs to reach and talk to a broker. Safe to log: the password is redacted.
public struct MQTTConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public var broker: BrokerURL
    /// Client identifier; also names the persistent session on the broker, so keep it stable per vehicle.
    public var clientID: String
    /// Default MQTT 5.
    public var protocolVersion: MQTTProtocolVersion = .v5
    /// Keepalive interval in seconds (PINGREQ when idle; the broker drops us after 1.5×). Default 30 s.
    public var keepAliveSeconds: Int = 30
    public var credentials: MQTTCredentials? = nil
    /// Required for `mqtts://`; ignored for `mqtt://`.
    public var tls: MQTTTLSConfiguration? = nil
    /// Last Will, published by the broker if the connection dies without a clean DISCONNECT.
    public var will: MQTTStatusMessage? = nil
    /// Published first on every (re)connect, before resubscribing and flushing the outbox.
    public var birth: MQTTStatusMessage? = nil
    /// Start a new session on each connect (discarding subscriptions and queued messages on the broker).
    /// Default false: a persistent session, so QoS 1 messages for our subscriptions wait while we are away.
    public var cleanStart: Bool = false
    /// MQTT 5 Session Expiry Interval in seconds: how long the broker keeps our session after a disconnect.
    /// Default 86 400 s (one day). Ignored for 3.1.1, where `cleanStart == false` means "keep the session".
    public var sessionExpiryIntervalSeconds: UInt32 = 86_400
    public var reconnect: ReconnectPolicy = ReconnectPolicy()
    /// How long to wait for CONNACK (TLS handshake included) after the TCP connect, in seconds. Default 10 s.
    public var connectTimeoutSeconds: Double = 10
    /// How many outbox messages may await PUBACK at once. Default 64.
    public var maxInflightMessages: Int = 64

    public init(broker: BrokerURL, clientID: String) {
        self.broker = broker
        self.clientID = clientID
    }

    public var description: String {
        var parts = [
            "broker: \(broker)", "clientID: \(clientID)", "protocol: MQTT \(protocolVersion)",
            "keepAliveSeconds: \(keepAliveSeconds)",
        ]
        if let credentials { parts.append("credentials: \(credentials)") }
        if let tls { parts.append("tls: \(tls)") }
        if let will { parts.append("will: \(will.topic)") }
        if let birth { parts.append("birth: \(birth.topic)") }
        parts.append(
            cleanStart ? "cleanStart: true" : "sessionExpiryIntervalSeconds: \(sessionExpiryIntervalSeconds)")
        return "MQTTConfiguration(\(parts.joined(separator: ", ")))"
    }
    public var debugDescription: String { description }

    /// Checks what can be checked without a broker. Called by `MQTTClient.init`.
    public func validate() throws(MQTTError) {
        func invalid(_ text: String) -> MQTTError {
            MQTTError(code: .invalidConfiguration, message: text, operation: "MQTTConfiguration")
        }
        if clientID.isEmpty || clientID.utf8.count > 65535 { throw invalid("clientID must be 1…65535 bytes") }
        if !(5...65535).contains(keepAliveSeconds) { throw invalid("keepAliveSeconds must be 5…65535") }
        if broker.usesTLS && tls == nil { throw invalid("mqtts:// needs a TLS configuration (CA file)") }
        if let tls, (tls.certificateFile == nil) != (tls.privateKeyFile == nil) {
            throw invalid("a client certificate needs its private key and vice versa")
        }
        if reconnect.initialDelaySeconds <= 0 || reconnect.maxDelaySeconds < reconnect.initialDelaySeconds
            || reconnect.multiplier < 1 || !(0...1).contains(reconnect.jitterFraction)
        {
            throw invalid("reconnect policy needs 0 < initial ≤ max, multiplier ≥ 1, jitter in 0…1")
        }
        if maxInflightMessages < 1 || maxInflightMessages > 65535 { throw invalid("maxInflightMessages 1…65535") }
        if connectTimeoutSeconds <= 0 { throw invalid("connectTimeoutSeconds must be positive") }
    }
}
