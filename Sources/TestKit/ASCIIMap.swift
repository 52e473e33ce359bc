import Foundation
import Geo

/// A map drawn as ASCII art, in the style of Valhalla's gurka and OSRM's cucumber tests:
///
/// ```
///     A---B---C
///         |   |
///         D---E
/// ```
/// Every letter or digit is a node; everything else (`-`, `|`, `/`, spaces …) is decoration. Character
/// columns step `gridMeters` east, lines step `gridMeters` south. `origin` is the position of column 0 of the
/// first line; the map is laid out with a local equirectangular projection around it.
public struct ASCIIMap: Sendable {
    /// Node name → position, for every letter/digit in the drawing.
    public let coordinates: [Character: Coordinate]
    /// Node names in reading order (top to bottom, left to right).
    public let nodeNames: [Character]
    public let gridMeters: Double
    public let origin: Coordinate

    /// A point near Helsinki's centre (Finland: the importer's country hint will be "FI").
    public static let defaultOrigin = Coordinate(latitude: 60.17, longitude: 24.94)

    public init(_ drawing: String, gridMeters: Double = 10, origin: Coordinate = ASCIIMap.defaultOrigin) {
        self.gridMeters = gridMeters
        self.origin = origin
        let projection = LocalProjection(origin: origin)
        var coordinates = [Character: Coordinate]()
        var names = [Character]()
        for (row, line) in drawing.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for (column, ch) in line.enumerated() where ch.isASCII && (ch.isLetter || ch.isNumber) {
                precondition(coordinates[ch] == nil, "node \(ch) drawn twice")
                coordinates[ch] = projection.unproject(x: Double(column) * gridMeters, y: -Double(row) * gridMeters)
                names.append(ch)
            }
        }
        self.coordinates = coordinates
        self.nodeNames = names
    }

    /// The position of node `name` (traps when the drawing has no such node).
    public subscript(_ name: Character) -> Coordinate {
        guard let c = coordinates[name] else { preconditionFailure("no node \(name) in the drawing") }
        return c
    }

    /// A point `fraction` of the way from node `a` to node `b`, e.g. for GPS fixes between letters.
    public func point(_ a: Character, _ b: Character, fraction: Double) -> Coordinate {
        let p = self[a], q = self[b]
        return Coordinate(latitude: p.latitude + (q.latitude - p.latitude) * fraction,
                          longitude: p.longitude + (q.longitude - p.longitude) * fraction)
    }
}

/// A relation member in an `ASCIIMapFixture`: a way named by its node string ("AB") or a node letter.
public struct ASCIIMapMember: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        case way(String)
        case node(Character)
    }
    public var target: Target
    public var role: String
    public init(_ target: Target, role: String) {
        self.target = target
        self.role = role
    }
    public static func way(_ nodes: String, role: String) -> ASCIIMapMember { ASCIIMapMember(.way(nodes), role: role) }
    public static func node(_ name: Character, role: String) -> ASCIIMapMember { ASCIIMapMember(.node(name), role: role) }
}

public struct ASCIIMapRelation: Sendable, Hashable {
    public var tags: [String: String]
    public var members: [ASCIIMapMember]
    public init(tags: [String: String], members: [ASCIIMapMember]) {
        self.tags = tags
        self.members = members
    }

    /// A `type=restriction` relation from way `from` over node `via` to way `to`; `extraTags` may add `except`
    /// or replace the key (pass `key: "restriction:bicycle"`).
    public static func restriction(_ value: String, from: String, via: Character, to: String,
                                   key: String = "restriction", extraTags: [String: String] = [:]) -> ASCIIMapRelation {
        var tags = ["type": "restriction", key: value]
        tags.merge(extraTags) { _, new in new }
        return ASCIIMapRelation(tags: tags, members: [.way(from, role: "from"), .node(via, role: "via"), .way(to, role: "to")])
    }
}

