import Foundation
import Geo
import TestKit
import Testing

@testable import RoadGraph

/// A small graph: a two-way street A–B–C with a shape point between A and B, a oneway B→D, and a dead-end spur C–E.
///
///     A ~ B --- C --- E
///         |
///         v
///         D
struct SmallGraph {
    let graph: RoadGraph
    let a: NodeID, b: NodeID, c: NodeID, d: NodeID, e: NodeID
    let ab: EdgeID, ba: EdgeID, bc: EdgeID, cb: EdgeID, bd: EdgeID, ce: EdgeID, ec: EdgeID

    init(restrictions: (inout RoadGraphBuilder, [EdgeID]) -> Void = { _, _ in }, bPassable: ModeMask = .all) throws {
        var builder = RoadGraphBuilder()
        let o = Coordinate(latitude: 60.17, longitude: 24.94)
        let proj = LocalProjection(origin: o)
        func at(_ x: Double, _ y: Double) -> Coordinate { proj.unproject(x: x, y: y) }
        // Add nodes out of order relative to edges to exercise the CSR renumbering.
        let a = builder.addNode(at(0, 0))
        let b = builder.addNode(at(100, 0), passableBy: bPassable)
        let c = builder.addNode(at(200, 0))
        let d = builder.addNode(at(100, -100))
        let e = builder.addNode(at(300, 0))
        let street = EdgeAttributes(access: .all, freeFlowSpeedKph: 30, speedLimitKph: 30, osmWayID: 10, name: "Mannerheimintie", ref: "")
        var ids = [EdgeID]()
        ids.append(builder.addEdge(from: c, to: e, attributes: EdgeAttributes(osmWayID: 12, name: "Spur")))  // 0
        ids.append(builder.addEdge(from: e, to: c, attributes: EdgeAttributes(osmWayID: 12, name: "Spur")))  // 1
        ids.append(builder.addEdge(from: a, to: b, shape: [at(50, 10)], attributes: street))  // 2
        ids.append(builder.addEdge(from: b, to: a, shape: [at(50, 10)], attributes: street))  // 3
        ids.append(builder.addEdge(from: b, to: c, attributes: street))  // 4
        ids.append(builder.addEdge(from: c, to: b, attributes: street))  // 5
        var oneway = EdgeAttributes(access: [.driving, .taxi, .twoWheeler, .cycling, .walking], flags: [.oneway, .toll],
                                    freeFlowSpeedKph: 50, osmWayID: 11, name: "Oneway", ref: "E18", highwayClass: .primary)
        oneway.lengthMeters = 123
        ids.append(builder.addEdge(from: b, to: d, attributes: oneway))  // 6
        restrictions(&builder, ids)
        let (graph, map) = try builder.buildWithEdgeMap()
        self.graph = graph
        self.a = a; self.b = b; self.c = c; self.d = d; self.e = e
        ce = map[0]; ec = map[1]; ab = map[2]; ba = map[3]; bc = map[4]; cb = map[5]; bd = map[6]
    }
}

