/// A small command-line parser: options by flag or by `EDGENAV_*` environment variable (flags win),
/// positionals, `--help`, and a help text that lists every option with its variable and default.
///
/// It is ours because the project takes no third-party Swift packages; it deliberately supports only
/// what EdgeNav's subcommands need: `--name value`, `--name=value`, boolean `--flag`, `--` to end
/// options, and positionals.

/// One option of a command.
public struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes: `broker` is written `--broker`.
    public var name: String
    /// The name shown for the value in help (`URL`, `SECONDS`); `nil` makes this a boolean flag.
    public var valueName: String?
    /// The default used when neither the flag nor its environment variable is given.
    public var defaultValue: String?
    /// The environment variable that sets the option; derived from the name when not given.
    public var environmentVariable: String?
    public var help: String

    public init(
        _ name: String, value valueName: String? = nil, default defaultValue: String? = nil,
        environment: String? = nil, help: String
    ) {
        self.name = name
        self.valueName = valueName
        self.defaultValue = defaultValue
        self.environmentVariable =
            environment ?? "EDGENAV_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        self.help = help
    }

    public var isFlag: Bool { valueName == nil }
}

/// A positional argument of a command.
public struct PositionalSpec: Sendable, Equatable {
    public var name: String
    public var help: String
    /// Whether any number (including zero) may be given; only the last positional may repeat.
    public var repeats: Bool
    public var optional: Bool

    public init(_ name: String, help: String, repeats: Bool = false, optional: Bool = false) {
        self.name = name
        self.help = help
        self.repeats = repeats
        self.optional = optional
    }
}

/// A command (or subcommand): its options, positionals and help.
public struct CommandSpec: Sendable, Equatable {
    /// The full invocation, for example `edgenav map import`.
    public var invocation: String
    public var summary: String
    public var discussion: String
    public var options: [OptionSpec]
    public var positionals: [PositionalSpec]

    public init(
        invocation: String, summary: String, discussion: String = "", options: [OptionSpec] = [],
        positionals: [PositionalSpec] = []
    ) {
        self.invocation = invocation
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
    }

    public func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }
}

/// Where a parsed value came from, so logs can say why a setting is in force.
public enum ValueSource: String, Sendable, Equatable {
    case flag, environment, `default`
}

/// The result of parsing: option values by name and the positionals in order.
public struct ParsedArguments: Sendable, Equatable {
    public var values: [String: String] = [:]
    public var sources: [String: ValueSource] = [:]
    public var positionals: [String] = []
    /// `--help` or `-h` was given: print help and do nothing else.
    public var helpRequested = false

    public init() {}

    public func string(_ name: String) -> String? { values[name] }

    /// A boolean flag: true when given on the command line, or set to `1`, `true`, `yes` or `on`
    /// in its environment variable.
    public func flag(_ name: String) -> Bool { values[name] == "true" }

