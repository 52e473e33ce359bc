/// Every MQTT topic the agent reads or writes, built from the prefix and the vehicle id.
///
/// `topics.md` is the public contract for these names; change both together.
public struct TopicTree: Sendable, Equatable {
    public let prefix: String
    public let vehicleID: String
    /// Every output topic's full name, in `OutputTopic.allCases` order: built once, not per message.
    private let outputNames: [String]

    /// - Throws: `AgentConfigurationError` when the prefix or vehicle id would make an invalid or
    ///   ambiguous topic (wildcards, empty levels, NUL).
    public init(prefix: String, vehicleID: String) throws(AgentConfigurationError) {
        try Self.validatePrefix(prefix)
        try Self.validateTopicLevel(vehicleID, what: "vehicle id")
        self.prefix = prefix
        self.vehicleID = vehicleID
        outputNames = OutputTopic.allCases.map { "\(prefix)/\(vehicleID)/\($0.rawValue)" }
    }

    /// `{prefix}/{vid}`.
    public var vehicleRoot: String { "\(prefix)/\(vehicleID)" }

    /// The full name of an output topic.
    public func output(_ topic: OutputTopic) -> String { outputNames[OutputTopic.allCases.firstIndex(of: topic)!] }

    // MARK: Inputs
    /// Destination assignments from dispatch (retained by dispatch).
    public var destinations: String { "\(vehicleRoot)/nav/destinations" }
    /// Raw GPS fixes.
    public var rawLocation: String { "\(vehicleRoot)/location/raw" }
    /// Commands: continue, clear, guidance on/off, simulation, options.
    public var command: String { "\(vehicleRoot)/nav/command" }
    /// Traffic observations shared by the whole fleet.
    public var traffic: String { "\(prefix)/traffic" }
    /// Named places shared by the whole fleet (retained), one topic per place id.
    public var placesFilter: String { "\(prefix)/places/+" }
    public func place(_ placeID: String) -> String { "\(prefix)/places/\(placeID)" }

    /// The topic filters the agent subscribes to.
    public var inputFilters: [String] { [destinations, rawLocation, command, traffic, placesFilter] }

    // MARK: Outputs (all retained JSON at QoS 1)
    public var arrival: String { "\(vehicleRoot)/nav/arrival" }
    public var route: String { "\(vehicleRoot)/nav/route" }
    public var eta: String { "\(vehicleRoot)/nav/eta" }
    public var delay: String { "\(vehicleRoot)/nav/delay" }
    public var lighting: String { "\(vehicleRoot)/nav/lighting" }
    public var speeding: String { "\(vehicleRoot)/nav/speeding" }
    public var state: String { "\(vehicleRoot)/nav/state" }
    public var snappedLocation: String { "\(vehicleRoot)/location/snapped" }
    public var status: String { "\(vehicleRoot)/agent/status" }
    public var error: String { "\(vehicleRoot)/agent/error" }
    public var metrics: String { "\(vehicleRoot)/agent/metrics" }

    static func validatePrefix(_ prefix: String) throws(AgentConfigurationError) {
        guard !prefix.isEmpty else { throw .invalid("topic prefix", prefix, "must not be empty") }
        guard !prefix.hasPrefix("/"), !prefix.hasSuffix("/") else {
            throw .invalid("topic prefix", prefix, "must not start or end with '/'")
        }
        for level in prefix.split(separator: "/", omittingEmptySubsequences: false) {
            try validateTopicLevel(String(level), what: "topic prefix")
        }
    }

    /// One topic level: not empty, no `/`, no wildcards, no NUL, at most 128 bytes.
    static func validateTopicLevel(_ level: String, what: String) throws(AgentConfigurationError) {
        guard !level.isEmpty else { throw .invalid(what, level, "must not be empty or contain empty levels") }
        guard level.utf8.count <= 128 else { throw .invalid(what, level, "must be at most 128 bytes") }
        if let bad = level.first(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\0" }) {
            let shown = bad == "\0" ? "NUL" : "'\(bad)'"
            throw .invalid(what, level, "must not contain \(shown)")
        }
    }
}

/// A configuration value the agent cannot run with.
public struct AgentConfigurationError: Error, Equatable, CustomStringConvertible {
    /// Stable code, e.g. `config.invalid`.
    public var code: String
    public var message: String

    public static func invalid(_ what: String, _ value: String, _ reason: String) -> Self {
        AgentConfigurationError(code: "config.invalid", message: "invalid \(what) '\(value)': \(reason)")
    }

    public var description: String { message }
}
