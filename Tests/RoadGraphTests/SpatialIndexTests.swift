import Foundation
import Geo
import TestKit
import Testing

@testable import RoadGraph

func randomGraph(seed: UInt64, nodes: Int = 400, edges: Int = 900, spanMeters: Double = 3000,
                 grid: SpatialGridConfiguration = SpatialGridConfiguration()) throws -> RoadGraph {
    var rng = SeededGenerator(seed: seed)
    let proj = LocalProjection(origin: Coordinate(latitude: 60.17, longitude: 24.94))
    var b = RoadGraphBuilder()
    b.gridConfiguration = grid
    var coords = [Coordinate]()
    for _ in 0..<nodes {
        let c = proj.unproject(x: .random(in: 0...spanMeters, using: &rng), y: .random(in: 0...spanMeters, using: &rng))
        coords.append(c)
        _ = b.addNode(c)
    }
    let allModes: [ModeMask] = [.all, [.walking], [.driving, .taxi], [.cycling, .walking]]
    for w in 0..<edges {
        let u = Int.random(in: 0..<nodes, using: &rng)
        let v = Int.random(in: 0..<nodes, using: &rng)
        // Short edges near each other with 0–3 shape points.
        let shapeCount = Int.random(in: 0...3, using: &rng)
        var shape = [Coordinate]()
        for k in 0..<shapeCount {
            let t = Double(k + 1) / Double(shapeCount + 1)
            shape.append(Coordinate(latitude: coords[u].latitude + (coords[v].latitude - coords[u].latitude) * t + .random(in: -0.0003...0.0003, using: &rng),
                                    longitude: coords[u].longitude + (coords[v].longitude - coords[u].longitude) * t))
        }
        let access = allModes.randomElement(using: &rng)!
        b.addEdge(from: NodeID(u), to: NodeID(v), shape: shape, attributes: EdgeAttributes(access: access, osmWayID: Int64(w)))
        if Bool.random(using: &rng) {
            // Twins often differ in access (oneway for some modes), which the index must honour per direction.
            let backAccess = Bool.random(using: &rng) ? access : allModes.randomElement(using: &rng)!
            b.addEdge(from: NodeID(v), to: NodeID(u), shape: shape.reversed(), attributes: EdgeAttributes(access: backAccess, osmWayID: Int64(w)))
        }
    }
    return try b.build()
}

/// Brute force: distance from p to every edge's geometry (haversine to the point found by Geo's projection).
func bruteForceNearest(_ g: RoadGraph, _ p: Coordinate, mode: TravelMode, radius: Double) -> [(EdgeID, Double)] {
    var out = [(EdgeID, Double)]()
    for e in 0..<EdgeID(g.edgeCount) where g.access(of: e).contains(mode) {
        let proj = PolylineGeometry.project(p, ontoPolyline: g.geometry(of: e))!
        if proj.distanceMeters <= radius { out.append((e, proj.distanceMeters)) }
    }
    return out.sorted { $0.1 < $1.1 }
}

@Suite struct SpatialIndexTests {
    @Test(arguments: [SpatialGridConfiguration(), SpatialGridConfiguration(cellMeters: 500), SpatialGridConfiguration(cellMeters: 10, maxCells: 64)])
    func nearestEdgesMatchesBruteForce(grid: SpatialGridConfiguration) throws {
        let g = try randomGraph(seed: 42, grid: grid)
        var rng = SeededGenerator(seed: 7)
        let proj = LocalProjection(origin: Coordinate(latitude: 60.17, longitude: 24.94))
        var totalFound = 0
        for i in 0..<150 {
            let p = proj.unproject(x: .random(in: -200...3200, using: &rng), y: .random(in: -200...3200, using: &rng))
            let mode = TravelMode.allCases[i % TravelMode.allCases.count]
            let radius = [5.0, 30, 80, 250][i % 4]
            let fast = g.nearestEdges(to: p, mode: mode, radiusMeters: radius, limit: 1000)
            let slow = bruteForceNearest(g, p, mode: mode, radius: radius)
            totalFound += slow.count
            // Edges whose distance is not within 1 cm of the radius must agree exactly.
            let fastSet = Set(fast.filter { abs($0.distanceMeters - radius) > 0.01 }.map(\.edge))
            let slowSet = Set(slow.filter { abs($0.1 - radius) > 0.01 }.map(\.0))
            #expect(fastSet == slowSet, "query \(i) at \(p) r=\(radius)")
            for snap in fast {
                #expect(g.access(of: snap.edge).contains(mode))
                let ref = PolylineGeometry.project(p, ontoPolyline: g.geometry(of: snap.edge))!
                #expect(abs(ref.distanceMeters - snap.distanceMeters) < 0.05)
                #expect(abs(ref.offsetMeters - snap.offsetMeters) < 0.5)
            }
            #expect(zip(fast, fast.dropFirst()).allSatisfy { $0.distanceMeters <= $1.distanceMeters + 1e-6 })
            let limited = g.nearestEdges(to: p, mode: mode, radiusMeters: radius, limit: 2)
            #expect(limited.count == min(2, fast.count))
            #expect(limited.map(\.edge) == Array(fast.prefix(2)).map(\.edge))
            // Small limits select the best distinct edges without sorting all candidates: same snaps as a prefix.
            for limit in [1, 12] {
                #expect(g.nearestEdges(to: p, mode: mode, radiusMeters: radius, limit: limit) == Array(fast.prefix(limit)))
            }
        }
        #expect(totalFound > 300, "the random queries should hit many edges")
    }

    @Test func farAwayAndDegenerateQueriesReturnNothing() throws {
        let g = try randomGraph(seed: 1, nodes: 50, edges: 60)
        #expect(g.nearestEdges(to: Coordinate(latitude: 10, longitude: 10), mode: .walking, radiusMeters: 1000, limit: 5).isEmpty)
        let onNode = g.coordinate(of: 0)
        #expect(g.nearestEdges(to: onNode, mode: .walking, radiusMeters: 50, limit: 0).isEmpty)
        #expect(g.nearestEdges(to: onNode, mode: .walking, radiusMeters: -1, limit: 5).isEmpty)
    }
}
