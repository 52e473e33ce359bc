/// Why a graph could not be built, written or loaded. `code` is stable (used on the error topic and in logs).
public struct RoadGraphError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The builder was given a node id that was never added, or a restriction that does not meet at its via node.
        case invalidInput = "graph.invalid_input"
        /// More nodes/edges/strings than the 32-bit file format can hold.
        case tooLarge = "graph.too_large"
        /// The file does not exist or cannot be opened / mapped / written.
        case io = "graph.io"
        /// Not a graph file (wrong magic).
        case notAGraphFile = "graph.not_a_graph_file"
        /// A graph file of a format version this build cannot read.
        case unsupportedVersion = "graph.unsupported_version"
        /// The file is shorter than its header says.
        case truncated = "graph.truncated"
        /// Checksum mismatch: the body was altered after writing.
        case checksumMismatch = "graph.checksum_mismatch"
        /// The checksum matches but the structure is inconsistent (indices out of range …).
        case corrupt = "graph.corrupt"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
