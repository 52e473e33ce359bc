import Agent
import Foundation

/// `edgenav health`: a container HEALTHCHECK / monitoring probe that reads only the agent's `health.json`.
enum HealthCommand {
    static let spec = CommandSpec(
        invocation: "edgenav health",
        summary: "Exit 0 when the agent using this state directory is running, responsive and connected.",
        discussion: """
            Reads <state-dir>/health.json, which a running agent rewrites every few seconds while its MQTT
            network loop is alive and on every connection change. Healthy (exit 0) when the file was updated
            within --max-age seconds, its process is alive, and the agent is connected to the broker or has
            been away from it for less than --disconnected-grace seconds. Otherwise exit 1. Either way it prints
            one JSON line: {"code":"health.ok|health.noFile|health.stale|health.notRunning|health.disconnected",
            "message":…,"report":{…the file…}}.
            """,
        options: [
            OptionSpec("state-dir", value: "DIR", default: "./edgenav-state", help: "the agent's --state-dir"),
            OptionSpec("max-age", value: "SECONDS", default: "30", help: "older reports count as a hung agent"),
            OptionSpec("disconnected-grace", value: "SECONDS", default: "60",
                       help: "how long the agent may be away from the broker and still count as healthy"),
        ])

    static var command: Command {
        Command(name: "health", spec: spec) { arguments, context in
            let directory = arguments.string("state-dir") ?? "./edgenav-state"
            let maxAge = try arguments.double("max-age", in: 1...86_400) ?? 30
            let grace = try arguments.double("disconnected-grace", in: 0...31_536_000) ?? 60
            let path = directory + "/" + HealthReport.fileName
            let text = try? String(contentsOfFile: path, encoding: .utf8)
            let report = text.flatMap(HealthReport.init(json:))
            let now = Date()
            let verdict = HealthVerdict.judge(
                report, now: now, isProcessAlive: { pid in kill(pid, 0) == 0 || errno == EPERM },
                maxAgeSeconds: maxAge, disconnectedGraceSeconds: grace)
            let message: String
            switch verdict {
            case .healthy: message = "agent \(report?.pid ?? 0) is \(report?.state.rawValue ?? "?")"
            case .noFile: message = text == nil ? "no readable \(path): is an agent running with this --state-dir?"
                : "\(path) is not a health report"
            case .stale(let age): message = String(format: "the report is %.0f s old (max %.0f s): the agent is hung", age, maxAge)
            case .notRunning(let pid): message = "process \(pid) that wrote the report is not running"
            case .disconnected(let seconds):
                message = String(format: "away from the broker for %.0f s (grace %.0f s)", seconds, grace)
            }
            var fields: [(String, JSONValue)] = [("code", .string(verdict.code)), ("message", .string(message))]
            if let report { fields.append(("report", report.jsonValue)) }
            context.print(JSONValue.object(fields).text)
            return verdict == .healthy ? ExitStatus.success : 1
        }
    }
}
