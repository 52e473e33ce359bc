import Foundation
import Geo

/// Builds a `RoadGraph` in memory (used by OSMImport, by tests with hand-made or random graphs, and by fixtures).
///
/// Node ids are kept: the n-th `addNode` is node n. Edge ids returned by `addEdge` are *builder* ids: `build()`
/// sorts edges by source node (stable), so the final id equals the builder id exactly when edges were added in
/// non-decreasing source order; otherwise use `buildWithEdgeMap()` to translate. Reverse twins are detected
/// automatically: an edge v→u of the same OSM way whose shape is the reverse of u→v's.
public struct RoadGraphBuilder {
    private var coordinates: [Coordinate] = []
    private var passable: [UInt8] = []
    private var edgeFrom: [UInt32] = []
    private var edgeTo: [UInt32] = []
    private var edgeShapeStart: [Int] = []
    private var shapes: [Coordinate] = []
    private var attributes: [EdgeAttributes] = []
    private var restrictions: [TurnRestriction] = []

    /// Stored with the graph; counts and bounding box are filled in by `build()`.
    public var metadata = GraphMetadata()
    public var gridConfiguration = SpatialGridConfiguration()

    public init() {}

    public var nodeCount: Int { coordinates.count }
    public var edgeCount: Int { edgeFrom.count }

    public mutating func addNode(_ c: Coordinate) -> NodeID {
        addNode(c, passableBy: .all)
    }

    /// Adds a node that only `passableBy` modes may pass through (a barrier such as a bollard clears `.driving`).
    public mutating func addNode(_ c: Coordinate, passableBy: ModeMask) -> NodeID {
        coordinates.append(c)
        passable.append(passableBy.rawValue)
        return NodeID(coordinates.count - 1)
    }

    public func coordinate(of node: NodeID) -> Coordinate { coordinates[Int(node)] }

    /// Adds a directed edge; call twice (with reversed shape) for a two-way road.
    /// - Parameter shape: intermediate points only, in the direction from → to.
    @discardableResult
    public mutating func addEdge(from: NodeID, to: NodeID, shape: [Coordinate] = [], attributes: EdgeAttributes) -> EdgeID {
        edgeFrom.append(from)
        edgeTo.append(to)
        edgeShapeStart.append(shapes.count)
        shapes.append(contentsOf: shape)
        self.attributes.append(attributes)
        return EdgeID(edgeFrom.count - 1)
    }

    /// Restriction in builder edge ids.
    public mutating func addTurnRestriction(_ r: TurnRestriction) {
        restrictions.append(r)
    }

    public func build() throws -> RoadGraph {
        try buildWithEdgeMap().graph
    }

