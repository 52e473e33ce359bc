import Agent
import Foundation

/// Where a command writes, so tests can capture what a user would see.
public struct CommandOutput: Sendable {
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void

    public init(standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's own stdout and stderr.
    public static let process = CommandOutput(
        standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
        standardError: { FileHandle.standardError.write(Data($0.utf8)) })
}

/// Exit statuses shared by every subcommand.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// The command ran and failed: unreadable file, no route, broker refused us.
    public static let failure: Int32 = 1
    /// The command line itself was wrong.
    public static let usage: Int32 = 2
}

/// One node of the command tree: a command with options that runs, or a group of subcommands.
public struct Command: Sendable {
    public var name: String
    public var spec: CommandSpec
    public var subcommands: [Command]
    public var action: (@Sendable (ParsedArguments, CommandEnvironment) throws -> Int32)?

    public init(
        name: String, spec: CommandSpec, subcommands: [Command] = [],
        action: (@Sendable (ParsedArguments, CommandEnvironment) throws -> Int32)? = nil
    ) {
        self.name = name
        self.spec = spec
        self.subcommands = subcommands
        self.action = action
    }
}

/// What a running command may use: its environment variables and its output streams.
public struct CommandEnvironment: Sendable {
    public var variables: [String: String]
    public var output: CommandOutput

    public init(variables: [String: String], output: CommandOutput) {
        self.variables = variables
        self.output = output
    }

    public func print(_ text: String) { output.standardOutput(text + "\n") }
    public func printError(_ text: String) { output.standardError(text + "\n") }
}

/// The `edgenav` executable: finds the subcommand, parses its options and runs it.
public enum EdgeNavCommandLine {
    /// The command tree. Subcommands arrive with the issues that deliver them.
    public static var root: Command {
        let subcommands = [
            RunCommand.command, MapCommand.command, RouteCommand.command, MatchCommand.command, ReplayCommand.command,
            SimulateCommand.command, HealthCommand.command, VersionCommand.command,
        ]
        let list = subcommands.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.spec.summary)" }
        return Command(
            name: "edgenav",
            spec: CommandSpec(
                invocation: "edgenav <command>",
                summary: "EdgeNav: a headless navigation agent for vehicle fleets, connected over MQTT.",
                discussion: "commands:\n" + list.joined(separator: "\n")
                    + "\n\nRun 'edgenav <command> --help' for a command's options."),
            subcommands: subcommands)
    }

    /// Runs the command line and returns the exit status.
    public static func main(
        _ arguments: [String], environment: [String: String], output: CommandOutput = .process
    ) -> Int32 {
        let context = CommandEnvironment(variables: environment, output: output)
        var command = root
        var remaining = arguments[...]
        // Walk down the tree while the next word names a subcommand.
        while !command.subcommands.isEmpty {
            guard let word = remaining.first, !word.hasPrefix("-") else {
                if remaining.first == "--version" {
                    context.print(EdgeNavVersion.current)
                    return ExitStatus.success
                }
                let helpAsked = remaining.first == "-h" || remaining.first == "--help"
                (helpAsked ? context.print : context.printError)(command.spec.helpText.trimmingTrailingNewline)
                return helpAsked ? ExitStatus.success : ExitStatus.usage
            }
            if word == "help" {
                remaining = remaining.dropFirst()
                if remaining.isEmpty {
                    context.print(command.spec.helpText.trimmingTrailingNewline)
                    return ExitStatus.success
                }
                remaining.append("--help")
                continue
            }
            guard let next = command.subcommands.first(where: { $0.name == word }) else {
                context.printError(
                    "edgenav: " + ArgumentError.unknownSubcommand(word, known: command.subcommands.map(\.name)).description)
                return ExitStatus.usage
            }
            command = next
            remaining = remaining.dropFirst()
        }
        do {
            let parsed = try command.spec.parse(Array(remaining), environment: environment)
            if parsed.helpRequested {
                context.print(command.spec.helpText.trimmingTrailingNewline)
                return ExitStatus.success
            }
            guard let action = command.action else { return ExitStatus.failure }
            return try action(parsed, context)
        } catch let error as ArgumentError {
            context.printError("\(command.spec.invocation): \(error)")
            context.printError("Run '\(command.spec.invocation) --help' for usage.")
            return ExitStatus.usage
        } catch {
            context.printError("\(command.spec.invocation): \(error)")
            return ExitStatus.failure
        }
    }
}

/// `edgenav version`.
enum VersionCommand {
    static var command: Command {
        Command(
            name: "version",
            spec: CommandSpec(invocation: "edgenav version", summary: "Print the version."),
            action: { _, context in
                context.print(EdgeNavVersion.current)
                return ExitStatus.success
            })
    }
}

extension String {
    var trimmingTrailingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