@Suite struct RoadGraphBuilderTests {
    @Test func countsAndCSROrder() throws {
        let g = try SmallGraph()
        #expect(g.graph.nodeCount == 5)
        #expect(g.graph.edgeCount == 7)
        var seen = Set<EdgeID>()
        for n in 0..<NodeID(g.graph.nodeCount) {
            for e in g.graph.outgoingEdges(of: n) {
                #expect(g.graph.source(of: e) == n)
                seen.insert(e)
            }
            for e in g.graph.incomingEdges(of: n) { #expect(g.graph.target(of: e) == n) }
        }
        #expect(seen.count == 7)
        #expect(Set(g.graph.outgoingEdges(of: g.b)) == [g.ba, g.bc, g.bd])
        #expect(Set(g.graph.incomingEdges(of: g.b)) == [g.ab, g.cb])
        #expect(g.graph.incomingEdges(of: g.d).count == 1)
        #expect(g.graph.outgoingEdges(of: g.d).isEmpty)
    }

    @Test func twinsAreDetectedBySharedWayAndReversedShape() throws {
        let g = try SmallGraph()
        #expect(g.graph.reverseEdge(of: g.ab) == g.ba)
        #expect(g.graph.reverseEdge(of: g.ba) == g.ab)
        #expect(g.graph.reverseEdge(of: g.bc) == g.cb)
        #expect(g.graph.reverseEdge(of: g.ce) == g.ec)
        #expect(g.graph.reverseEdge(of: g.bd) == nil)
    }

    @Test func attributesRoundTripThroughTheImage() throws {
        let g = try SmallGraph()
        let graph = g.graph
        #expect(graph.name(of: g.ab) == "Mannerheimintie")
        #expect(graph.ref(of: g.bd) == "E18")
        #expect(graph.ref(of: g.ab) == "")
        #expect(graph.osmWayID(of: g.bd) == 11)
        #expect(graph.flags(of: g.bd) == [.oneway, .toll])
        #expect(graph.highwayClass(of: g.bd) == .primary)
        #expect(graph.lengthMeters(of: g.bd) == 123)
        #expect(graph.speedLimitKph(of: g.ab) == 30)
        #expect(graph.speedLimitKph(of: g.bd) == nil)
        #expect(graph.freeFlowSpeedKph(of: g.bd, mode: .driving) == 50)
        #expect(graph.freeFlowSpeedKph(of: g.bd, mode: .cycling) == 18)
        #expect(graph.freeFlowSpeedKph(of: g.bd, mode: .walking) == 5)
        #expect(abs(graph.durationSeconds(of: g.bd, mode: .driving) - 123 * 3.6 / 50) < 1e-9)
        #expect(graph.access(of: g.bd) == [.driving, .taxi, .twoWheeler, .cycling, .walking])
        // Length is computed along the shape when not given: 100 m east plus a 10 m detour north.
        let expected = 2 * (50.0 * 50 + 10 * 10).squareRoot()
        #expect(abs(graph.lengthMeters(of: g.ab) - expected) < 0.05)
        let geom = graph.geometry(of: g.ab)
        #expect(geom.count == 3)
        #expect(Geodesy.distanceMeters(geom[0], graph.coordinate(of: g.a)) < 0.01)
        #expect(Geodesy.distanceMeters(geom[2], graph.coordinate(of: g.b)) < 0.01)
        #expect(graph.geometry(of: g.ba).reversed().elementsEqual(geom))
        #expect(graph.metadata.nodeCount == 5 && graph.metadata.edgeCount == 7)
        #expect(graph.metadata.boundingBox != nil)
    }

    @Test func edgeIDsAreStableWhenAddedInSourceOrder() throws {
        var b = RoadGraphBuilder()
        let n0 = b.addNode(Coordinate(latitude: 0, longitude: 0))
        let n1 = b.addNode(Coordinate(latitude: 0, longitude: 0.001))
        let e0 = b.addEdge(from: n0, to: n1, attributes: EdgeAttributes())
        let e1 = b.addEdge(from: n1, to: n0, attributes: EdgeAttributes())
        let (graph, map) = try b.buildWithEdgeMap()
        #expect(map == [e0, e1])
        #expect(graph.source(of: e1) == n1)
    }

    @Test func invalidInputIsATypedError() {
        var b = RoadGraphBuilder()
        let n0 = b.addNode(Coordinate(latitude: 0, longitude: 0))
        b.addEdge(from: n0, to: 7, attributes: EdgeAttributes())
        #expect(throws: RoadGraphError.self) { try b.build() }
        var c = RoadGraphBuilder()
        _ = c.addNode(Coordinate(latitude: 100, longitude: 0))
        do { _ = try c.build(); Issue.record("expected error") } catch let e as RoadGraphError {
            #expect(e.code == .invalidInput)
        } catch { Issue.record("\(error)") }
    }

    @Test func emptyGraphBuildsAndAnswersNothing() throws {
        let graph = try RoadGraphBuilder().build()
        #expect(graph.nodeCount == 0 && graph.edgeCount == 0)
        #expect(graph.nearestEdges(to: Coordinate(latitude: 0, longitude: 0), mode: .driving, radiusMeters: 100, limit: 3).isEmpty)
    }
}

@Suite struct TurnRestrictionTests {
    @Test func noRestrictionForbidsOnlyThatTurnForThoseModes() throws {
        let g = try SmallGraph { b, ids in
            b.addTurnRestriction(TurnRestriction(from: ids[2], via: 1, to: ids[6], kind: .no, modes: [.driving]))
        }
        #expect(!g.graph.isTurnAllowed(from: g.ab, to: g.bd, mode: .driving))
        #expect(g.graph.isTurnAllowed(from: g.ab, to: g.bd, mode: .taxi))
        #expect(g.graph.isTurnAllowed(from: g.ab, to: g.bc, mode: .driving))
        #expect(g.graph.turnRestrictionCount == 1)
        #expect(g.graph.turnRestrictions.first?.kind == TurnRestriction.Kind.no)
    }