    /// An integer option, with a clear error for anything else.
    public func integer(_ name: String, in range: ClosedRange<Int>? = nil) throws(ArgumentError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text) else {
            throw .invalidValue(option: name, value: text, reason: "expected a whole number")
        }
        if let range, !range.contains(value) {
            throw .invalidValue(
                option: name, value: text,
                reason: "expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A floating-point option, with a clear error for anything else (NaN and infinities refused).
    public func double(_ name: String, in range: ClosedRange<Double>? = nil) throws(ArgumentError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw .invalidValue(option: name, value: text, reason: "expected a number")
        }
        if let range, !range.contains(value) {
            throw .invalidValue(
                option: name, value: text,
                reason: "expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// A command-line mistake, with the message a user sees and exit status 2.
public enum ArgumentError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String)
    case missingValue(option: String)
    case flagTakesNoValue(option: String)
    case unexpectedArgument(String)
    case missingPositional(String)
    case missingRequired(option: String, environmentVariable: String?)
    case invalidValue(option: String, value: String, reason: String)
    case unknownSubcommand(String, known: [String])

    public var description: String {
        switch self {
        case .unknownOption(let o): return "unknown option '\(o)'"
        case .missingValue(let o): return "option '--\(o)' needs a value"
        case .flagTakesNoValue(let o): return "option '--\(o)' is a flag and takes no value"
        case .unexpectedArgument(let a): return "unexpected argument '\(a)'"
        case .missingPositional(let p): return "missing argument \(p)"
        case .missingRequired(let o, let env):
            return "option '--\(o)' is required" + (env.map { " (or set \($0))" } ?? "")
        case .invalidValue(let o, let v, let reason):
            return "invalid value '\(v)' for '--\(o)': \(reason)"
        case .unknownSubcommand(let s, let known):
            return "unknown command '\(s)' (expected one of: \(known.joined(separator: ", ")))"
        }
    }
}

extension CommandSpec {
    /// Parses `arguments` (without the invocation words) against this spec. Environment variables
    /// fill options not given as flags; defaults fill the rest.
    public func parse(_ arguments: [String], environment: [String: String]) throws(ArgumentError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                result.helpRequested = true
                continue
            }
            guard argument.hasPrefix("--") else {
                // Negative numbers are positionals (coordinates such as -33.9,18.4).
                if argument.dropFirst().first.map({ $0.isNumber || $0 == "." }) == true {
                    result.positionals.append(argument)
                    continue
                }
                throw .unknownOption(argument)
            }
            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let spec = option(named: name) else { throw .unknownOption("--" + name) }
            if spec.isFlag {
                if let inlineValue {
                    guard let truth = Self.truthValue(inlineValue) else {
                        throw .flagTakesNoValue(option: name)
                    }
                    result.values[name] = truth ? "true" : "false"
                } else {
                    result.values[name] = "true"
                }
            } else if let inlineValue {
                result.values[name] = inlineValue
            } else {
                guard index < arguments.count else { throw .missingValue(option: name) }
                result.values[name] = arguments[index]
                index += 1
            }
            result.sources[name] = .flag
        }
        if result.helpRequested { return result }

        for spec in options where result.values[spec.name] == nil {
            if let variable = spec.environmentVariable, let text = environment[variable], !text.isEmpty {
                if spec.isFlag {
                    guard let truth = Self.truthValue(text) else {
                        throw .invalidValue(option: spec.name, value: text, reason: "expected true or false in \(variable)")
                    }
                    result.values[spec.name] = truth ? "true" : "false"
                } else {
                    result.values[spec.name] = text
                }
                result.sources[spec.name] = .environment
            } else if let value = spec.defaultValue {
                result.values[spec.name] = value
                result.sources[spec.name] = .default
            }
        }

        let required = positionals.filter { !$0.optional && !$0.repeats }
        if result.positionals.count < required.count {
            throw .missingPositional(required[result.positionals.count].name)
        }
        if positionals.last?.repeats != true, result.positionals.count > positionals.count {
            throw .unexpectedArgument(result.positionals[positionals.count])
        }
        return result
    }

    /// Accepts the spellings people put in environment files.
    static func truthValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: return nil
        }
    }

    /// The help text: usage, summary, positionals, and every option with its variable and default.
    public var helpText: String {
        var usage = "usage: \(invocation)"
        if !options.isEmpty { usage += " [options]" }
        for positional in positionals {
            let shown = positional.repeats ? "\(positional.name) ..." : positional.name
            usage += positional.optional || positional.repeats ? " [\(shown)]" : " \(shown)"
        }
        var lines = [usage, "", summary]
        if !discussion.isEmpty { lines += ["", discussion] }
        if !positionals.isEmpty {
            lines += ["", "arguments:"]
            for positional in positionals {
                lines.append(Self.column("  " + positional.name, positional.help))
            }
        }
        lines += ["", "options:"]
        for option in options {
            let left = "  --\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
            var help = option.help
            var extras: [String] = []
            if let variable = option.environmentVariable { extras.append("env \(variable)") }
            if let value = option.defaultValue { extras.append("default: \(value)") }
            if !extras.isEmpty { help += " [" + extras.joined(separator: "; ") + "]" }
            lines.append(Self.column(left, help))
        }
        lines.append(Self.column("  -h, --help", "show this help"))
        return lines.joined(separator: "\n") + "\n"
    }

    private static func column(_ left: String, _ right: String) -> String {
        let width = 30
        if left.count >= width - 1 { return left + "\n" + String(repeating: " ", count: width) + right }
        return left + String(repeating: " ", count: width - left.count) + right
    }
}
