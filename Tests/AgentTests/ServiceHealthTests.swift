import Foundation
import TestKit
import Testing

@testable import Agent

@Suite struct HealthReportTests {
    let t0 = Date(timeIntervalSince1970: 1_796_000_000.25)

    func report(_ state: HealthReport.ConnectionState, since: Double = 0, updated: Double = 0) -> HealthReport {
        HealthReport(pid: 4242, version: "0.2.0", state: state, since: t0 + since, updatedAt: t0 + updated,
                     lastConnAckAt: state == .connected ? t0 + since : nil, lastBrokerPacketAt: nil,
                     outboxMessages: 3, map: "helsinki.graph")
    }

    @Test func theFileRoundTrips() throws {
        let original = report(.connected, since: -10)
        let parsed = try #require(HealthReport(json: original.json))
        #expect(parsed == original)
        #expect(original.json.contains("\"lastBrokerPacketAt\":null"))
        #expect(HealthReport(json: "{\"schemaVersion\":2}") == nil)
        #expect(HealthReport(json: "not json") == nil)
    }

    @Test func theFileIsReplacedAtomically() throws {
        let directory = NSTemporaryDirectory() + "edgenav-health-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try report(.connecting).write(toDirectory: directory)
        try report(.connected).write(toDirectory: directory)
        let text = try String(contentsOfFile: directory + "/health.json", encoding: .utf8)
        #expect(HealthReport(json: text)?.state == .connected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["health.json"])
    }

    @Test func verdicts() {
        let alive: (Int32) -> Bool = { $0 == 4242 }
        let now = t0 + 5
        #expect(HealthVerdict.judge(nil, now: now, isProcessAlive: alive) == .noFile)
        #expect(HealthVerdict.judge(report(.connected), now: now, isProcessAlive: alive) == .healthy)
        #expect(HealthVerdict.judge(report(.connected), now: now, isProcessAlive: { _ in false }) == .notRunning(pid: 4242))
        #expect(HealthVerdict.judge(report(.connected), now: t0 + 31, isProcessAlive: alive, maxAgeSeconds: 30)
                == .stale(ageSeconds: 31))
        // Away from the broker: healthy within the grace, not after it.
        #expect(HealthVerdict.judge(report(.connecting, since: -59), now: t0, isProcessAlive: alive,
                                    disconnectedGraceSeconds: 60) == .healthy)
        #expect(HealthVerdict.judge(report(.disconnected, since: -61), now: t0, isProcessAlive: alive,
                                    disconnectedGraceSeconds: 60) == .disconnected(forSeconds: 61))
        #expect(HealthVerdict.judge(report(.disconnected), now: now, isProcessAlive: alive).code == "health.ok")
        #expect(HealthVerdict.noFile.code == "health.noFile")
    }
}

@Suite struct ServiceNotifierTests {
    @Test func sendsTheSdNotifyMessagesToAPathSocket() throws {
        let path = NSTemporaryDirectory() + "edgenav-notify-\(UUID().uuidString.prefix(8))"
        let listener = try NotifySocket(path: path)
        let notifier = ServiceNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000"])
        #expect(notifier.isActive)
        #expect(notifier.watchdogIntervalSeconds == 20)
        notifier.ready(status: "connecting to mqtt://127.0.0.1:1883")
        #expect(listener.receive() == "READY=1\nSTATUS=connecting to mqtt://127.0.0.1:1883")
        notifier.watchdog()
        #expect(listener.receive() == "WATCHDOG=1")
        notifier.stopping()
        #expect(listener.receive() == "STOPPING=1\nSTATUS=stopping")
    }

    @Test func reachesAnAbstractSocket() throws {
        let name = "@edgenav-notify-\(UUID().uuidString.prefix(8))"
        let listener = try NotifySocket(path: name)
        let notifier = ServiceNotifier(environment: ["NOTIFY_SOCKET": name])
        #expect(notifier.watchdogIntervalSeconds == nil)
        notifier.status("connected")
        #expect(listener.receive() == "STATUS=connected")
    }

    @Test func withoutNotifySocketNothingIsSentAndAForeignWatchdogIsIgnored() {
        #expect(!ServiceNotifier(environment: [:]).send("READY=1"))
        let foreign = ServiceNotifier(environment: ["NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"])
        #expect(foreign.watchdogIntervalSeconds == (getpid() == 1 ? 1 : nil))
    }
}