    @Test func onlyRestrictionAllowsOnlyItsTarget() throws {
        let g = try SmallGraph { b, ids in
            b.addTurnRestriction(TurnRestriction(from: ids[2], via: 1, to: ids[4], kind: .only, modes: [.driving, .cycling]))
        }
        #expect(g.graph.isTurnAllowed(from: g.ab, to: g.bc, mode: .driving))
        #expect(!g.graph.isTurnAllowed(from: g.ab, to: g.bd, mode: .driving))
        #expect(!g.graph.isTurnAllowed(from: g.ab, to: g.bd, mode: .cycling))
        #expect(g.graph.isTurnAllowed(from: g.ab, to: g.bd, mode: .walking))
        // Other from-edges are unaffected.
        #expect(g.graph.isTurnAllowed(from: g.cb, to: g.bd, mode: .driving))
    }

    @Test func uTurnsOnlyAtDeadEnds() throws {
        let g = try SmallGraph()
        #expect(!g.graph.isTurnAllowed(from: g.ab, to: g.ba, mode: .driving))
        #expect(g.graph.isTurnAllowed(from: g.ce, to: g.ec, mode: .driving))
        // Edges that do not meet.
        #expect(!g.graph.isTurnAllowed(from: g.ab, to: g.ce, mode: .driving))
    }

    @Test func barrierNodeBlocksPassageButAllowsTurningBack() throws {
        let g = try SmallGraph(bPassable: [.walking, .cycling])
        #expect(!g.graph.isPassable(node: g.b, mode: .driving))
        #expect(!g.graph.isTurnAllowed(from: g.ab, to: g.bc, mode: .driving))
        #expect(g.graph.isTurnAllowed(from: g.ab, to: g.ba, mode: .driving))
        #expect(g.graph.isTurnAllowed(from: g.ab, to: g.bc, mode: .cycling))
    }

    @Test func restrictionNotMeetingAtViaIsRejected() {
        #expect(throws: RoadGraphError.self) {
            _ = try SmallGraph { b, ids in
                b.addTurnRestriction(TurnRestriction(from: ids[2], via: 1, to: ids[0], kind: .no))
            }
        }
    }
}

@Suite struct GeometryStorageTests {
    /// Every edge's geometry is what was added, whether it owns its shape or shares its twin's.
    @Test func geometryMatchesInputForOwnedAndSharedShapes() throws {
        var rng = SeededGenerator(seed: 11)
        var b = RoadGraphBuilder()
        var coords = [Coordinate]()
        for _ in 0..<60 {
            let c = Coordinate(latitude: .random(in: 60.1...60.2, using: &rng), longitude: .random(in: 24.9...25.0, using: &rng))
            coords.append(c)
            _ = b.addNode(c)
        }
        var expected = [[Coordinate]]()
        for w in 0..<150 {
            let u = Int.random(in: 0..<60, using: &rng), v = Int.random(in: 0..<60, using: &rng)
            let shape = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                Coordinate(latitude: .random(in: 60.1...60.2, using: &rng), longitude: .random(in: 24.9...25.0, using: &rng))
            }
            b.addEdge(from: NodeID(u), to: NodeID(v), shape: shape, attributes: EdgeAttributes(osmWayID: Int64(w)))
            expected.append([coords[u]] + shape + [coords[v]])
            if w % 3 != 0 {
                b.addEdge(from: NodeID(v), to: NodeID(u), shape: shape.reversed(), attributes: EdgeAttributes(osmWayID: Int64(w)))
                expected.append([coords[v]] + shape.reversed() + [coords[u]])
            }
        }
        let (graph, map) = try b.buildWithEdgeMap()
        var shared = 0
        for (i, line) in expected.enumerated() {
            let g = graph.geometry(of: map[i])
            #expect(g.count == line.count)
            #expect(graph.shapePointCount(of: map[i]) == line.count - 2)
            for (p, q) in zip(g, line) {
                #expect(abs(p.latitude - q.latitude) < 1e-7 && abs(p.longitude - q.longitude) < 1e-7)
            }
            if graph.reverseEdge(of: map[i]) != nil && line.count > 2 { shared += 1 }
        }
        #expect(shared > 100)
        // Shared shapes are stored once: the shape section holds each two-way road's points a single time.
        let stored = graph.sectionSizes.first { $0.name == "shapePoints" }!.bytes / 8
        let distinctShapes = expected.enumerated().filter { i, _ in
            guard let r = graph.reverseEdge(of: map[i]) else { return true }
            return map[i] < r
        }.reduce(0) { $0 + $1.element.count - 2 }
        #expect(stored == distinctShapes)
    }
}
