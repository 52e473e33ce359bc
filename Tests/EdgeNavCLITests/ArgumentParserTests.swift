import Testing

@testable import EdgeNavCLI

@Suite struct ArgumentParserTests {
    let spec = CommandSpec(
        invocation: "edgenav demo", summary: "A demo command.",
        options: [
            OptionSpec("broker", value: "URL", default: "mqtt://127.0.0.1:1883", help: "broker"),
            OptionSpec("vehicle-id", value: "ID", help: "vehicle"),
            OptionSpec("keepalive", value: "SECONDS", default: "30", help: "keepalive"),
            OptionSpec("verbose", help: "more output"),
        ],
        positionals: [PositionalSpec("POINT", help: "points", repeats: true)])

    @Test func flagWinsOverEnvironmentWhichWinsOverDefault() throws {
        let environment = ["EDGENAV_BROKER": "mqtt://env:1883", "EDGENAV_VEHICLE_ID": "env-van"]
        let parsed = try spec.parse(["--broker", "mqtt://flag:1883"], environment: environment)
        #expect(parsed.string("broker") == "mqtt://flag:1883")
        #expect(parsed.sources["broker"] == .flag)
        #expect(parsed.string("vehicle-id") == "env-van")
        #expect(parsed.sources["vehicle-id"] == .environment)
        #expect(parsed.string("keepalive") == "30")
        #expect(parsed.sources["keepalive"] == .default)
    }

    @Test func equalsFormAndSeparateValueFormAreTheSame() throws {
        let a = try spec.parse(["--vehicle-id=van-7"], environment: [:])
        let b = try spec.parse(["--vehicle-id", "van-7"], environment: [:])
        #expect(a.string("vehicle-id") == "van-7")
        #expect(a.values == b.values)
    }

    @Test func booleanFlagFromCommandLineAndEnvironment() throws {
        #expect(try spec.parse(["--verbose"], environment: [:]).flag("verbose"))
        #expect(try spec.parse([], environment: ["EDGENAV_VERBOSE": "yes"]).flag("verbose"))
        #expect(try !spec.parse([], environment: ["EDGENAV_VERBOSE": "0"]).flag("verbose"))
        #expect(try !spec.parse([], environment: [:]).flag("verbose"))
        #expect(throws: ArgumentError.invalidValue(option: "verbose", value: "maybe", reason: "expected true or false in EDGENAV_VERBOSE")) {
            try spec.parse([], environment: ["EDGENAV_VERBOSE": "maybe"])
        }
    }

    @Test func positionalsIncludingNegativeCoordinates() throws {
        let parsed = try spec.parse(["60.17,24.94", "-33.9,18.4", "--", "--not-an-option"], environment: [:])
        #expect(parsed.positionals == ["60.17,24.94", "-33.9,18.4", "--not-an-option"])
    }

    @Test func mistakesAreNamed() {
        #expect(throws: ArgumentError.unknownOption("--brokr")) { try spec.parse(["--brokr", "x"], environment: [:]) }
        #expect(throws: ArgumentError.missingValue(option: "broker")) { try spec.parse(["--broker"], environment: [:]) }
        #expect(throws: ArgumentError.flagTakesNoValue(option: "verbose")) {
            try spec.parse(["--verbose=loud"], environment: [:])
        }
        #expect(throws: ArgumentError.unknownOption("-x")) { try spec.parse(["-x"], environment: [:]) }
    }

    @Test func numbersAreChecked() throws {
        let parsed = try spec.parse(["--keepalive", "abc"], environment: [:])
        #expect(throws: ArgumentError.invalidValue(option: "keepalive", value: "abc", reason: "expected a whole number")) {
            try parsed.integer("keepalive")
        }
        let outOfRange = try spec.parse(["--keepalive", "2"], environment: [:])
        #expect(throws: ArgumentError.self) { try outOfRange.integer("keepalive", in: 5...60) }
        #expect(try spec.parse(["--keepalive", "45"], environment: [:]).integer("keepalive", in: 5...60) == 45)
    }

    @Test func tooManyAndTooFewPositionals() {
        let one = CommandSpec(invocation: "x", summary: "", positionals: [PositionalSpec("IN", help: "input")])
        #expect(throws: ArgumentError.missingPositional("IN")) { try one.parse([], environment: [:]) }
        #expect(throws: ArgumentError.unexpectedArgument("b")) { try one.parse(["a", "b"], environment: [:]) }
    }

    @Test func helpIsRequestedWithoutValidatingTheRest() throws {
        let one = CommandSpec(invocation: "x", summary: "", positionals: [PositionalSpec("IN", help: "input")])
        #expect(try one.parse(["--help"], environment: [:]).helpRequested)
        #expect(try one.parse(["-h"], environment: [:]).helpRequested)
    }

    @Test func helpListsEveryOptionWithItsVariableAndDefault() {
        let text = spec.helpText
        for option in spec.options {
            #expect(text.contains("--\(option.name)"))
            #expect(text.contains(option.environmentVariable!))
        }
        #expect(text.contains("default: mqtt://127.0.0.1:1883"))
        #expect(text.hasPrefix("usage: edgenav demo [options] [POINT ...]"))
    }
}
