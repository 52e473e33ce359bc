import CMosquitto
import Foundation

/// An error from the MQTT layer, with a stable string `code` that the agent can put on its error topic
/// and a human-readable `message` (libmosquitto's own text where there is one).
///
/// Codes never change once published; messages may. Compare errors by `code`.
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, dotted identifier such as `mqtt.authFailed`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // Transport and library (from mosq_err_t).
        public static let noMemory = Code(rawValue: "mqtt.noMemory")
        public static let protocolError = Code(rawValue: "mqtt.protocolError")
        public static let invalidArgument = Code(rawValue: "mqtt.invalidArgument")
        public static let noConnection = Code(rawValue: "mqtt.noConnection")
        public static let connectionRefused = Code(rawValue: "mqtt.connectionRefused")
        public static let notFound = Code(rawValue: "mqtt.notFound")
        public static let connectionLost = Code(rawValue: "mqtt.connectionLost")
        public static let tls = Code(rawValue: "mqtt.tls")
        public static let payloadTooLarge = Code(rawValue: "mqtt.payloadTooLarge")
        public static let notSupported = Code(rawValue: "mqtt.notSupported")
        public static let authFailed = Code(rawValue: "mqtt.authFailed")
        public static let notAuthorized = Code(rawValue: "mqtt.notAuthorized")
        public static let unknown = Code(rawValue: "mqtt.unknown")
        public static let system = Code(rawValue: "mqtt.system")
        public static let brokerUnreachable = Code(rawValue: "mqtt.brokerUnreachable")
        public static let hostNotFound = Code(rawValue: "mqtt.hostNotFound")
        public static let malformed = Code(rawValue: "mqtt.malformed")
        public static let keepaliveTimeout = Code(rawValue: "mqtt.keepaliveTimeout")
        public static let timeout = Code(rawValue: "mqtt.timeout")
        public static let brokerUnavailable = Code(rawValue: "mqtt.brokerUnavailable")
        public static let clientIDRejected = Code(rawValue: "mqtt.clientIDRejected")
        public static let unsupportedProtocolVersion = Code(rawValue: "mqtt.unsupportedProtocolVersion")
        public static let sessionTakenOver = Code(rawValue: "mqtt.sessionTakenOver")
        public static let brokerShuttingDown = Code(rawValue: "mqtt.brokerShuttingDown")
        public static let rejected = Code(rawValue: "mqtt.rejected")

        // Our own layer (no libmosquitto return code behind them).
        public static let invalidURL = Code(rawValue: "mqtt.invalidURL")
        public static let invalidTopic = Code(rawValue: "mqtt.invalidTopic")
        public static let invalidConfiguration = Code(rawValue: "mqtt.invalidConfiguration")
        public static let outboxFull = Code(rawValue: "mqtt.outboxFull")
        public static let outboxIO = Code(rawValue: "mqtt.outboxIO")
        public static let notStarted = Code(rawValue: "mqtt.notStarted")
        public static let stopped = Code(rawValue: "mqtt.stopped")
    }

    public let code: Code
    /// What went wrong, in words (libmosquitto's `mosquitto_strerror` / `mosquitto_reason_string` text, or ours).
    public let message: String
    /// The libmosquitto call or protocol step that failed, e.g. `mosquitto_connect_bind_v5` or `CONNACK`.
    public let operation: String
    /// The raw libmosquitto return code (`mosq_err_t`) or MQTT reason code, when there is one.
    public let rawCode: Int32?

    public init(code: Code, message: String, operation: String, rawCode: Int32? = nil) {
        self.code = code
        self.message = message
        self.operation = operation
        self.rawCode = rawCode
    }

    public var description: String {
        let raw = rawCode.map { " (rc \($0))" } ?? ""
        return "\(code.rawValue): \(operation): \(message)\(raw)"
    }

    /// True for refusals that mean "your credentials or permissions are wrong" rather than a transport problem.
    public var isAuthenticationFailure: Bool { code == .authFailed || code == .notAuthorized }
}

// MARK: - The one choke point for libmosquitto return codes

/// Every `mosquitto_*` return code goes through here: success passes, anything else throws an `MQTTError`
/// carrying a stable code and libmosquitto's message. `errno` is read before anything else can clobber it.
@inline(__always)
func mosquittoCheck(_ returnCode: Int32, _ operation: StaticString) throws(MQTTError) {
    if returnCode == MOSQ_ERR_SUCCESS.rawValue { return }
    throw MQTTError(mosquittoReturnCode: returnCode, operation: "\(operation)", errno: errno)
}

