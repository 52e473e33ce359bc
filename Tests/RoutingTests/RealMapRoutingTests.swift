import Foundation
import Geo
import OSMImport
import RoadGraph
import TestKit
import Testing

@testable import Routing

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let helsinki = repositoryRoot.appendingPathComponent(".cache/maps/Helsinki.osm.pbf")
private let liechtenstein = repositoryRoot.appendingPathComponent("../shared/maps/liechtenstein.osm.pbf")

/// Every method against bidirectional Dijkstra on real extracts imported through OSMImport, on random pairs inside
/// the map's bounding box (both strategies, with and without avoid options).
private func methodsAgree(on map: URL, pairs: Int, seed: UInt64) throws {
    let (graph, _) = try GraphImporter.buildGraph(input: map)
    let router = Router(graph: graph, landmarks: LandmarkIndex.build(graph: graph, modes: [.driving, .walking]))
    var rng = SeededGenerator(seed: seed)
    // Points near random junctions (up to ~30 m off), so that most pairs are on the road network.
    func randomPoint() -> Waypoint {
        let node = NodeID.random(in: 0..<NodeID(graph.nodeCount), using: &rng)
        let c = graph.coordinate(of: node)
        return Waypoint(Coordinate(latitude: c.latitude + Double.random(in: -2e-4...2e-4, using: &rng),
                                   longitude: c.longitude + Double.random(in: -3e-4...3e-4, using: &rng)))
    }
    var routed = 0
    for query in 0..<pairs {
        let mode: TravelMode = query % 5 == 4 ? .walking : .driving
        let avoid: AvoidOptions = query % 3 == 2 ? [.ferries, .highways, .tolls] : [.ferries]
        let request = RouteRequest(origin: randomPoint(), destinations: [randomPoint()], travelMode: mode,
                                   strategy: query % 2 == 0 ? .best : .shorter, avoid: avoid)
        let reference = router.route(request, algorithm: .bidirectionalDijkstra)
        for algorithm in [SearchAlgorithm.alt, .unidirectionalAlt, .dijkstra] {
            let other = router.route(request, algorithm: algorithm)
            #expect(other.status == reference.status, "query \(query) \(algorithm)")
            if let a = other.route, let b = reference.route {
                #expect(nearlyEqual(a.weight, b.weight), "query \(query) \(algorithm): \(a.weight) vs \(b.weight)")
                #expect(isLegal(a.legs[0], graph: graph, mode: mode, avoid: avoid))
            }
        }
        if reference.status == .ok { routed += 1 }
    }
    #expect(routed > pairs / 2, "only \(routed) of \(pairs) random pairs routable")
}

@Suite struct RealMapRoutingTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: helsinki.path),
                   "Helsinki.osm.pbf absent: run scripts/fetch-maps"))
    func methodsAgreeOnHelsinki() throws {
        try methodsAgree(on: helsinki, pairs: 150, seed: 2024)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: liechtenstein.path),
                   "../shared/maps/liechtenstein.osm.pbf absent"))
    func methodsAgreeOnLiechtenstein() throws {
        try methodsAgree(on: liechtenstein, pairs: 50, seed: 7)
    }
}
