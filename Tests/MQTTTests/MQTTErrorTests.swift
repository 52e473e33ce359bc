import CMosquitto
import Foundation
import Testing

@testable import MQTT

@Suite("MQTTError mapping")
struct MQTTErrorTests {
    private func thrown(_ rc: mosq_err_t, errno savedErrno: Int32 = 0) -> MQTTError? {
        errno = savedErrno
        do {
            try mosquittoCheck(rc.rawValue, "mosquitto_test")
            return nil
        } catch {
            return error
        }
    }

    @Test("success passes through the choke point")
    func success() {
        #expect(thrown(MOSQ_ERR_SUCCESS) == nil)
    }

    @Test(
        "libmosquitto return codes map to stable codes with libmosquitto's own message",
        arguments: [
            (MOSQ_ERR_NO_CONN, "mqtt.noConnection"),
            (MOSQ_ERR_CONN_LOST, "mqtt.connectionLost"),
            (MOSQ_ERR_TLS, "mqtt.tls"),
            (MOSQ_ERR_AUTH, "mqtt.authFailed"),
            (MOSQ_ERR_ACL_DENIED, "mqtt.notAuthorized"),
            (MOSQ_ERR_PAYLOAD_SIZE, "mqtt.payloadTooLarge"),
            (MOSQ_ERR_INVAL, "mqtt.invalidArgument"),
            (MOSQ_ERR_NOMEM, "mqtt.noMemory"),
            (MOSQ_ERR_KEEPALIVE, "mqtt.keepaliveTimeout"),
            (MOSQ_ERR_EAI, "mqtt.hostNotFound"),
            (MOSQ_ERR_MALFORMED_UTF8, "mqtt.malformed"),
            (MOSQ_ERR_PROTOCOL, "mqtt.protocolError"),
        ])
    func returnCodes(rc: mosq_err_t, code: String) throws {
        let error = try #require(thrown(rc))
        #expect(error.code.rawValue == code)
        #expect(error.message == String(cString: mosquitto_strerror(rc.rawValue)))
        #expect(error.operation == "mosquitto_test")
        #expect(error.rawCode == rc.rawValue)
    }

    @Test("MOSQ_ERR_ERRNO uses errno: a refused connection reads as an unreachable broker")
    func errnoCodes() throws {
        let refused = try #require(thrown(MOSQ_ERR_ERRNO, errno: ECONNREFUSED))
        #expect(refused.code == .brokerUnreachable)
        #expect(refused.message == "Connection refused")
        #expect(try #require(thrown(MOSQ_ERR_ERRNO, errno: ECONNRESET)).code == .connectionLost)
        #expect(try #require(thrown(MOSQ_ERR_ERRNO, errno: EACCES)).code == .system)
        #expect(try #require(thrown(MOSQ_ERR_ERRNO, errno: EPROTO)).code == .tls)
    }

    @Test(
        "CONNACK refusals: MQTT 3.1.1 return codes and MQTT 5 reason codes",
        arguments: [
            (Int32(4), MQTTProtocolVersion.v311, "mqtt.authFailed", "Connection Refused: bad user name or password."),
            (5, .v311, "mqtt.notAuthorized", "Connection Refused: not authorised."),
            (2, .v311, "mqtt.clientIDRejected", "Connection Refused: identifier rejected."),
            (3, .v311, "mqtt.brokerUnavailable", "Connection Refused: broker unavailable."),
            (134, .v5, "mqtt.authFailed", "Bad User Name or Password"),
            (135, .v5, "mqtt.notAuthorized", "Not authorized"),
            (138, .v5, "mqtt.notAuthorized", "Banned"),
            (136, .v5, "mqtt.brokerUnavailable", "Server unavailable"),
        ])
    func connack(rc: Int32, version: MQTTProtocolVersion, code: String, message: String) {
        let error = MQTTError(connackCode: rc, protocolVersion: version)
        #expect(error.code.rawValue == code)
        #expect(error.message == message)
        #expect(error.operation == "CONNACK")
        #expect(error.isAuthenticationFailure == (code == "mqtt.authFailed" || code == "mqtt.notAuthorized"))
    }

    @Test("an MQTT 5 Reason String from the broker is kept in the message, the code is unchanged")
    func brokerReason() {
        let error = MQTTError(connackCode: 135, protocolVersion: .v5).withBrokerReason("vehicle suspended")
        #expect(error.code == .notAuthorized)
        #expect(error.message == "Not authorized (broker: vehicle suspended)")
        #expect(MQTTError(connackCode: 135, protocolVersion: .v5).withBrokerReason(nil).message == "Not authorized")
    }