extension MQTTError {
    /// Maps a `mosq_err_t` value (from a return code or an `on_disconnect` callback) to an error.
    /// Used by `mosquittoCheck` and by the callbacks, which receive codes rather than return them.
    init(mosquittoReturnCode rc: Int32, operation: String, errno savedErrno: Int32) {
        let text: String
        let code: Code
        switch rc {
        case MOSQ_ERR_NOMEM.rawValue: code = .noMemory
        case MOSQ_ERR_PROTOCOL.rawValue: code = .protocolError
        case MOSQ_ERR_INVAL.rawValue: code = .invalidArgument
        case MOSQ_ERR_NO_CONN.rawValue: code = .noConnection
        case MOSQ_ERR_CONN_REFUSED.rawValue: code = .connectionRefused
        case MOSQ_ERR_NOT_FOUND.rawValue: code = .notFound
        case MOSQ_ERR_CONN_LOST.rawValue: code = .connectionLost
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue, MOSQ_ERR_OCSP.rawValue: code = .tls
        case MOSQ_ERR_PAYLOAD_SIZE.rawValue, MOSQ_ERR_OVERSIZE_PACKET.rawValue: code = .payloadTooLarge
        case MOSQ_ERR_NOT_SUPPORTED.rawValue, MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue,
            MOSQ_ERR_RETAIN_NOT_SUPPORTED.rawValue:
            code = .notSupported
        case MOSQ_ERR_AUTH.rawValue: code = .authFailed
        case MOSQ_ERR_ACL_DENIED.rawValue: code = .notAuthorized
        case MOSQ_ERR_EAI.rawValue, MOSQ_ERR_LOOKUP.rawValue: code = .hostNotFound
        case MOSQ_ERR_MALFORMED_UTF8.rawValue, MOSQ_ERR_MALFORMED_PACKET.rawValue,
            MOSQ_ERR_DUPLICATE_PROPERTY.rawValue:
            code = .malformed
        case MOSQ_ERR_KEEPALIVE.rawValue: code = .keepaliveTimeout
        case MOSQ_ERR_TIMEOUT.rawValue: code = .timeout
        case MOSQ_ERR_ERRNO.rawValue:
            switch savedErrno {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT: code = .brokerUnreachable
            case ECONNRESET, EPIPE: code = .connectionLost
            default: code = .system
            }
        default: code = .unknown
        }
        if rc == MOSQ_ERR_ERRNO.rawValue {
            text = String(cString: strerror(savedErrno))
        } else {
            text = String(cString: mosquitto_strerror(rc))
        }
        self.init(code: code, message: text, operation: operation, rawCode: rc)
    }

    /// Maps a refused CONNACK. MQTT 5 reason codes (≥ 0x80) use `mosquitto_reason_string`;
    /// MQTT 3.1.1 return codes (1…5) use `mosquitto_connack_string`.
    init(connackCode rc: Int32, protocolVersion: MQTTProtocolVersion) {
        let code: Code
        let text: String
        if protocolVersion == .v311 || rc < 0x80 {
            switch rc {
            case 1: code = .unsupportedProtocolVersion
            case 2: code = .clientIDRejected
            case 3: code = .brokerUnavailable
            case 4: code = .authFailed
            case 5: code = .notAuthorized
            default: code = .rejected
            }
            text = String(cString: mosquitto_connack_string(rc))
        } else {
            code = MQTTError.reasonCodeTable[rc] ?? .rejected
            text = String(cString: mosquitto_reason_string(rc))
        }
        self.init(code: code, message: text, operation: "CONNACK", rawCode: rc)
    }

    /// Maps an MQTT 5 reason code on a PUBACK, SUBACK or DISCONNECT from the broker.
    init(reasonCode rc: Int32, operation: String) {
        self.init(
            code: MQTTError.reasonCodeTable[rc] ?? .rejected,
            message: String(cString: mosquitto_reason_string(rc)), operation: operation, rawCode: rc)
    }

    private static let reasonCodeTable: [Int32: Code] = [
        Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue): .unsupportedProtocolVersion,
        Int32(MQTT_RC_CLIENTID_NOT_VALID.rawValue): .clientIDRejected,
        Int32(MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue): .authFailed,
        Int32(MQTT_RC_NOT_AUTHORIZED.rawValue): .notAuthorized,
        Int32(MQTT_RC_SERVER_UNAVAILABLE.rawValue): .brokerUnavailable,
        Int32(MQTT_RC_SERVER_BUSY.rawValue): .brokerUnavailable,
        Int32(MQTT_RC_BANNED.rawValue): .notAuthorized,
        Int32(MQTT_RC_BAD_AUTHENTICATION_METHOD.rawValue): .authFailed,
        Int32(MQTT_RC_SERVER_SHUTTING_DOWN.rawValue): .brokerShuttingDown,
        Int32(MQTT_RC_KEEP_ALIVE_TIMEOUT.rawValue): .keepaliveTimeout,
        Int32(MQTT_RC_SESSION_TAKEN_OVER.rawValue): .sessionTakenOver,
        Int32(MQTT_RC_TOPIC_NAME_INVALID.rawValue): .invalidTopic,
        Int32(MQTT_RC_TOPIC_FILTER_INVALID.rawValue): .invalidTopic,
        Int32(MQTT_RC_PACKET_TOO_LARGE.rawValue): .payloadTooLarge,
        Int32(MQTT_RC_QUOTA_EXCEEDED.rawValue): .rejected,
        Int32(MQTT_RC_MALFORMED_PACKET.rawValue): .malformed,
        Int32(MQTT_RC_PROTOCOL_ERROR.rawValue): .protocolError,
    ]
}
