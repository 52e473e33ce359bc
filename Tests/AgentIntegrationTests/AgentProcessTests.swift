import Foundation
import Testing
import TestKit

/// `edgenav run` as a user runs it: a real process against a real mosquitto, watched by an
/// independent `mosquitto_sub`.
@Suite(.serialized) struct AgentProcessTests {
    /// The `edgenav` binary built beside this test bundle.
    static var executable: String {
        get throws {
            var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            if directory.lastPathComponent == "MacOS" {
                directory = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            }
            let candidate = directory.appendingPathComponent("edgenav").path
            guard FileManager.default.isExecutableFile(atPath: candidate) else {
                throw TestBrokerError("edgenav is not built at \(candidate); run 'swift build' first")
            }
            return candidate
        }
    }

    /// Starts `edgenav run` with `arguments`; stderr (the JSON log) goes to a file for diagnosis.
    static func startAgent(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable)
        process.arguments = ["run"] + arguments
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EDGENAV_") }
        variables.merge(environment) { $1 }
        process.environment = variables
        let logPath = try TestTools.makeTemporaryDirectory(prefix: "edgenav-agent-log") + "/agent.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        return (process, logPath)
    }

    static func status(_ message: TestSubscriber.Message) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func onlineIsRetainedAndKillNineLeavesTheWillWithinOneAndAHalfKeepalives() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDir = try TestTools.makeTemporaryDirectory(prefix: "edgenav-state")
        let keepalive = 5.0
        let (agent, log) = try Self.startAgent([
            "--broker", broker.url, "--vehicle-id", "van-9", "--state-dir", stateDir, "--keepalive", "5",
        ])
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }

        // A subscriber that arrives after the agent sees the retained online status.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let late = try await TestSubscriber(broker: broker, filters: ["fleet/#"], persistent: false)
        defer { late.stop() }
        let sawOnline = await late.waitUntil(timeoutSeconds: 10) { messages in
            messages.contains { $0.topic == "fleet/van-9/agent/status" && $0.retain && $0.payload.contains("\"online\"") }
        }
        #expect(sawOnline, "no retained online status; agent log:\n\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let online = try #require(late.messages(on: "fleet/van-9/agent/status").last)
        #expect(Self.status(online)["vehicleId"] as? String == "van-9")
        #expect(Self.status(online)["version"] as? String != nil)

        let killedAt = Date()
        kill(agent.processIdentifier, SIGKILL)
        agent.waitUntilExit()
        let sawWill = await late.waitUntil(timeoutSeconds: keepalive * 1.5 + 2) { messages in
            messages.contains { $0.topic == "fleet/van-9/agent/status" && $0.payload.contains("\"connectionLost\"") }
        }
        let elapsed = Date().timeIntervalSince(killedAt)
        #expect(sawWill)
        // The broker allows 1.5 × keepalive of silence; our subscriber polls every 10 ms.
        #expect(elapsed <= keepalive * 1.5 + 0.5, "the will came \(elapsed) s after kill -9")

        // And a fresh subscriber now finds offline retained.
        let after = try await TestSubscriber(broker: broker, filters: ["fleet/van-9/agent/status"], persistent: false)
        defer { after.stop() }
        #expect(await after.waitUntil(timeoutSeconds: 5) { $0.last?.payload.contains("\"offline\"") == true })
    }

    /// A frozen agent (SIGSTOP) keeps its socket open and says nothing: the broker must notice by
    /// keepalive alone, as with a dead radio link, and publish the will after 1.5 × keepalive.
    @Test func aSilentAgentIsDeclaredOfflineByKeepalive() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let watcher = try await TestSubscriber(broker: broker, filters: ["fleet/#"], persistent: false)
        defer { watcher.stop() }
        let stateDir = try TestTools.makeTemporaryDirectory(prefix: "edgenav-state")
        let keepalive = 5.0
        let (agent, _) = try Self.startAgent([
            "--broker", broker.url, "--vehicle-id", "van-4", "--state-dir", stateDir, "--keepalive", "5",
        ])
        defer {
            kill(agent.processIdentifier, SIGKILL)
            kill(agent.processIdentifier, SIGCONT)
        }
        #expect(await watcher.waitUntil(timeoutSeconds: 10) { $0.contains { $0.payload.contains("\"online\"") } })
        let stoppedAt = Date()
        kill(agent.processIdentifier, SIGSTOP)
        // The will must come because of the 5 s keepalive (the default is 30 s: 45 s and more). Mosquitto 2.0
        // checks keepalives on a coarse timer (a frozen `mosquitto_sub -k 5` got its will 9.6 s after SIGSTOP on
        // an idle machine, 12.9 s under load): allow that slack, not the default's 45 s.
        let sawWill = await watcher.waitUntil(timeoutSeconds: keepalive * 1.5 + 12) { messages in
            messages.contains { $0.payload.contains("\"connectionLost\"") }
        }
        let elapsed = Date().timeIntervalSince(stoppedAt)
        #expect(sawWill, "no will \(elapsed) s after the agent fell silent")
    }

    @Test func sigtermPublishesOfflineItselfAndExitsZero() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let watcher = try await TestSubscriber(broker: broker, filters: ["acme/#"], persistent: false)
        defer { watcher.stop() }
        let stateDir = try TestTools.makeTemporaryDirectory(prefix: "edgenav-state")
        let (agent, _) = try Self.startAgent(
            ["--vehicle-id", "van-3", "--state-dir", stateDir],
            environment: ["EDGENAV_BROKER": broker.url, "EDGENAV_TOPIC_PREFIX": "acme/eu"])
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }
        #expect(await watcher.waitUntil(timeoutSeconds: 10) { $0.contains { $0.payload.contains("\"online\"") } })

        agent.terminate()  // SIGTERM
        agent.waitUntilExit()
        #expect(agent.terminationStatus == 0)
        #expect(await watcher.waitUntil(timeoutSeconds: 5) { $0.contains { $0.payload.contains("\"shutdown\"") } })
        let statuses = watcher.messages(on: "acme/eu/van-3/agent/status")
        #expect(statuses.map { Self.status($0)["state"] as? String } == ["online", "offline"])
        // A clean disconnect: the broker must not publish the will as well.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        #expect(!watcher.messages.contains { $0.payload.contains("connectionLost") })
    }

    /// Runs `edgenav health` against `stateDir`; returns its exit status and printed JSON line.
    static func health(_ stateDir: String, _ extra: [String] = []) throws -> (Int32, [String: Any]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable)
        process.arguments = ["health", "--state-dir", stateDir] + extra
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    @Test func healthFileHealthCommandAndSdNotifyFollowTheConnection() async throws {
        let broker = try TestBroker.plain()
        defer { broker.stop() }
        let stateDir = try TestTools.makeTemporaryDirectory(prefix: "edgenav-state")
        #expect(try Self.health(stateDir).1["code"] as? String == "health.noFile")
        let notify = try NotifySocket(path: "@edgenav-test-\(UUID().uuidString.prefix(8))")
        let (agent, log) = try Self.startAgent(
            ["--vehicle-id", "van-9", "--state-dir", stateDir, "--keepalive", "5"],
            environment: ["EDGENAV_BROKER": broker.url, "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "4000000"])
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }
        #expect(notify.receive(containing: "READY=1", timeoutSeconds: 10) != nil, "no READY=1; log: \(log)")
        #expect(notify.receive(containing: "STATUS=connected", timeoutSeconds: 10) != nil)
        // WATCHDOG_USEC 4 s: pings at least every 2 s.
        #expect(notify.receive(containing: "WATCHDOG=1", timeoutSeconds: 5) != nil)

        var status: (Int32, [String: Any]) = (1, [:])
        for _ in 0..<50 {
            status = try Self.health(stateDir)
            if status.0 == 0 { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(status.0 == 0, "\(status.1)")
        let report = status.1["report"] as? [String: Any]
        #expect(report?["state"] as? String == "connected")
        #expect(report?["pid"] as? Int == Int(agent.processIdentifier))

        // The broker goes away: the file says so at once; past the grace, `health` fails with a stable code.
        broker.stop()
        #expect(notify.receive(containing: "STATUS=reconnecting", timeoutSeconds: 10) != nil)
        var away: (Int32, [String: Any]) = (0, [:])
        for _ in 0..<50 {
            away = try Self.health(stateDir, ["--disconnected-grace", "0"])
            if away.0 != 0 { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(away.0 == 1)
        #expect(away.1["code"] as? String == "health.disconnected")
        #expect(try Self.health(stateDir).0 == 0, "within the default 60 s grace an outage is still healthy")

        agent.terminate()
        #expect(notify.receive(containing: "STOPPING=1", timeoutSeconds: 10) != nil)
        agent.waitUntilExit()
        #expect(try Self.health(stateDir).1["code"] as? String == "health.notRunning")
    }

    @Test func tlsAndPasswordFromAFileReachASecuredBroker() async throws {
        let broker = try TestBroker.secured(users: ["van-5": "correct horse"], requireClientCertificate: true)
        defer { broker.stop() }
        let tls = try #require(broker.tls)
        let stateDir = try TestTools.makeTemporaryDirectory(prefix: "edgenav-state")
        let passwordFile = stateDir + "/password"
        try "correct horse\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let (agent, log) = try Self.startAgent([
            "--broker", broker.url, "--vehicle-id", "van-5", "--state-dir", stateDir + "/state",
            "--username", "van-5", "--password-file", passwordFile, "--ca-file", tls.caFile,
            "--cert-file", tls.clientCertificateFile, "--key-file", tls.clientKeyFile,
        ])
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }
        let watcher = try await TestSubscriber(broker: broker, filters: ["fleet/#"], persistent: false)
        defer { watcher.stop() }
        let online = await watcher.waitUntil(timeoutSeconds: 10) { $0.contains { $0.payload.contains("\"online\"") } }
        let logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(online, "agent log:\n\(logText)")
        #expect(!logText.contains("correct horse"), "the password reached the log")
        agent.terminate()
        agent.waitUntilExit()
    }

    @Test func plaintextCredentialsToARemoteBrokerAreRefusedBeforeConnecting() throws {
        let stateDir = try TestTools.makeTemporaryDirectory(prefix: "edgenav-state")
        let (agent, log) = try Self.startAgent(
            ["--broker", "mqtt://192.0.2.10:1883", "--vehicle-id", "van-1", "--state-dir", stateDir,
             "--username", "van-1"],
            environment: ["EDGENAV_PASSWORD": "topsecret"])
        agent.waitUntilExit()
        #expect(agent.terminationStatus != 0)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("refusing to send credentials over plain TCP"))
        #expect(!text.contains("topsecret"))
    }
}
