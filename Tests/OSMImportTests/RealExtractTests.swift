import Foundation
import Geo
import RoadGraph
import Testing
@testable import OSMImport

/// Package root, found from this file's path (Tests/OSMImportTests/…).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let cachedMaps = packageRoot.appendingPathComponent(".cache/maps")
let sharedMaps = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/maps")

func extract(_ url: URL, hint: String) -> URL? {
    if FileManager.default.fileExists(atPath: url.path) { return url }
    Issue.record("\(url.path) is missing — \(hint)")
    return nil
}

@Suite(.serialized) struct RealExtractTests {
    @Test func helsinkiImportsWithPlausibleContent() throws {
        guard let input = extract(cachedMaps.appendingPathComponent("Helsinki.osm.pbf"), hint: "run scripts/fetch-maps") else { return }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("helsinki-\(UUID().uuidString).graph")
        defer { try? FileManager.default.removeItem(at: output) }
        let summary = try GraphImporter.importFile(input: input, output: output, progress: nil)
        print(summary)
        let graph = try RoadGraph(contentsOf: output)
        print(GraphInfo.describe(graph))
        #expect(summary.countryHint == "FI")
        #expect(graph.nodeCount == summary.graphNodes && graph.edgeCount == summary.graphEdges)
        #expect(graph.nodeCount > 1000)
    }
}
