import Foundation
import RoadGraph
import Testing
import TestKit
@testable import OSMImport

func expectImportError(_ code: OSMImportError.Code, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try body()
        Issue.record("expected \(code.rawValue)", sourceLocation: sourceLocation)
    } catch let e as OSMImportError {
        #expect(e.code == code, "\(e)", sourceLocation: sourceLocation)
        #expect(!e.message.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error type \(error)", sourceLocation: sourceLocation)
    }
}

func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("edgenav-\(UUID().uuidString)-\(name)")
    try Data(bytes).write(to: url)
    return url
}

@Suite struct ImporterErrorTests {
    @Test func missingFile() {
        expectImportError(.fileNotFound) { _ = try GraphImporter.buildGraph(input: URL(fileURLWithPath: "/nonexistent/map.osm.pbf")) }
        expectImportError(.fileNotFound) { _ = try GraphImporter.buildGraph(input: FileManager.default.temporaryDirectory) }
    }

    @Test func nonOSMFiles() throws {
        let text = try temporaryFile("notes.osm.pbf", Array("this is not a protobuf file at all, just text\n".utf8))
        defer { try? FileManager.default.removeItem(at: text) }
        expectImportError(.notOSM) { _ = try GraphImporter.buildGraph(input: text) }
        let xml = try temporaryFile("svg.osm", Array("<svg xmlns='http://www.w3.org/2000/svg'><g/></svg>".utf8))
        defer { try? FileManager.default.removeItem(at: xml) }
        do {
            _ = try GraphImporter.buildGraph(input: xml)
            Issue.record("an SVG imported")
        } catch let e as OSMImportError {
            #expect(e.code == .notOSM, "\(e)")
        }
        let unknown = try temporaryFile("map.docx", Array("PK\u{3}\u{4}".utf8))
        defer { try? FileManager.default.removeItem(at: unknown) }
        expectImportError(.notOSM) { _ = try GraphImporter.buildGraph(input: unknown) }
    }

    @Test func truncatedFiles() throws {
        let fixture = ASCIIMapFixture("A---B---C", ways: ["ABC": ["highway": "residential"]])
        let xml = Array(fixture.osmXML().utf8)
        let cutXML = try temporaryFile("cut.osm", Array(xml.prefix(xml.count / 2)))
        defer { try? FileManager.default.removeItem(at: cutXML) }
        do {
            _ = try GraphImporter.buildGraph(input: cutXML)
            Issue.record("truncated XML imported")
        } catch let e as OSMImportError {
            #expect(e.code == .truncated, "\(e)")
        }
        let helsinki = cachedMaps.appendingPathComponent("Helsinki.osm.pbf")
        guard FileManager.default.fileExists(atPath: helsinki.path) else {
            Issue.record("\(helsinki.path) missing — run scripts/fetch-maps")
            return
        }
        let pbf = try [UInt8](Data(contentsOf: helsinki))
        for fraction in [0.5, 0.9, 0.999] {
            let cut = try temporaryFile("cut.osm.pbf", Array(pbf.prefix(Int(Double(pbf.count) * fraction))))
            defer { try? FileManager.default.removeItem(at: cut) }
            do {
                _ = try GraphImporter.buildGraph(input: cut)
                Issue.record("PBF truncated at \(fraction) imported")
            } catch let e as OSMImportError {
                #expect(e.code == .truncated, "\(e)")
            }
        }
    }

    @Test func extractWithoutRoads() throws {
        let url = try temporaryFile("empty.osm", Array("<?xml version='1.0'?><osm version='0.6'><node id='1' lat='60' lon='25'/></osm>".utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        expectImportError(.noRoads) { _ = try GraphImporter.buildGraph(input: url) }
    }

    @Test func waysWithNodesOutsideTheExtractAreSplitAtTheGap() throws {
        // Way 1 runs 1-2-99-3-4 where node 99 is missing (clipped extract): two pieces, 1–2 and 3–4.
        let xml = """
            <?xml version='1.0'?><osm version='0.6'>
            <node id='1' lat='60.0000' lon='25.0000'/><node id='2' lat='60.0000' lon='25.0010'/>
            <node id='3' lat='60.0000' lon='25.0030'/><node id='4' lat='60.0000' lon='25.0040'/>
            <way id='1'><nd ref='1'/><nd ref='2'/><nd ref='99'/><nd ref='3'/><nd ref='4'/><tag k='highway' v='residential'/></way>
            </osm>
            """
        let url = try temporaryFile("clipped.osm", Array(xml.utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        let (graph, summary) = try GraphImporter.buildGraph(input: url)
        #expect(graph.nodeCount == 4)
        #expect(graph.edgeCount == 4)
        #expect(summary.osmNodesMissing == 1)
        for e in 0..<EdgeID(graph.edgeCount) { #expect(graph.lengthMeters(of: e) < 60) }
    }

    @Test func importFileWritesALoadableGraph() throws {
        let fixture = ASCIIMapFixture("A---B---C", ways: ["ABC": ["highway": "residential", "name": "Bulevardi"]])
        let input = try fixture.writeTemporaryFile()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("edgenav-\(UUID().uuidString).graph")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let summary = try GraphImporter.importFile(input: input, output: output, progress: nil)
        #expect(summary.outputBytes > 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
        #expect((attributes[.size] as? Int) == summary.outputBytes)
        let graph = try RoadGraph(contentsOf: output)
        #expect(graph.name(of: 0) == "Bulevardi")
        #expect(graph.metadata.sourceName == input.lastPathComponent)
        let info = try GraphInfo.describe(output)
        #expect(info.contains("nodes: 2, directed edges: 2"))
        #expect(info.contains("country hint: FI"))
    }

    /// Random byte damage to an OSM XML fixture: the import either succeeds or throws an `OSMImportError`;
    /// no C++ exception or trap escapes.
    @Test func damagedXMLNeverCrashes() throws {
        let fixture = ASCIIMapFixture("""
            A---B---C
                |
                D
            """, ways: ["ABC": ["highway": "residential", "maxspeed": "30"], "BD": ["highway": "footway"]],
            nodes: ["B": ["barrier": "bollard"]],
            relations: [.restriction("no_left_turn", from: "ABC", via: "B", to: "BD")])
        let original = Array(fixture.osmXML().utf8)
        var rng = SeededGenerator(seed: 0x5EED_0132)
        var imported = 0, failed = 0
        for _ in 0..<60 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = [UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "9"), 0, 0xFF, UInt8(ascii: "-")].randomElement(using: &rng)!
            }
            let url = try temporaryFile("damaged.osm", bytes)
            defer { try? FileManager.default.removeItem(at: url) }
            do {
                _ = try GraphImporter.buildGraph(input: url)
                imported += 1
            } catch is OSMImportError {
                failed += 1
            }
        }
        #expect(imported + failed == 60)
        #expect(failed > 0)
    }
}
