import Foundation
import MQTT
import TestKit
import Testing

@Suite("TLS, passwords and unreachable brokers against a real mosquitto")
struct SecurityIntegrationTests {
    private func securedConfiguration(_ broker: TestBroker, clientID: String, password: String) throws
        -> MQTTConfiguration
    {
        let tls = try #require(broker.tls)
        var configuration = try testConfiguration(url: broker.url, clientID: clientID)
        configuration.tls = MQTTTLSConfiguration(
            caFile: tls.caFile, certificateFile: tls.clientCertificateFile, privateKeyFile: tls.clientKeyFile)
        configuration.credentials = MQTTCredentials(username: "vehicle", password: password)
        return configuration
    }

    @Test("mqtts with a CA, a client certificate and a password connects and delivers")
    func tlsWithClientCertificate() async throws {
        let broker = try TestBroker.secured(users: ["vehicle": "s3cret"])
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let observer = try await TestSubscriber(broker: broker, filters: ["fleet/v6/#"])
        defer { observer.stop() }

        let recorder = ClientRecorder()
        let configuration = try securedConfiguration(broker, clientID: "edgenav-tls", password: "s3cret")
        #expect(!"\(configuration)".contains("s3cret"))
        let client = try MQTTClient(
            configuration: configuration, outbox: try Outbox(directory: stateDirectory), onEvent: recorder.onEvent)
        try client.start()
        #expect(await recorder.waitForConnections(1))
        try client.publish(topic: "fleet/v6/position", payload: Array("over tls".utf8), retain: true, kind: .state)
        #expect(await client.flush(timeoutSeconds: 5))
        #expect(await observer.waitFor(count: 1, timeoutSeconds: 5))
        #expect(observer.messages.first?.payload == "over tls")
        await client.stop()

        // The broker requires a client certificate: without one, no session, and a TLS error.
        var withoutCertificate = try securedConfiguration(broker, clientID: "edgenav-nocert", password: "s3cret")
        withoutCertificate.tls?.certificateFile = nil
        withoutCertificate.tls?.privateKeyFile = nil
        let refused = ClientRecorder()
        let anonymous = try MQTTClient(
            configuration: withoutCertificate, outbox: try Outbox(directory: stateDirectory + "/nocert"),
            onEvent: refused.onEvent)
        try anonymous.start()
        #expect(await refused.waitUntil(timeoutSeconds: 10) { _ in refused.failures.count >= 2 })
        await anonymous.stop()
        #expect(refused.connectedCount == 0)
        // Depending on when the broker's alert arrives, libmosquitto reports a TLS error or a reset.
        #expect(refused.failures.allSatisfy { $0.code == .tls || $0.code == .connectionLost }, "\(refused.failures)")
    }

    @Test("hostname verification fails against a certificate for another name, with a clear TLS error")
    func hostnameMismatch() async throws {
        // Same CA, but the server certificate names only another host: the chain is fine, the name is not.
        let broker = try TestBroker.secured(users: ["vehicle": "s3cret"], certificateNames: ["broker.example.invalid"])
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }

        let recorder = ClientRecorder()
        let client = try MQTTClient(
            configuration: try securedConfiguration(broker, clientID: "edgenav-mismatch", password: "s3cret"),
            outbox: try Outbox(directory: stateDirectory + "/a"), onEvent: recorder.onEvent)
        try client.start()
        #expect(await recorder.waitUntil(timeoutSeconds: 10) { _ in recorder.failures.count >= 2 })
        await client.stop()
        #expect(recorder.connectedCount == 0)
        let failure = try #require(recorder.failures.first)
        #expect(failure.code == .tls)
        #expect(failure.message.lowercased().contains("certificate verify failed"), "\(failure)")

