import Foundation
import Geo

/// Human-readable description of a graph file (for `edgenav map info`).
public enum GraphInfo {
    /// Loads (and verifies) the graph at `url` and describes it. Throws `RoadGraphError`.
    public static func describe(_ url: URL) throws -> String {
        let start = Date()
        let graph = try RoadGraph(contentsOf: url)
        let loadMs = Date().timeIntervalSince(start) * 1000
        return "file: \(url.path)\nformat version: \(GraphFileLayout.formatVersion), \(graph.byteCount) bytes, verified and loaded in \(String(format: "%.1f", loadMs)) ms\n"
            + describe(graph)
    }

    public static func describe(_ graph: RoadGraph) -> String {
        let m = graph.metadata
        var lines = [String]()
        lines.append("source: \(m.sourceName.isEmpty ? "(built in memory)" : m.sourceName), imported \(ISO8601DateFormatter().string(from: m.importedAt))")
        lines.append("country hint: \(m.countryHint ?? "unknown"), traffic keeps \(graph.drivingSide.rawValue)")
        if let b = m.boundingBox {
            lines.append(String(format: "bounding box (lat, lon): (%.5f, %.5f) – (%.5f, %.5f)", b.minLatitude, b.minLongitude, b.maxLatitude, b.maxLongitude))
        }
        lines.append("nodes: \(graph.nodeCount), directed edges: \(graph.edgeCount), turn restrictions: \(graph.turnRestrictionCount)")
        var edgesPerMode = [TravelMode: Int]()
        var kmPerMode = [TravelMode: Double]()
        var limited = 0, inferred = 0
        var flagCounts = [String: Int]()
        let named: [(String, EdgeFlags)] = [("toll", .toll), ("ferry", .ferry), ("highway", .highway), ("roundabout", .roundabout),
                                            ("signals", .trafficSignalsAtTarget), ("tunnel", .tunnel), ("bridge", .bridge)]
        for e in 0..<EdgeID(graph.edgeCount) {
            let access = graph.access(of: e)
            let len = graph.lengthMeters(of: e)
            for mode in TravelMode.allCases where access.contains(mode) {
                edgesPerMode[mode, default: 0] += 1
                kmPerMode[mode, default: 0] += len / 1000
            }
            if graph.speedLimitKph(of: e) != nil {
                if graph.flags(of: e).contains(.speedLimitInferred) { inferred += 1 } else { limited += 1 }
            }
            let f = graph.flags(of: e)
            for (name, flag) in named where f.contains(flag) { flagCounts[name, default: 0] += 1 }
        }
        for mode in TravelMode.allCases {
            lines.append(String(format: "  %@: %d edges, %.1f km", mode.rawValue, edgesPerMode[mode] ?? 0, kmPerMode[mode] ?? 0))
        }
        lines.append("speed limits: \(limited) edges tagged, \(inferred) inferred from country defaults")
        lines.append("flags: " + named.map { "\($0.0) \(flagCounts[$0.0] ?? 0)" }.joined(separator: ", "))
        lines.append("sections (bytes): " + graph.sectionSizes.map { "\($0.name) \($0.bytes)" }.joined(separator: ", "))
        if !m.notes.isEmpty {
            lines.append("notes: " + m.notes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
