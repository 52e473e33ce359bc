import Foundation

/// The JSON examples of `topics.md`, the public MQTT contract, read so tests can hold the agent to it.
///
/// A section is a heading whose text starts with a backticked topic (`### \`nav/eta\` (state)`, `## \`{prefix}/{vid}/agent/status\``);
/// its examples are the fenced ```json blocks and the inline backticked spans that parse as a JSON object, up to
/// the next heading. Topics are keyed without the `{prefix}/{vid}/` or `{prefix}/` they are written with.
public struct TopicsDocument: Sendable {
    /// Topic (e.g. `nav/route`, `location/raw`, `agent/status`) → the text of its JSON object examples, in document
    /// order.
    public let exampleTexts: [String: [String]]

    /// The examples' shapes, topic by topic.
    public var examples: [String: [[String: JSONShape]]] {
        exampleTexts.mapValues { texts in
            texts.compactMap { text in
                guard case .object(let fields) = JSONShape.parse(text) else { return nil }
                return fields
            }
        }
    }

    public init(markdown: String) {
        var exampleTexts: [String: [String]] = [:]
        var topic: String?
        var section = ""
        func close() {
            if let topic { exampleTexts[topic, default: []] += Self.jsonObjects(in: section) }
            section = ""
        }
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                close()
                topic = Self.topic(ofHeading: String(line))
            } else {
                section += line + "\n"
            }
        }
        close()
        self.exampleTexts = exampleTexts
    }

    /// `topics.md` at the repository root.
    public static func load(repositoryRoot: String) throws -> TopicsDocument {
        TopicsDocument(markdown: try String(contentsOfFile: repositoryRoot + "/topics.md", encoding: .utf8))
    }

    static func topic(ofHeading line: String) -> String? {
        let text = line.drop { $0 == "#" || $0 == " " }
        guard text.first == "`", let end = text.dropFirst().firstIndex(of: "`") else { return nil }
        var topic = String(text[text.index(after: text.startIndex)..<end])
        for prefix in ["{prefix}/{vid}/", "{prefix}/"] where topic.hasPrefix(prefix) {
            topic.removeFirst(prefix.count)
        }
        return topic
    }

    /// Fenced json blocks first, then inline spans (which may run over several lines), each parsed on its own.
    static func jsonObjects(in section: String) -> [String] {
        var texts: [String] = []
        var rest = Substring(section)
        while let open = rest.range(of: "```json\n"), let close = rest[open.upperBound...].range(of: "```") {
            texts.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[..<open.lowerBound] + rest[close.upperBound...]
        }
        let parts = rest.split(separator: "`", omittingEmptySubsequences: false)
        // Odd-numbered parts lie between backticks.
        for (index, part) in parts.enumerated() where index % 2 == 1 && part.hasPrefix("{") {
            texts.append(String(part))
        }
        return texts.filter { text in
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any]
        }
    }
}

/// The shape of a JSON value: its kind, and for objects and arrays what they hold. What a contract test compares.
public indirect enum JSONShape: Sendable, Equatable, CustomStringConvertible {
    case null, number, string, bool
    case array([JSONShape])
    case object([String: JSONShape])

    public init(_ value: Any) {
        switch value {
        case is NSNull: self = .null
        case is String: self = .string
        case let number as NSNumber:
            // JSONSerialization reads true/false as NSNumber (`__NSCFBoolean`); only its class tells them from 0 and 1.
            self = String(describing: type(of: number)).contains("Boolean") ? .bool : .number
        case let list as [Any]: self = .array(list.map(JSONShape.init))
        case let fields as [String: Any]: self = .object(fields.mapValues(JSONShape.init))
        default: self = .null
        }
    }

    public static func parse(_ text: String) -> JSONShape? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])).map(JSONShape.init)
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .number: "number"
        case .string: "string"
        case .bool: "bool"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Where `actual` differs from this documented shape, as readable paths. A documented `null` admits any value
    /// and a `null` in `actual` matches any documented kind (the contract marks such fields "null when unknown").
    public func mismatches(_ actual: JSONShape, path: String = "") -> [String] {
        switch (self, actual) {
        case (.null, _), (_, .null): return []
        case (.object(let documented), .object(let fields)):
            var problems: [String] = []
            for key in documented.keys.sorted() where fields[key] == nil {
                problems.append("\(path)\(key): documented, not sent")
            }
            for key in fields.keys.sorted() where documented[key] == nil {
                problems.append("\(path)\(key): sent, not documented")
            }
            for (key, shape) in documented.sorted(by: { $0.key < $1.key }) {
                if let value = fields[key] { problems += shape.mismatches(value, path: "\(path)\(key).") }
            }
            return problems
        case (.array(let documented), .array(let values)):
            guard let element = documented.first else { return [] }
            return values.enumerated().flatMap { index, value in element.mismatches(value, path: "\(path)[\(index)].") }
        case (.number, .number), (.string, .string), (.bool, .bool): return []
        default: return ["\(path.isEmpty ? "(payload)" : String(path.dropLast())): documented \(self), sent \(actual)"]
        }
    }
}