        // The insecure switch (off by default) skips only the name check, proving that was the failure.
        var insecure = try securedConfiguration(broker, clientID: "edgenav-insecure", password: "s3cret")
        #expect(insecure.tls?.insecureSkipHostnameVerification == false)
        insecure.tls?.insecureSkipHostnameVerification = true
        let insecureRecorder = ClientRecorder()
        let insecureClient = try MQTTClient(
            configuration: insecure, outbox: try Outbox(directory: stateDirectory + "/b"),
            onEvent: insecureRecorder.onEvent)
        try insecureClient.start()
        #expect(await insecureRecorder.waitForConnections(1))
        await insecureClient.stop()
    }

    @Test("a wrong password gives an authentication error on every attempt, and the client keeps retrying with backoff")
    func wrongPassword() async throws {
        let broker = try TestBroker.secured(users: ["vehicle": "s3cret"])
        defer { broker.stop() }
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }

        for version in [MQTTProtocolVersion.v5, .v311] {
            let recorder = ClientRecorder()
            var configuration = try securedConfiguration(broker, clientID: "edgenav-badpw", password: "wrong")
            configuration.protocolVersion = version
            #expect(!"\(configuration)".contains("wrong"))
            let client = try MQTTClient(
                configuration: configuration, outbox: try Outbox(directory: stateDirectory + "/\(version)"),
                onEvent: recorder.onEvent)
            try client.start()
            #expect(await recorder.waitUntil(timeoutSeconds: 10) { _ in recorder.failures.count >= 4 })
            await client.stop()
            let failures = recorder.failures
            #expect(recorder.connectedCount == 0)
            // mosquitto answers a bad password with "not authorized" (v5 reason 135, v3 return code 5).
            #expect(
                failures.allSatisfy { $0.code == .notAuthorized || $0.code == .authFailed },
                "MQTT \(version): \(failures)")
            #expect(failures.allSatisfy { $0.isAuthenticationFailure })
            #expect(failures.first?.operation == "CONNACK")
            #expect(failures.first?.message.lowercased().contains("authori") == true)
            // Backoff grows (0.1, 0.2, 0.4 s minus up to 20 % jitter) and is capped at 0.5 s.
            let delays = recorder.failureDelays
            #expect(
                delays.prefix(3).enumerated().allSatisfy { index, delay in
                    let base = [0.1, 0.2, 0.4][index]
                    return delay <= base && delay >= base * 0.8
                }, "\(delays)")
            #expect(delays.allSatisfy { $0 <= 0.5 })
        }
    }

    @Test("an unreachable broker gives mqtt.brokerUnreachable, retries, and stops cleanly")
    func unreachableBroker() async throws {
        let port = try TestTools.freeLoopbackPort()  // nothing listens here
        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let recorder = ClientRecorder()
        let client = try MQTTClient(
            configuration: try testConfiguration(url: "mqtt://127.0.0.1:\(port)", clientID: "edgenav-nobroker"),
            outbox: try Outbox(directory: stateDirectory), onEvent: recorder.onEvent)
        try client.start()
        try client.publish(topic: "fleet/v7/events", payload: Array("kept".utf8), retain: false, kind: .event)
        #expect(await recorder.waitUntil(timeoutSeconds: 10) { _ in recorder.failures.count >= 3 })
        #expect(recorder.failures.allSatisfy { $0.code == .brokerUnreachable })
        #expect(recorder.failures.first?.message.contains("refused") == true)
        #expect(await client.flush(timeoutSeconds: 0.2) == false)
        #expect(await client.stop() == false)
        #expect(client.outbox.count == 1)
        #expect(recorder.snapshot.last == .stopped(nil))
    }

    @Test("a listener that never answers CONNECT gives mqtt.timeout after the connect timeout, and retries")
    func silentListener() async throws {
        // A socket that listens but never accepts: the kernel completes TCP handshakes, nobody speaks MQTT.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(bound == 0)
        #expect(listen(fd, 16) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let stateDirectory = try temporaryStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        var configuration = try testConfiguration(url: "mqtt://127.0.0.1:\(port)", clientID: "edgenav-silent")
        configuration.connectTimeoutSeconds = 0.3
        let recorder = ClientRecorder()
        let client = try MQTTClient(
            configuration: configuration, outbox: try Outbox(directory: stateDirectory), onEvent: recorder.onEvent)
        try client.start()
        #expect(await recorder.waitUntil(timeoutSeconds: 10) { _ in recorder.failures.count >= 2 })
        await client.stop()
        #expect(recorder.connectedCount == 0)
        #expect(recorder.failures.allSatisfy { $0.code == .timeout }, "\(recorder.failures)")
    }
}