    @Test("description carries code, operation, message and raw code")
    func description() {
        let error = MQTTError(connackCode: 135, protocolVersion: .v5)
        #expect(error.description == "mqtt.notAuthorized: CONNACK: Not authorized (rc 135)")
    }
}

@Suite("MQTTConfiguration")
struct MQTTConfigurationTests {
    private func configuration() throws -> MQTTConfiguration {
        var configuration = MQTTConfiguration(broker: try BrokerURL(parsing: "mqtts://broker:8883"), clientID: "v1")
        configuration.credentials = MQTTCredentials(username: "vehicle-1", password: "correct horse battery")
        configuration.tls = MQTTTLSConfiguration(
            caFile: "/etc/ca.pem", certificateFile: "/c.pem", privateKeyFile: "/k.pem")
        return configuration
    }

    @Test("the password never appears in description, debugDescription, interpolation or dump")
    func redaction() throws {
        let configuration = try configuration()
        var dumped = ""
        dump(configuration, to: &dumped)
        var dumpedCredentials = ""
        dump(configuration.credentials, to: &dumpedCredentials)
        let renderings = [
            configuration.description, configuration.debugDescription, "\(configuration)",
            String(reflecting: configuration), dumped, dumpedCredentials, "\(configuration.credentials!)",
            String(reflecting: configuration.credentials!), "\(configuration.credentials!.password!)",
        ]
        for rendering in renderings {
            #expect(!rendering.contains("correct horse"), "\(rendering)")
        }
        #expect(configuration.description.contains("vehicle-1"))
        #expect(configuration.description.contains("<redacted>"))
        #expect(configuration.credentials?.password?.revealed == "correct horse battery")
    }

    @Test("defaults: MQTT 5, persistent session, hostname verification on")
    func defaults() throws {
        let configuration = MQTTConfiguration(broker: try BrokerURL(parsing: "mqtt://b"), clientID: "v1")
        #expect(configuration.protocolVersion == .v5)
        #expect(configuration.cleanStart == false)
        #expect(configuration.sessionExpiryIntervalSeconds > 0)
        #expect(MQTTTLSConfiguration(caFile: "/ca").insecureSkipHostnameVerification == false)
        try configuration.validate()
    }

    @Test("validation catches what it can before connecting")
    func validation() throws {
        var noTLS = MQTTConfiguration(broker: try BrokerURL(parsing: "mqtts://b"), clientID: "v1")
        #expect(throws: MQTTError.self) { try noTLS.validate() }
        noTLS.tls = MQTTTLSConfiguration(caFile: "/ca", certificateFile: "/c.pem")
        #expect { try noTLS.validate() } throws: { ($0 as? MQTTError)?.message.contains("private key") == true }
        noTLS.tls = MQTTTLSConfiguration(caFile: "/nonexistent/ca.pem")
        #expect { try noTLS.validate() } throws: {
            ($0 as? MQTTError)?.message == "TLS caFile /nonexistent/ca.pem is not a readable file"
        }
        var keepalive = MQTTConfiguration(broker: try BrokerURL(parsing: "mqtt://b"), clientID: "v1")
        keepalive.keepAliveSeconds = 1
        #expect { try keepalive.validate() } throws: { ($0 as? MQTTError)?.code == .invalidConfiguration }
        let emptyID = MQTTConfiguration(broker: try BrokerURL(parsing: "mqtt://b"), clientID: "")
        #expect { try emptyID.validate() } throws: { ($0 as? MQTTError)?.code == .invalidConfiguration }
    }

    @Test("the client rejects invalid topics up front")
    func topicValidation() throws {
        let directory = StateDirectory()
        let client = try MQTTClient(
            configuration: MQTTConfiguration(broker: try BrokerURL(parsing: "mqtt://127.0.0.1:1"), clientID: "v1"),
            outbox: try Outbox(directory: directory.path))
        #expect { try client.publish(topic: "fleet/+/x", payload: [], retain: false, kind: .event) } throws: {
            ($0 as? MQTTError)?.code == .invalidTopic
        }
        #expect { try client.subscribe("fleet/#/x") } throws: { ($0 as? MQTTError)?.code == .invalidTopic }
        try client.subscribe("fleet/+/cmd/#")
        #expect(client.outbox.isEmpty)
    }
}
