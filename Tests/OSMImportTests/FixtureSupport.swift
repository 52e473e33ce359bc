import Foundation
import Geo
import RoadGraph
import TestKit
@testable import OSMImport

/// An imported ASCII fixture with lookups by letter.
struct ImportedFixture {
    let fixture: ASCIIMapFixture
    let graph: RoadGraph
    let summary: ImportSummary

    init(_ fixture: ASCIIMapFixture) throws {
        self.fixture = fixture
        let url = try fixture.writeTemporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        (graph, summary) = try GraphImporter.buildGraph(input: url)
    }

    /// The graph node drawn at `letter`, if it became one.
    func node(_ letter: Character) -> NodeID? {
        let c = fixture[letter]
        return (0..<NodeID(graph.nodeCount)).first { Geodesy.distanceMeters(graph.coordinate(of: $0), c) < 0.05 }
    }

    /// The edge that starts at graph node `from` and whose geometry next passes `towards` (a letter).
    func edge(_ from: Character, _ towards: Character) -> EdgeID? {
        guard let n = node(from) else { return nil }
        let t = fixture[towards]
        return graph.outgoingEdges(of: n).first { e in
            let g = graph.geometry(of: e)
            return g.count >= 2 && Geodesy.distanceMeters(g[1], t) < 0.05
        }
    }

    /// Modes allowed from `from` towards `towards` (empty when there is no such edge).
    func access(_ from: Character, _ towards: Character) -> ModeMask {
        edge(from, towards).map { graph.access(of: $0) } ?? []
    }
}
