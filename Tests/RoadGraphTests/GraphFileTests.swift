import Foundation
import Geo
import TestKit
import Testing

@testable import RoadGraph

func temporaryURL(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("edgenav-graph-tests-\(UUID().uuidString)-\(name)")
}

func expectGraphError(_ code: RoadGraphError.Code, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try body()
        Issue.record("expected \(code.rawValue)", sourceLocation: sourceLocation)
    } catch let e as RoadGraphError {
        #expect(e.code == code, "\(e)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct GraphFileTests {
    @Test func roundTripPreservesEverything() throws {
        let original = try randomGraph(seed: 3, nodes: 120, edges: 300)
        let url = temporaryURL("rt.graph")
        defer { try? FileManager.default.removeItem(at: url) }
        try original.write(to: url)
        let loaded = try RoadGraph(contentsOf: url)
        #expect(loaded.nodeCount == original.nodeCount && loaded.edgeCount == original.edgeCount)
        #expect(loaded.metadata == original.metadata)
        for n in 0..<NodeID(original.nodeCount) {
            #expect(loaded.coordinate(of: n) == original.coordinate(of: n))
            #expect(loaded.outgoingEdges(of: n) == original.outgoingEdges(of: n))
            #expect(Array(loaded.incomingEdges(of: n)) == Array(original.incomingEdges(of: n)))
        }
        for e in 0..<EdgeID(original.edgeCount) {
            #expect(loaded.geometry(of: e) == original.geometry(of: e))
            #expect(loaded.access(of: e) == original.access(of: e))
            #expect(loaded.lengthMeters(of: e) == original.lengthMeters(of: e))
            #expect(loaded.reverseEdge(of: e) == original.reverseEdge(of: e))
            #expect(loaded.osmWayID(of: e) == original.osmWayID(of: e))
        }
        let p = original.coordinate(of: 5)
        #expect(loaded.nearestEdges(to: p, mode: .walking, radiusMeters: 100, limit: 5)
                == original.nearestEdges(to: p, mode: .walking, radiusMeters: 100, limit: 5))
    }

    @Test func namesRestrictionsAndBarriersSurviveTheFile() throws {
        let g = try SmallGraph(restrictions: { b, ids in
            b.addTurnRestriction(TurnRestriction(from: ids[2], via: 1, to: ids[6], kind: .no, modes: [.driving]))
        }, bPassable: [.walking])
        let url = temporaryURL("small.graph")
        defer { try? FileManager.default.removeItem(at: url) }
        try g.graph.write(to: url)
        let loaded = try RoadGraph(contentsOf: url)
        #expect(loaded.name(of: g.ab) == "Mannerheimintie")
        #expect(loaded.ref(of: g.bd) == "E18")
        #expect(loaded.turnRestrictions == g.graph.turnRestrictions)
        #expect(!loaded.isPassable(node: g.b, mode: .cycling))
        #expect(loaded.isPassable(node: g.b, mode: .walking))
    }

    func writtenBytes() throws -> [UInt8] {
        let g = try randomGraph(seed: 9, nodes: 40, edges: 60)
        let url = temporaryURL("bytes.graph")
        defer { try? FileManager.default.removeItem(at: url) }
        try g.write(to: url)
        return try [UInt8](Data(contentsOf: url))
    }

    func load(_ bytes: [UInt8]) throws {
        let url = temporaryURL("bad.graph")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes).write(to: url)
        _ = try RoadGraph(contentsOf: url)
    }

    @Test func missingFileIsAnIOError() {
        expectGraphError(.io) { _ = try RoadGraph(contentsOf: URL(fileURLWithPath: "/nonexistent/edgenav.graph")) }
    }

    @Test func emptyAndForeignFilesAreRejected() throws {
        expectGraphError(.notAGraphFile) { try load([]) }
        expectGraphError(.notAGraphFile) { try load(Array("<?xml version='1.0'?><osm></osm>".utf8) + [UInt8](repeating: 32, count: 100)) }
    }

    @Test func truncatedFilesAreRejectedAtEveryLength() throws {
        let bytes = try writtenBytes()
        for cut in [bytes.count - 1, bytes.count - 8, bytes.count / 2, 100, 64, 63, 10] {
            do {
                try load(Array(bytes.prefix(cut)))
                Issue.record("truncated to \(cut) bytes loaded")
            } catch let e as RoadGraphError {
                #expect([.truncated, .notAGraphFile].contains(e.code), "cut \(cut): \(e)")
            }
        }
    }

    @Test func everyCorruptedByteIsDetected() throws {
        let bytes = try writtenBytes()
        var rng = SeededGenerator(seed: 5)
        // Header fields and random body bytes.
        var positions = Array(0..<40)
        for _ in 0..<60 { positions.append(Int.random(in: 64..<bytes.count, using: &rng)) }
        for pos in positions {
            var bad = bytes
            bad[pos] ^= 0x5A
            do {
                try load(bad)
                if pos >= 32 && pos < 40 { continue }  // reserved bytes are not checked
                Issue.record("corruption at \(pos) went unnoticed")
            } catch let e as RoadGraphError {
                #expect(e.code != .io, "\(e)")
            }
        }
    }

    @Test func wrongVersionIsReportedAsSuch() throws {
        var bytes = try writtenBytes()
        bytes[8] = 99
        expectGraphError(.unsupportedVersion) { try load(bytes) }
    }

    @Test func consistentChecksumButBrokenStructureIsCorrupt() throws {
        var bytes = try writtenBytes()
        // Point edge 0's target far out of range, then fix the checksum so only the structural check can catch it.
        let tableOffset = 64 + GraphFileLayout.Section.edgeTarget.rawValue * 16
        let sectionOffset = bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: tableOffset, as: UInt64.self)) }
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(1_000_000), toByteOffset: sectionOffset, as: UInt32.self)
            let sum = GraphFileLayout.checksum(raw.baseAddress! + 64, count: raw.count - 64)
            raw.storeBytes(of: sum, toByteOffset: 24, as: UInt64.self)
        }
        expectGraphError(.corrupt) { try load(bytes) }
    }
}

