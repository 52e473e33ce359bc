import Foundation
import Testing

@testable import Agent

@Suite struct AgentConfigurationTests {
    func configuration(
        broker: String = "mqtt://127.0.0.1:1883", vehicle: String = "van-7", prefix: String = "fleet",
        username: String? = nil, password: String? = nil, caFile: String? = nil,
        allowPlaintext: Bool = false
    ) -> AgentConfiguration {
        AgentConfiguration(
            brokerURL: broker, vehicleID: vehicle, stateDirectory: "/tmp/x", topicPrefix: prefix,
            username: username, password: password, caFile: caFile, allowPlaintextCredentials: allowPlaintext)
    }

    @Test func aPlainLocalConfigurationIsValid() throws {
        try configuration().validate()
    }

    @Test(arguments: ["", "van/7", "van+", "van#", "a\0b"])
    func vehicleIdsThatWouldBreakTheTopicTreeAreRefused(vehicle: String) {
        #expect(throws: AgentConfigurationError.self) { try configuration(vehicle: vehicle).validate() }
    }

    @Test(arguments: ["", "/fleet", "fleet/", "fleet//eu", "fleet/+"])
    func badPrefixesAreRefused(prefix: String) {
        #expect(throws: AgentConfigurationError.self) { try configuration(prefix: prefix).validate() }
    }

    @Test func multiLevelPrefixIsAllowed() throws {
        let topics = try configuration(prefix: "acme/eu").topics
        #expect(topics.status == "acme/eu/van-7/agent/status")
        #expect(topics.traffic == "acme/eu/traffic")
    }

    @Test func credentialsOverPlainTCPToARemoteBrokerAreRefused() {
        do {
            try configuration(broker: "mqtt://broker.example.com:1883", username: "van", password: "s3cret").validate()
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == "config.plaintextCredentials")
            #expect(!error.message.contains("s3cret"))
        }
    }

    @Test func credentialsOverPlainTCPAreAllowedOnLoopbackOrWhenToldTo() throws {
        try configuration(broker: "mqtt://127.0.0.1:1883", username: "van", password: "pw").validate()
        try configuration(broker: "mqtt://localhost:1883", username: "van", password: "pw").validate()
        try configuration(broker: "mqtt://10.1.2.3:1883", username: "van", password: "pw", allowPlaintext: true).validate()
    }

    @Test func tlsFilesNeedAnMqttsBroker() {
        #expect(throws: AgentConfigurationError.self) {
            try configuration(broker: "mqtt://127.0.0.1:1883", caFile: "/etc/hostname").validate()
        }
    }

    @Test func aMissingCAFileIsNamed() {
        do {
            try configuration(broker: "mqtts://127.0.0.1:8883", caFile: "/nonexistent/ca.pem").validate()
            Issue.record("expected an error")
        } catch {
            #expect(error.code == "config.fileUnreadable")
            #expect(error.message.contains("/nonexistent/ca.pem"))
        }
    }

    @Test func aBadBrokerURLIsNamed() {
        do {
            try configuration(broker: "http://example.com").validate()
            Issue.record("expected an error")
        } catch {
            #expect(error.code == "config.invalidBroker")
        }
    }

    @Test func passwordIsRedactedFromTheDescription() {
        let text = String(describing: configuration(username: "van", password: "hunter2"))
        #expect(!text.contains("hunter2"))
        #expect(text.contains("<redacted>"))
    }
}

@Suite struct AgentStatusTests {
    @Test func onlinePayloadHasTheContractFieldsInOrder() throws {
        let status = AgentStatus(
            state: .online, reason: nil, vehicleID: "van-7", version: "0.1.0", mapName: "helsinki.graph",
            clientID: "edgenav-van-7", timestamp: Date(timeIntervalSince1970: 1_796_026_502.25))
        #expect(
            status.json
                == #"{"state":"online","vehicleId":"van-7","version":"0.1.0","map":"helsinki.graph","clientId":"edgenav-van-7","timestamp":"2026-11-30T08:15:02.250Z","schemaVersion":1}"#
        )
        let object = try JSONSerialization.jsonObject(with: Data(status.json.utf8)) as? [String: Any]
        #expect(object?["state"] as? String == "online")
    }

    @Test func offlineWillCarriesItsReasonAndNullMap() throws {
        let status = AgentStatus(
            state: .offline, reason: .connectionLost, vehicleID: "v\"1", version: "0.1.0", mapName: nil,
            clientID: "c", timestamp: Date(timeIntervalSince1970: 0))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.json.utf8)) as? [String: Any])
        #expect(object["reason"] as? String == "connectionLost")
        #expect(object["map"] is NSNull)
        #expect(object["vehicleId"] as? String == "v\"1")
        #expect(object["timestamp"] as? String == "1970-01-01T00:00:00.000Z")
    }
}

@Suite struct TimestampAndJSONTextTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (951_782_400.999, "2000-02-29T00:00:00.999Z"),
        (-1.5, "1969-12-31T23:59:58.500Z"),
        (4_102_444_799.0, "2099-12-31T23:59:59.000Z"),
    ])
    func isoTimestamps(seconds: Double, expected: String) {
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func jsonStringEscapesWhatRFC8259Requires() throws {
        let text = "a\"b\\c\nd\u{01}é"
        let literal = JSONText.string(text)
        #expect(literal == #""a\"b\\c\nd\u0001é""#)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
        #expect(decoded == [text])
    }
}

/// A state directory the agent cannot create: one clear error with a stable code, before anything starts.
@Suite struct UnwritableStateDirectoryTests {
    // Nothing can be created under /proc, not even by root.
    static let impossible = "/proc/edgenav-tests-\(getpid())/state"

    @Test func theRuntimeSaysWhichDirectoryAndWhy() {
        let configuration = AgentConfiguration(
            brokerURL: "mqtt://127.0.0.1:1883", vehicleID: "van-7", stateDirectory: Self.impossible)
        do {
            _ = try AgentRuntime(configuration: configuration, logger: Logger(minimumLevel: .error, sink: { _ in }))
            Issue.record("the runtime started with an unwritable state directory")
        } catch let error as AgentConfigurationError {
            #expect(error.code == "state.unwritable")
            #expect(error.message.contains(Self.impossible) && error.message.contains("--state-dir"))
            #expect(!error.message.contains("NSCocoaErrorDomain") && !error.message.contains("UserInfo"))
        } catch {
            Issue.record("not an AgentConfigurationError: \(error)")
        }
    }

    @Test func theMapsPrivateCopyDirectoryToo() throws {
        let graph = FileManager.default.temporaryDirectory.appendingPathComponent("unwritable-\(getpid()).graph").path
        defer { try? FileManager.default.removeItem(atPath: graph) }
        do {
            _ = try NavigationMap.load(path: graph, privateCopyDirectory: Self.impossible)
            Issue.record("loaded")
        } catch let error as AgentConfigurationError {
            #expect(error.code == "state.unwritable" && !error.message.contains("NSCocoaErrorDomain"))
        } catch {
            Issue.record("not an AgentConfigurationError: \(error)")
        }
    }
}
