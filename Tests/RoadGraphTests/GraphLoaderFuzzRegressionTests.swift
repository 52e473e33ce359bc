import Foundation
import Geo
import Testing

@testable import RoadGraph

/// Graph images found by `scripts/fuzz` (target graph) that once crashed the loader.
@Suite("Graph loader: fuzz regressions")
struct GraphLoaderFuzzRegressionTests {
    static func image() throws -> [UInt8] {
        var builder = RoadGraphBuilder()
        let a = builder.addNode(Coordinate(latitude: 47.10, longitude: 9.50))
        let b = builder.addNode(Coordinate(latitude: 47.101, longitude: 9.50))
        _ = builder.addEdge(from: a, to: b, attributes: EdgeAttributes(osmWayID: 1, name: "Main"))
        _ = builder.addEdge(from: b, to: a, attributes: EdgeAttributes(osmWayID: 1, name: "Main"))
        let graph = try builder.build()
        return Array(UnsafeRawBufferPointer(start: graph.storage.base, count: graph.byteCount))
    }

    /// The spatial grid header's row and column counts are file data: huge ones made `rows * cols` or
    /// `(cells + 1) * 4` overflow and trap instead of throwing `corrupt`.
    static let hugeDimensions: [[UInt32]] = [
        [.max, .max], [.max, 3], [1 << 31, 1 << 31], [3_037_000_499, 3_037_000_499],
    ]

    @Test(arguments: hugeDimensions)
    func hugeGridDimensionsAreCorruptNotATrap(dimensions: [UInt32]) throws {
        let (rows, cols) = (dimensions[0], dimensions[1])
        var bytes = try Self.image()
        let section = GraphFileLayout.Section.gridHeader.rawValue
        let offset = bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 64 + section * 16, as: UInt64.self)) }
        bytes.withUnsafeMutableBytes {
            $0.storeBytes(of: rows, toByteOffset: offset + 32, as: UInt32.self)
            $0.storeBytes(of: cols, toByteOffset: offset + 36, as: UInt32.self)
        }
        #expect(throws: RoadGraphError.self) {
            _ = try RoadGraph(storage: GraphStorage(copying: bytes), verifyChecksum: false)
        }
    }

    @Test func theUnmodifiedImageStillLoads() throws {
        let graph = try RoadGraph(storage: GraphStorage(copying: try Self.image()), verifyChecksum: false)
        #expect(graph.edgeCount == 2)
    }
}