    /// Builds and returns `edgeIDs[builderID] == final id`.
    public func buildWithEdgeMap() throws -> (graph: RoadGraph, edgeIDs: [EdgeID]) {
        let n = coordinates.count
        let e = edgeFrom.count
        guard n < Int(UInt32.max), e < Int(GraphFileLayout.noEdge), shapes.count < Int(UInt32.max) else {
            throw RoadGraphError(.tooLarge, "\(n) nodes / \(e) edges exceed the 32-bit graph format")
        }
        for i in 0..<e where Int(edgeFrom[i]) >= n || Int(edgeTo[i]) >= n {
            throw RoadGraphError(.invalidInput, "edge \(i) refers to node \(max(edgeFrom[i], edgeTo[i])) but only \(n) nodes exist")
        }
        for c in coordinates where !c.isValid {
            throw RoadGraphError(.invalidInput, "invalid coordinate \(c)")
        }
        func shapeRange(_ i: Int) -> Range<Int> { edgeShapeStart[i]..<(i + 1 < e ? edgeShapeStart[i + 1] : shapes.count) }

        // CSR order: stable counting sort by source.
        var firstOut = [UInt32](repeating: 0, count: n + 1)
        for f in edgeFrom { firstOut[Int(f) + 1] += 1 }
        for i in 0..<n { firstOut[i + 1] += firstOut[i] }
        var cursor = firstOut
        var newID = [UInt32](repeating: 0, count: e)
        var oldOf = [Int](repeating: 0, count: e)
        for i in 0..<e {
            let slot = cursor[Int(edgeFrom[i])]
            cursor[Int(edgeFrom[i])] += 1
            newID[i] = slot
            oldOf[Int(slot)] = i
        }

        // Twins: same way, reversed endpoints, reversed shape.
        struct TwinKey: Hashable { var from: UInt32; var to: UInt32; var way: Int64 }
        var byKey = [TwinKey: [Int]]()
        byKey.reserveCapacity(e)
        for i in 0..<e { byKey[TwinKey(from: edgeFrom[i], to: edgeTo[i], way: attributes[i].osmWayID), default: []].append(i) }
        var reverse = [UInt32](repeating: GraphFileLayout.noEdge, count: e)  // in new ids
        for i in 0..<e where reverse[Int(newID[i])] == GraphFileLayout.noEdge {
            guard let options = byKey[TwinKey(from: edgeTo[i], to: edgeFrom[i], way: attributes[i].osmWayID)] else { continue }
            let mine = shapes[shapeRange(i)]
            for j in options where j != i && reverse[Int(newID[j])] == GraphFileLayout.noEdge {
                if mine.elementsEqual(shapes[shapeRange(j)].reversed()) {
                    reverse[Int(newID[i])] = newID[j]
                    reverse[Int(newID[j])] = newID[i]
                    break
                }
            }
        }

        // Strings.
        var stringIndex = ["": UInt32(0)]
        var stringOffsets: [UInt32] = [0, 0]  // string 0 = ""
        var stringBytes = [UInt8]()
        func intern(_ s: String) -> UInt32 {
            if let i = stringIndex[s] { return i }
            stringBytes.append(contentsOf: s.utf8)
            stringOffsets.append(UInt32(stringBytes.count))
            let i = UInt32(stringOffsets.count - 2)
            stringIndex[s] = i
            return i
        }

        // Edge arrays in new order.
        var sources = [UInt32](repeating: 0, count: e)
        var targets = [UInt32](repeating: 0, count: e)
        var records = [UInt8](repeating: 0, count: e * GraphFileLayout.edgeRecordSize)
        var shapeFirst = [UInt32](repeating: 0, count: e + 1)
        var shapePoints = [Int32]()
        shapePoints.reserveCapacity(shapes.count * 2)
        func fixed(_ c: Coordinate) -> (Int32, Int32) {
            (Int32((c.latitude * 1e7).rounded()), Int32((c.longitude * 1e7).rounded()))
        }
        func centiKph(_ v: Double?) -> UInt16 {
            guard let v, v.isFinite, v > 0 else { return 0 }
            return UInt16(min(65535, max(1, (v * 100).rounded())))
        }
        var restrictionFrom = Set<UInt32>()
        for r in restrictions {
            guard Int(r.from) < e, Int(r.to) < e else {
                throw RoadGraphError(.invalidInput, "turn restriction refers to a missing edge")
            }
            restrictionFrom.insert(newID[Int(r.from)])
        }
        for ne in 0..<e {
            let i = oldOf[ne]
            sources[ne] = edgeFrom[i]
            targets[ne] = edgeTo[i]
            // A twin written earlier already holds this shape (reversed): share it.
            let sharesTwinShape = reverse[ne] != GraphFileLayout.noEdge && Int(reverse[ne]) < ne && !shapeRange(i).isEmpty
            if !sharesTwinShape {
                for c in shapes[shapeRange(i)] {
                    let (la, lo) = fixed(c)
                    shapePoints.append(la)
                    shapePoints.append(lo)
                }
            }
            shapeFirst[ne + 1] = UInt32(shapePoints.count / 2)
            let a = attributes[i]
            let length = a.lengthMeters ?? {
                var line = [coordinates[Int(edgeFrom[i])]]
                line.append(contentsOf: shapes[shapeRange(i)])
                line.append(coordinates[Int(edgeTo[i])])
                return PolylineGeometry.lengthMeters(line)
            }()
            var flags = EdgeFlags(rawValue: a.flags.rawValue & EdgeFlags.publicMask)
            if restrictionFrom.contains(UInt32(ne)) { flags.insert(.hasTurnRestrictions) }
            if sharesTwinShape { flags.insert(.shapeFromTwin) }
            let nameIndex = intern(a.name)
            let refIndex = intern(a.ref)
            records.withUnsafeMutableBytes { raw in
                let o = ne * GraphFileLayout.edgeRecordSize
                raw.storeBytes(of: Float32(length), toByteOffset: o, as: Float32.self)
                raw.storeBytes(of: a.access.rawValue, toByteOffset: o + 4, as: UInt8.self)
                raw.storeBytes(of: a.highwayClass.rawValue, toByteOffset: o + 5, as: UInt8.self)
                raw.storeBytes(of: flags.rawValue, toByteOffset: o + 6, as: UInt16.self)
                raw.storeBytes(of: centiKph(a.freeFlowSpeedKph), toByteOffset: o + 8, as: UInt16.self)
                raw.storeBytes(of: centiKph(a.cyclingSpeedKph), toByteOffset: o + 10, as: UInt16.self)
                raw.storeBytes(of: centiKph(a.walkingSpeedKph), toByteOffset: o + 12, as: UInt16.self)
                raw.storeBytes(of: centiKph(a.speedLimitKph), toByteOffset: o + 14, as: UInt16.self)
                raw.storeBytes(of: a.osmWayID, toByteOffset: o + 16, as: Int64.self)
                raw.storeBytes(of: nameIndex, toByteOffset: o + 24, as: UInt32.self)
                raw.storeBytes(of: refIndex, toByteOffset: o + 28, as: UInt32.self)
            }
        }

        // Reverse adjacency.
        var firstIn = [UInt32](repeating: 0, count: n + 1)
        for t in targets { firstIn[Int(t) + 1] += 1 }
        for i in 0..<n { firstIn[i + 1] += firstIn[i] }
        var inCursor = firstIn
        var inEdges = [UInt32](repeating: 0, count: e)
        for ne in 0..<e {
            let t = Int(targets[ne])
            inEdges[Int(inCursor[t])] = UInt32(ne)
            inCursor[t] += 1
        }

        // Restrictions, resolved to new ids, sorted by from.
        var resolved = [(from: UInt32, to: UInt32, kind: UInt8, modes: UInt8)]()
        for r in restrictions {
            let f = newID[Int(r.from)], t = newID[Int(r.to)]
            guard targets[Int(f)] == sources[Int(t)], targets[Int(f)] == r.via else {
                throw RoadGraphError(.invalidInput, "turn restriction \(r.from)→\(r.to) does not meet at via node \(r.via)")
            }
            resolved.append((f, t, r.kind.rawValue, r.modes.rawValue))
        }
        resolved.sort { ($0.from, $0.to, $0.kind) < ($1.from, $1.to, $1.kind) }
        var restrictionBytes = [UInt8](repeating: 0, count: resolved.count * GraphFileLayout.restrictionRecordSize)
        restrictionBytes.withUnsafeMutableBytes { raw in
            for (k, r) in resolved.enumerated() {
                let o = k * GraphFileLayout.restrictionRecordSize
                raw.storeBytes(of: r.from, toByteOffset: o, as: UInt32.self)
                raw.storeBytes(of: r.to, toByteOffset: o + 4, as: UInt32.self)
                raw.storeBytes(of: r.kind, toByteOffset: o + 8, as: UInt8.self)
                raw.storeBytes(of: r.modes, toByteOffset: o + 9, as: UInt8.self)
            }
        }

        // Bounding box and node coordinates.
        var box = BoundingBox(enclosing: coordinates)
        for c in shapes { box?.extend(c) }
        var nodeWords = [Int32]()
        nodeWords.reserveCapacity(n * 2)
        for c in coordinates {
            let (la, lo) = fixed(c)
            nodeWords.append(la)
            nodeWords.append(lo)
        }

        // Spatial grid over the (fixed-point rounded) geometry.
        let grid = SpatialGridBuilder.build(
            edgeCount: e, boundingBox: box, config: gridConfiguration,
            isIndexed: { ne in reverse[ne] == GraphFileLayout.noEdge || ne < Int(reverse[ne]) }
        ) { ne, body in
            let s = Int(sources[ne]), t = Int(targets[ne])
            body(Coordinate(latitude: Double(nodeWords[2 * s]) * 1e-7, longitude: Double(nodeWords[2 * s + 1]) * 1e-7))
            for c in shapes[shapeRange(oldOf[ne])] {
                let (la, lo) = fixed(c)
                body(Coordinate(latitude: Double(la) * 1e-7, longitude: Double(lo) * 1e-7))
            }
            body(Coordinate(latitude: Double(nodeWords[2 * t]) * 1e-7, longitude: Double(nodeWords[2 * t + 1]) * 1e-7))
        }

        var meta = metadata
        meta.nodeCount = n
        meta.edgeCount = e
        meta.turnRestrictionCount = resolved.count
        meta.boundingBox = box
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let metaBytes = try [UInt8](encoder.encode(meta))

        var w = GraphImageWriter()
        w.appendSection(.metadata, metaBytes)
        w.appendSection(.nodeCoordinates, nodeWords)
        w.appendSection(.nodePassable, passable)
        w.appendSection(.firstOut, firstOut)
        w.appendSection(.edgeSource, sources)
        w.appendSection(.edgeTarget, targets)
        w.appendSection(.edgeReverse, reverse)
        w.appendSection(.edgeRecords, records)
        w.appendSection(.shapeFirst, shapeFirst)
        w.appendSection(.shapePoints, shapePoints)
        w.appendSection(.stringOffsets, stringOffsets)
        w.appendSection(.stringBytes, stringBytes)
        w.appendSection(.firstIn, firstIn)
        w.appendSection(.inEdges, inEdges)
        w.appendSection(.restrictions, restrictionBytes)
        w.appendSection(.gridHeader, grid.header)
        w.appendSection(.gridFirst, grid.first)
        w.appendSection(.gridEdges, grid.entries)
        let image = w.finish()
        let graph = try RoadGraph(storage: GraphStorage(copying: image), verifyChecksum: false)
        return (graph, newID)
    }
}
