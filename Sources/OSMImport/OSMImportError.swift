/// Why an import failed. `code` is stable; `message` is for humans.
public struct OSMImportError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The input path does not exist or is unreadable.
        case fileNotFound = "import.file_not_found"
        /// The input is not an OSM file (.osm / .osm.pbf / compressed), or it is malformed.
        case notOSM = "import.not_osm"
        /// The input ends in the middle of its data.
        case truncated = "import.truncated"
        /// A read or decompression error.
        case io = "import.io"
        /// The extract holds no way any travel mode can use.
        case noRoads = "import.no_roads"
        /// The graph could not be built or written.
        case graph = "import.graph"
        /// Unexpected failure inside the reader.
        case `internal` = "import.internal"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
