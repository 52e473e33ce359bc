import Foundation
import Geo
import Testing

@testable import RoadGraph

/// A long-running agent loads its map with `init(privateCopyOf:in:)`; these tests overwrite the original file
/// in place while the graph is in use — with a plain mapping that is a SIGBUS (truncation) or changed data.
@Suite struct PrivateCopyTests {
    private func expectSameGraph(_ loaded: RoadGraph, _ original: RoadGraph) {
        #expect(loaded.nodeCount == original.nodeCount && loaded.edgeCount == original.edgeCount)
        for n in 0..<NodeID(original.nodeCount) {
            #expect(loaded.coordinate(of: n) == original.coordinate(of: n))
        }
        for e in 0..<EdgeID(original.edgeCount) {
            #expect(loaded.geometry(of: e) == original.geometry(of: e))
            #expect(loaded.osmWayID(of: e) == original.osmWayID(of: e))
        }
    }

    @Test func theOriginalTruncatedAndRewrittenInPlaceDoesNotReachTheLoadedGraph() throws {
        let original = try randomGraph(seed: 11, nodes: 400, edges: 1_200)
        let other = try randomGraph(seed: 12, nodes: 20, edges: 40)
        let directory = temporaryURL("private-copy-dir")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = temporaryURL("in-place.graph")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: directory)
        }
        try original.write(to: url)
        let loaded = try RoadGraph(privateCopyOf: url, in: directory)
        #expect(loaded.backing == .mappedPrivateCopy)
        // The copy has no name: nothing is left behind in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        // What `cp smaller.graph map.graph` does: truncate the same inode, then write other bytes into it.
        let smaller = temporaryURL("smaller.graph")
        defer { try? FileManager.default.removeItem(at: smaller) }
        try other.write(to: smaller)
        let bytes = try Data(contentsOf: smaller)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
        #expect(try Data(contentsOf: url).count < loaded.byteCount)

        expectSameGraph(loaded, original)
    }

    @Test func aDirectoryThatCannotHoldTheCopyFallsBackToMemory() throws {
        let original = try randomGraph(seed: 13, nodes: 50, edges: 120)
        let url = temporaryURL("fallback.graph")
        defer { try? FileManager.default.removeItem(at: url) }
        try original.write(to: url)
        let loaded = try RoadGraph(privateCopyOf: url, in: temporaryURL("no-such-directory"))
        #expect(loaded.backing == .memory)
        try FileHandle(forWritingTo: url).truncate(atOffset: 0)
        expectSameGraph(loaded, original)
    }

    @Test func aDamagedFileIsStillRefusedWithItsCode() throws {
        let original = try randomGraph(seed: 14, nodes: 50, edges: 120)
        let url = temporaryURL("damaged.graph")
        defer { try? FileManager.default.removeItem(at: url) }
        try original.write(to: url)
        var bytes = try Data(contentsOf: url)
        bytes[bytes.count - 3] ^= 0xFF
        try bytes.write(to: url)
        expectGraphError(.checksumMismatch) { _ = try RoadGraph(privateCopyOf: url, in: FileManager.default.temporaryDirectory) }
        expectGraphError(.io) { _ = try RoadGraph(privateCopyOf: temporaryURL("missing.graph"), in: FileManager.default.temporaryDirectory) }
    }
}