@Suite struct GraphLoaderFuzzTests {
    /// Random byte changes with a *recomputed* checksum (so only the structural checks stand guard): loading either
    /// throws a typed error or yields a graph whose every accessor works without trapping.
    @Test func mutatedImagesNeverCrash() throws {
        let g = try SmallGraph(restrictions: { b, ids in
            b.addTurnRestriction(TurnRestriction(from: ids[2], via: 1, to: ids[6], kind: .only, modes: [.driving]))
        })
        let url = temporaryURL("fuzz.graph")
        defer { try? FileManager.default.removeItem(at: url) }
        try g.graph.write(to: url)
        let original = try [UInt8](Data(contentsOf: url))
        var rng = SeededGenerator(seed: 99)
        var loaded = 0, rejected = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let pos = Int.random(in: 64..<bytes.count, using: &rng)
                bytes[pos] = UInt8.random(in: 0...255, using: &rng)
            }
            bytes.withUnsafeMutableBytes { raw in
                let sum = GraphFileLayout.checksum(raw.baseAddress! + 64, count: raw.count - 64)
                raw.storeBytes(of: sum, toByteOffset: 24, as: UInt64.self)
            }
            let bad = temporaryURL("fuzz-case.graph")
            defer { try? FileManager.default.removeItem(at: bad) }
            try Data(bytes).write(to: bad)
            let graph: RoadGraph
            do {
                graph = try RoadGraph(contentsOf: bad)
            } catch is RoadGraphError {
                rejected += 1
                continue
            }
            loaded += 1
            for n in 0..<NodeID(graph.nodeCount) {
                _ = graph.coordinate(of: n)
                _ = graph.isPassable(node: n, mode: .driving)
                for e in graph.outgoingEdges(of: n) { _ = graph.target(of: e) }
                for e in graph.incomingEdges(of: n) { _ = graph.source(of: e) }
            }
            for e in 0..<EdgeID(graph.edgeCount) {
                _ = (graph.geometry(of: e), graph.name(of: e), graph.ref(of: e), graph.highwayClass(of: e), graph.speedLimitKph(of: e))
                _ = graph.durationSeconds(of: e, mode: .walking)
                for f in graph.outgoingEdges(of: graph.target(of: e)) {
                    for mode in TravelMode.allCases { _ = graph.isTurnAllowed(from: e, to: f, mode: mode) }
                }
            }
            _ = graph.turnRestrictions
            for n in 0..<NodeID(graph.nodeCount) {
                _ = graph.nearestEdges(to: graph.coordinate(of: n), mode: .walking, radiusMeters: 200, limit: 10)
            }
        }
        print("graph loader fuzz: \(loaded) mutated images loaded and served every accessor, \(rejected) rejected with typed errors")
        #expect(loaded + rejected == 400)
        #expect(rejected > 0)
    }
}