/// An OSM fixture: an `ASCIIMap` plus ways (node strings with tags), node tags and relations, rendered as OSM XML
/// so tests exercise the real importer. Way ids are 1, 2, 3 … in declaration order; node ids follow the
/// drawing's reading order starting at 1; relation ids start at 1.
public struct ASCIIMapFixture: Sendable {
    public let map: ASCIIMap
    public let ways: [(nodes: String, tags: [String: String])]
    public let nodeTags: [Character: [String: String]]
    public let relations: [ASCIIMapRelation]

    public init(_ drawing: String, gridMeters: Double = 10, origin: Coordinate = ASCIIMap.defaultOrigin,
                ways: KeyValuePairs<String, [String: String]>, nodes: [Character: [String: String]] = [:],
                relations: [ASCIIMapRelation] = []) {
        self.map = ASCIIMap(drawing, gridMeters: gridMeters, origin: origin)
        self.ways = ways.map { (nodes: $0.key, tags: $0.value) }
        self.nodeTags = nodes
        self.relations = relations
        for (nodes, _) in self.ways {
            for ch in nodes { precondition(map.coordinates[ch] != nil, "way \(nodes) uses undrawn node \(ch)") }
        }
    }

    /// OSM node id of a letter.
    public func nodeID(_ name: Character) -> Int64 {
        guard let i = map.nodeNames.firstIndex(of: name) else { preconditionFailure("no node \(name)") }
        return Int64(i + 1)
    }

    /// OSM way id of the first way declared with this node string.
    public func wayID(_ nodes: String) -> Int64 {
        guard let i = ways.firstIndex(where: { $0.nodes == nodes }) else { preconditionFailure("no way \(nodes)") }
        return Int64(i + 1)
    }

    public subscript(_ name: Character) -> Coordinate { map[name] }

    /// The fixture as OSM XML 0.6 text.
    public func osmXML() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"EdgeNav ASCIIMap\">\n"
        if let box = BoundingBox(enclosing: map.coordinates.values) {
            out += " <bounds minlat=\"\(fmt(box.minLatitude))\" minlon=\"\(fmt(box.minLongitude))\" maxlat=\"\(fmt(box.maxLatitude))\" maxlon=\"\(fmt(box.maxLongitude))\"/>\n"
        }
        for name in map.nodeNames {
            let c = map[name]
            let tags = nodeTags[name] ?? [:]
            let head = " <node id=\"\(nodeID(name))\" version=\"1\" lat=\"\(fmt(c.latitude))\" lon=\"\(fmt(c.longitude))\""
            if tags.isEmpty {
                out += head + "/>\n"
            } else {
                out += head + ">\n" + tagLines(tags) + " </node>\n"
            }
        }
        for (i, way) in ways.enumerated() {
            out += " <way id=\"\(i + 1)\" version=\"1\">\n"
            for ch in way.nodes { out += "  <nd ref=\"\(nodeID(ch))\"/>\n" }
            out += tagLines(way.tags) + " </way>\n"
        }
        for (i, relation) in relations.enumerated() {
            out += " <relation id=\"\(i + 1)\" version=\"1\">\n"
            for m in relation.members {
                switch m.target {
                case .way(let nodes): out += "  <member type=\"way\" ref=\"\(wayID(nodes))\" role=\"\(escape(m.role))\"/>\n"
                case .node(let name): out += "  <member type=\"node\" ref=\"\(nodeID(name))\" role=\"\(escape(m.role))\"/>\n"
                }
            }
            out += tagLines(relation.tags) + " </relation>\n"
        }
        return out + "</osm>\n"
    }

    /// Writes `osmXML()` to a fresh `.osm` file in the temporary directory and returns its URL.
    public func writeTemporaryFile(name: String = "fixture") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("edgenav-\(name)-\(UUID().uuidString).osm")
        try osmXML().write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    private func tagLines(_ tags: [String: String]) -> String {
        tags.keys.sorted().map { "  <tag k=\"\(escape($0))\" v=\"\(escape(tags[$0]!))\"/>\n" }.joined()
    }

    private func fmt(_ v: Double) -> String { String(format: "%.8f", v) }

    private func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(ch)
            }
        }
        return out
    }
}
