import Foundation
import Testing

@testable import EdgeNavCLI

/// Runs the command line the way the executable does and captures what it prints.
final class CapturedOutput: @unchecked Sendable {
    // Guarded by `lock`; commands may print from more than one thread.
    private let lock = NSLock()
    private var out = ""
    private var err = ""

    var output: CommandOutput {
        CommandOutput(
            standardOutput: { text in self.lock.withLock { self.out += text } },
            standardError: { text in self.lock.withLock { self.err += text } })
    }
    var standardOutput: String { lock.withLock { out } }
    var standardError: String { lock.withLock { err } }
}

@Suite struct EdgeNavCommandLineTests {
    func run(_ arguments: [String], environment: [String: String] = [:]) -> (Int32, CapturedOutput) {
        let captured = CapturedOutput()
        let status = EdgeNavCommandLine.main(arguments, environment: environment, output: captured.output)
        return (status, captured)
    }

    @Test func noArgumentsPrintsUsageAndFails() {
        let (status, output) = run([])
        #expect(status == ExitStatus.usage)
        #expect(output.standardError.contains("usage: edgenav <command>"))
        #expect(output.standardError.contains("run"))
    }

    @Test func topLevelHelpListsCommands() {
        let (status, output) = run(["--help"])
        #expect(status == ExitStatus.success)
        #expect(output.standardOutput.contains("run"))
        #expect(output.standardOutput.contains("version"))
    }

    @Test func unknownCommandIsNamed() {
        let (status, output) = run(["fly"])
        #expect(status == ExitStatus.usage)
        #expect(output.standardError.contains("unknown command 'fly'"))
    }

    @Test func runHelpListsEveryFlagTheIssueNames() {
        let (status, output) = run(["run", "--help"])
        #expect(status == ExitStatus.success)
        for flag in [
            "--broker", "--vehicle-id", "--map", "--state-dir", "--topic-prefix", "--keepalive", "--username",
            "--password-file", "--ca-file", "--cert-file", "--key-file", "--log-level",
        ] {
            #expect(output.standardOutput.contains(flag), "missing \(flag)")
        }
        #expect(output.standardOutput.contains("EDGENAV_BROKER"))
    }

    @Test func helpWordWorksLikeTheFlag() {
        let (status, output) = run(["help", "run"])
        #expect(status == ExitStatus.success)
        #expect(output.standardOutput.contains("usage: edgenav run"))
    }

    @Test func runWithoutVehicleIdFailsClearly() {
        let (status, output) = run(["run", "--broker", "mqtt://127.0.0.1:1"])
        #expect(status == ExitStatus.usage)
        #expect(output.standardError.contains("'--vehicle-id' is required (or set EDGENAV_VEHICLE_ID)"))
    }

    @Test func versionPrintsTheVersion() {
        let (status, output) = run(["version"])
        #expect(status == ExitStatus.success)
        #expect(!output.standardOutput.isEmpty)
    }
}
