import Foundation
import Geo
import RoadGraph

/// A road position near a fix: a point part-way along a directed edge.
struct RoadCandidate {
    var edge: EdgeID
    /// Along the edge from its source, metres (of `RoadGeometryIndex.length`).
    var offset: Double
    /// From the fix to the snapped point, metres.
    var distance: Double
    /// True when the edge is closed to the searched mode and offered only as a closed road
    /// (`RoadGeometryIndex.closedRoadModes`).
    var closed = false
}

/// The graph's edge shapes copied once into flat arrays, with a uniform grid over roads (a pair of twins is
/// indexed once), so that candidate search, points and bearings part-way along an edge cost no allocation.
///
/// Lengths here are haversine sums over the shape, which agree with `RoadGraph.lengthMeters` to float precision.
/// Immutable after `init`; share one index between matchers of the same graph.
public final class RoadGeometryIndex: Sendable {
    public let graph: RoadGraph
    /// Vertex range of edge e: firstVertex[e] ..< firstVertex[e + 1].
    let firstVertex: [Int32]
    let latitudes: [Double]
    let longitudes: [Double]
    /// Along the edge from its source at each vertex, metres.
    let along: [Double]
    let edgeLength: [Double]
    /// Initial bearing of the segment from each vertex to the next of its edge, degrees (0 at an edge's last
    /// vertex): the matcher asks for bearings a hundred times per fix, and each costs four trigonometric calls.
    let segmentBearing: [Double]
    /// Per node, 1 where traffic waits just before the node: a junction of three or more roads open to motor
    /// vehicles, or traffic signals (OSM puts the signal node at the stop line or on the junction). Footway and
    /// cycleway crossings do not count: OSM splits the road at every sidewalk crossing.
    let waitingNodes: [UInt8]
    /// The graph's adjacency copied for the bounded road searches between fixes (RoadGraph's accessors check
    /// their arguments and are calls into another module; the searches run several times per fix):
    /// outgoing edges of node u are firstOutEdge[u] ..< firstOutEdge[u + 1], as in the graph.
    let firstOutEdge: [UInt32]
    /// Source and target node of each edge.
    let edgeSource: [UInt32]
    let edgeTarget: [UInt32]
    /// `ModeMask` raw value of each edge (the modes allowed on it).
    let edgeAccess: [UInt8]
    /// The reverse direction of each edge (`UInt32.max` for a one-way road): the candidate lookup and the
    /// transitions ask for it for every road and state pair, and `RoadGraph.reverseEdge(of:)` is a checked call into
    /// another module.
    let edgeReverse: [UInt32]
    /// `ModeMask` raw value of each node: the modes that may pass through it (barriers block some).
    let nodePassable: [UInt8]
    /// Direction of each edge where it starts and where it ends, degrees (the smoother asks for them for every
    /// sample of its window, on every fix).
    let entryBearings: [Double]
    let exitBearings: [Double]
    /// `ModeMask` raw value of each edge: the motor modes its tags close it to although a car could drive it
    /// (`RoadGraph.motorModesClosedByTags`: motor_vehicle=no, access=no, a pedestrian street). SUMO's OSM import
    /// ignores motor_vehicle=no: the matcher may offer such edges at a cost
    /// (`MapMatchingConfiguration.closedRoadPenalty`).
    let closedRoadModes: [UInt8]

    /// Bounding box of each edge's shape (latitude and longitude, degrees), rounded outwards to Float: the candidate
    /// lookup skips an edge whose box lies farther than the radius from the fix without projecting the fix onto each
    /// of its segments (a 50 m grid cell in a city centre lists a few dozen edges, most of them out of reach).
    let edgeBoxes: [EdgeBox]
    struct EdgeBox {
        var minLatitude: Float
        var maxLatitude: Float
        var minLongitude: Float
        var maxLongitude: Float
    }

    let gridMinLatitude: Double
    let gridMinLongitude: Double
    let cellLatitude: Double
    let cellLongitude: Double
    let rows: Int
    let columns: Int
    let cellFirst: [Int32]
    let cellEdges: [UInt32]

    /// Builds the index in O(edges + shape points). `cellMeters` is the grid cell side; default 50.
    public init(graph: RoadGraph, cellMeters: Double = 50) {
        self.graph = graph
        let e = graph.edgeCount
        var first = [Int32]()
        first.reserveCapacity(e + 1)
        var lats = [Double](), lons = [Double](), along = [Double](), lengths = [Double]()
        lengths.reserveCapacity(e)
        var box: BoundingBox?
        for edge in 0..<e {
            first.append(Int32(lats.count))
            let shape = graph.geometry(of: EdgeID(edge))
            var total = 0.0
            for (i, p) in shape.enumerated() {
                if i > 0 { total += Geodesy.distanceMeters(shape[i - 1], p) }
                lats.append(p.latitude)
                lons.append(p.longitude)
                along.append(total)
                if box == nil { box = BoundingBox(minLatitude: p.latitude, minLongitude: p.longitude,
                                                  maxLatitude: p.latitude, maxLongitude: p.longitude) } else { box!.extend(p) }
            }
            lengths.append(total)
        }
        first.append(Int32(lats.count))
        var boxes = [EdgeBox]()
        boxes.reserveCapacity(e)
        for edge in 0..<e {
            let lo = Int(first[edge]), hi = Int(first[edge + 1])
            var b = EdgeBox(minLatitude: .infinity, maxLatitude: -.infinity, minLongitude: .infinity,
                            maxLongitude: -.infinity)
            for v in lo..<hi {
                b.minLatitude = min(b.minLatitude, Float(lats[v]).nextDown)
                b.maxLatitude = max(b.maxLatitude, Float(lats[v]).nextUp)
                b.minLongitude = min(b.minLongitude, Float(lons[v]).nextDown)
                b.maxLongitude = max(b.maxLongitude, Float(lons[v]).nextUp)
            }
            boxes.append(b)
        }
        edgeBoxes = boxes
        firstVertex = first
        latitudes = lats
        longitudes = lons
        self.along = along
        edgeLength = lengths
        var bearings = [Double](repeating: 0, count: lats.count)
        for edge in 0..<e {
            let lo = Int(first[edge]), hi = Int(first[edge + 1])
            for v in lo..<max(lo, hi - 1) { bearings[v] = Self.bearing(lats, lons, v) }
        }
        segmentBearing = bearings
        var entryDirections = [Double](repeating: 0, count: e), exitDirections = [Double](repeating: 0, count: e)
        for edge in 0..<e {
            let lo = Int(first[edge]), hi = Int(first[edge + 1])
            guard hi - lo >= 2 else { continue }
            // The first and last segments of non-zero length (a repeated vertex has no direction).
            var a = lo
            while a < hi - 2 && along[a + 1] - along[a] <= 0 { a += 1 }
            var b = hi - 2
            while b > lo && along[b + 1] - along[b] <= 0 { b -= 1 }
            entryDirections[edge] = bearings[a]
            exitDirections[edge] = bearings[b]
        }
        entryBearings = entryDirections
        exitBearings = exitDirections

        let b = box ?? BoundingBox(minLatitude: 0, minLongitude: 0, maxLatitude: 0, maxLongitude: 0)
        let ky = Geodesy.earthRadiusMeters * .pi / 180
        let kx = max(ky * cos(b.center.latitude * .pi / 180), 1)
        var cell = max(cellMeters, 5)
        var r = 1, c = 1
        while true {
            r = max(1, Int(((b.maxLatitude - b.minLatitude) * ky / cell).rounded(.up)))
            c = max(1, Int(((b.maxLongitude - b.minLongitude) * kx / cell).rounded(.up)))
            if r * c <= 1 << 23 { break }
            cell *= 1.5
        }
        rows = r
        columns = c
        gridMinLatitude = b.minLatitude
        gridMinLongitude = b.minLongitude
        cellLatitude = cell / ky
        cellLongitude = cell / kx
        var pairs = [(UInt32, UInt32)]()
        var cells = [UInt32]()
        for edge in 0..<e {
            if let twin = graph.reverseEdge(of: EdgeID(edge)), Int(twin) < edge { continue }
            cells.removeAll(keepingCapacity: true)
            let lo = Int(first[edge]), hi = Int(first[edge + 1])
            for v in lo..<(hi - 1) {
                let r0 = Self.index((min(lats[v], lats[v + 1]) - b.minLatitude) / cellLatitude, r)
                let r1 = Self.index((max(lats[v], lats[v + 1]) - b.minLatitude) / cellLatitude, r)
                let c0 = Self.index((min(lons[v], lons[v + 1]) - b.minLongitude) / cellLongitude, c)
                let c1 = Self.index((max(lons[v], lons[v + 1]) - b.minLongitude) / cellLongitude, c)
                for rr in r0...r1 { for cc in c0...c1 { cells.append(UInt32(rr * c + cc)) } }
            }
            cells.sort()
            var last = UInt32.max
            for cellIndex in cells where cellIndex != last {
                pairs.append((cellIndex, UInt32(edge)))
                last = cellIndex
            }
        }
        var cellFirst = [Int32](repeating: 0, count: r * c + 1)
        for p in pairs { cellFirst[Int(p.0) + 1] += 1 }
        for i in 0..<(r * c) { cellFirst[i + 1] += cellFirst[i] }
        var cursor = cellFirst
        var entries = [UInt32](repeating: 0, count: pairs.count)
        for p in pairs {
            entries[Int(cursor[Int(p.0)])] = p.1
            cursor[Int(p.0)] += 1
        }
        self.cellFirst = cellFirst
        cellEdges = entries

        var waiting = [UInt8](repeating: 0, count: graph.nodeCount)
        var neighbours: [NodeID] = []
        for node in 0..<graph.nodeCount {
            let n = NodeID(node)
            neighbours.removeAll(keepingCapacity: true)
            for e in graph.outgoingEdges(of: n)
            where graph.access(of: e).contains(.driving) && !neighbours.contains(graph.target(of: e)) {
                neighbours.append(graph.target(of: e))
            }
            for e in graph.incomingEdges(of: n) where graph.access(of: e).contains(.driving) {
                if graph.flags(of: e).contains(.trafficSignalsAtTarget) { waiting[node] = 1 }
                if !neighbours.contains(graph.source(of: e)) { neighbours.append(graph.source(of: e)) }
            }
            if neighbours.count >= 3 { waiting[node] = 1 }
        }
        waitingNodes = waiting

        var firstOut = [UInt32](repeating: 0, count: graph.nodeCount + 1)
        var passable = [UInt8](repeating: 0, count: graph.nodeCount)
        for node in 0..<graph.nodeCount {
            let edges = graph.outgoingEdges(of: NodeID(node))
            firstOut[node] = edges.lowerBound
            firstOut[node + 1] = edges.upperBound
            var mask: UInt8 = 0
            for mode in TravelMode.allCases where graph.isPassable(node: NodeID(node), mode: mode) {
                mask |= ModeMask(mode).rawValue
            }
            passable[node] = mask
        }
        firstOutEdge = firstOut
        nodePassable = passable
        edgeSource = (0..<e).map { graph.source(of: EdgeID($0)) }
        edgeTarget = (0..<e).map { graph.target(of: EdgeID($0)) }
        edgeAccess = (0..<e).map { graph.access(of: EdgeID($0)).rawValue }
        edgeReverse = (0..<e).map { graph.reverseEdge(of: EdgeID($0)) ?? .max }
        closedRoadModes = (0..<e).map { graph.motorModesClosedByTags(of: EdgeID($0)).rawValue }
    }

    /// The arrays the bounded road searches read, as buffer pointers (valid only inside `withSearchArrays`).
    struct SearchArrays {
        let firstOutEdge: UnsafeBufferPointer<UInt32>
        let edgeTarget: UnsafeBufferPointer<UInt32>
        let edgeAccess: UnsafeBufferPointer<UInt8>
        let edgeLength: UnsafeBufferPointer<Double>
        let nodePassable: UnsafeBufferPointer<UInt8>
        let closedRoadModes: UnsafeBufferPointer<UInt8>
    }

    /// Calls `body` with the search arrays. A search looks at every edge out of every node it settles, and array
    /// subscripts checked the bounds of four or five arrays per edge; the arrays are sized together in `init` (node
    /// arrays by the graph's node count, edge arrays by its edge count, `firstOutEdge` holding edge indices).
    @inline(__always) func withSearchArrays<R>(_ body: (SearchArrays) -> R) -> R {
        firstOutEdge.withUnsafeBufferPointer { firstOut in
            edgeTarget.withUnsafeBufferPointer { target in
                edgeAccess.withUnsafeBufferPointer { access in
                    edgeLength.withUnsafeBufferPointer { length in
                        nodePassable.withUnsafeBufferPointer { passable in
                            closedRoadModes.withUnsafeBufferPointer { closed in
                                body(SearchArrays(firstOutEdge: firstOut, edgeTarget: target, edgeAccess: access,
                                                  edgeLength: length, nodePassable: passable, closedRoadModes: closed))
                            }
                        }
                    }
                }
            }
        }
    }

    /// True when `e` is closed to `mode` by its tags but is a road the mode could drive (see `closedRoadModes`).
    @inline(__always) public func isClosedRoad(_ e: EdgeID, for mode: TravelMode) -> Bool {
        closedRoadModes[Int(e)] & ModeMask(mode).rawValue != 0
    }

    /// True when traffic waits just before `node`: a junction of three or more roads, or traffic signals.
    @inline(__always) public func isWaitingPoint(_ node: NodeID) -> Bool { waitingNodes[Int(node)] != 0 }

    @inline(__always) static func index(_ x: Double, _ count: Int) -> Int {
        guard x.isFinite else { return 0 }
        return min(count - 1, max(0, Int(x.rounded(.down))))
    }

    /// The edge running the other way along the same road, nil for a one-way road (`RoadGraph.reverseEdge(of:)`).
    @inline(__always) func reverse(of e: EdgeID) -> EdgeID? {
        let r = edgeReverse[Int(e)]
        return r == .max ? nil : r
    }

    /// Length of edge `e` along its shape, metres.
    @inline(__always) public func length(of e: EdgeID) -> Double { edgeLength[Int(e)] }

    /// The point `offset` metres along `e` from its source (clamped to the edge).
    public func point(on e: EdgeID, at offset: Double) -> Coordinate {
        let (v, t) = locate(e, offset)
        return Coordinate(latitude: latitudes[v] + (latitudes[v + 1] - latitudes[v]) * t,
                          longitude: longitudes[v] + (longitudes[v + 1] - longitudes[v]) * t)
    }

    /// Direction of travel along `e` at `offset`, degrees clockwise from north.
    public func bearing(on e: EdgeID, at offset: Double) -> Double {
        var (v, _) = locate(e, offset)
        let hi = Int(firstVertex[Int(e) + 1]) - 1
        while v < hi - 1 && along[v + 1] - along[v] <= 0 { v += 1 }
        return hi > Int(firstVertex[Int(e)]) ? segmentBearing[v] : Self.bearing(latitudes, longitudes, v)
    }

    /// Initial bearing of the segment from vertex v to v + 1, degrees.
    private static func bearing(_ latitudes: [Double], _ longitudes: [Double], _ v: Int) -> Double {
        Geodesy.initialBearingDegrees(
            from: Coordinate(latitude: latitudes[v], longitude: longitudes[v]),
            to: Coordinate(latitude: latitudes[v + 1], longitude: longitudes[v + 1]))
    }

    /// The segment (its first vertex index) holding `offset`, and the fraction within it.
    @inline(__always) func locate(_ e: EdgeID, _ offset: Double) -> (Int, Double) {
        let lo = Int(firstVertex[Int(e)]), hi = Int(firstVertex[Int(e) + 1]) - 1
        if hi <= lo { return (lo, 0) }
        var v = lo
        while v < hi - 1 && along[v + 1] < offset { v += 1 }
        let span = along[v + 1] - along[v]
        let t = span > 0 ? min(1, max(0, (offset - along[v]) / span)) : 0
        return (v, t)
    }

    /// Appends the directed road positions within `radius` metres of `point` usable by `mode`: the nearest
    /// `maximumRoads` roads, each with both of its directions when both are open. With `maximumClosedRoads` > 0,
    /// also the nearest that many roads closed to `mode` by their tags (`closedRoadModes`), marked `closed`.
    /// `scratch` holds reusable per-query storage. Closest roads first.
    func candidates(
        near point: Coordinate, radius: Double, mode: TravelMode, maximumRoads: Int, maximumClosedRoads: Int = 0,
        into out: inout [RoadCandidate], scratch: inout CandidateScratch
    ) {
        out.removeAll(keepingCapacity: true)
        guard maximumRoads > 0, point.isValid, !cellEdges.isEmpty else { return }
        let ky = Geodesy.earthRadiusMeters * .pi / 180
        let kx = ky * cos(point.latitude * .pi / 180)
        let dLat = radius / ky, dLon = radius / max(kx, 1e-6)
        let top = gridMinLatitude + Double(rows) * cellLatitude
        let right = gridMinLongitude + Double(columns) * cellLongitude
        if point.latitude + dLat < gridMinLatitude || point.latitude - dLat > top
            || point.longitude + dLon < gridMinLongitude || point.longitude - dLon > right { return }
        let r0 = Self.index((point.latitude - dLat - gridMinLatitude) / cellLatitude, rows)
        let r1 = Self.index((point.latitude + dLat - gridMinLatitude) / cellLatitude, rows)
        let c0 = Self.index((point.longitude - dLon - gridMinLongitude) / cellLongitude, columns)
        let c1 = Self.index((point.longitude + dLon - gridMinLongitude) / cellLongitude, columns)
        let mask = ModeMask(mode)
        let closedMask = maximumClosedRoads > 0 ? mask.rawValue : 0
        let modeBits = mask.rawValue
        let r2 = radius * radius
        // The box test's margins: a little more than the radius, so that rounding never skips an edge the exact test
        // below would keep.
        let boxLat = dLat * 1.000_001 + 1e-9, boxLon = dLon * 1.000_001 + 1e-9
        scratch.roads.removeAll(keepingCapacity: true)
        scratch.startSearch()
        // The shapes, boxes and cell lists through buffer pointers: no bounds checks per edge and shape point.
        latitudes.withUnsafeBufferPointer { latitudes in
            longitudes.withUnsafeBufferPointer { longitudes in
                edgeBoxes.withUnsafeBufferPointer { edgeBoxes in
                    cellEdges.withUnsafeBufferPointer { cellEdges in
                        for r in r0...r1 {
                            for c in c0...c1 {
                                let cell = r * columns + c
                                for k in Int(cellFirst[cell])..<Int(cellFirst[cell + 1]) {
                                    let e = Int(cellEdges[k])
                                    let box = edgeBoxes[e]
                                    if point.latitude < Double(box.minLatitude) - boxLat
                                        || point.latitude > Double(box.maxLatitude) + boxLat
                                        || point.longitude < Double(box.minLongitude) - boxLon
                                        || point.longitude > Double(box.maxLongitude) + boxLon { continue }
                                    if !scratch.firstSight(of: e) { continue }
                                    let edge = EdgeID(e)
                                    let twin = reverse(of: edge)
                                    let forwardClosed = closedRoadModes[e] & closedMask != 0
                                    let backwardClosed = twin.map { closedRoadModes[Int($0)] & closedMask != 0 }
                                        ?? false
                                    let forwardOpen = forwardClosed || edgeAccess[e] & modeBits == modeBits
                                    let backwardOpen = backwardClosed
                                        || (twin.map { edgeAccess[Int($0)] & modeBits == modeBits } ?? false)
                                    if !forwardOpen && !backwardOpen { continue }
                                    // Closest point of the shape, in an equirectangular frame around the fix.
                                    let lo = Int(firstVertex[e]), hi = Int(firstVertex[e + 1])
                                    var best = Double.infinity, bestV = lo, bestT = 0.0
                                    var px = (longitudes[lo] - point.longitude) * kx
                                    var py = (latitudes[lo] - point.latitude) * ky
                                    for v in (lo + 1)..<hi {
                                        let x = (longitudes[v] - point.longitude) * kx
                                        let y = (latitudes[v] - point.latitude) * ky
                                        let dx = x - px, dy = y - py
                                        let len2 = dx * dx + dy * dy
                                        let t = len2 > 0 ? min(1, max(0, -(px * dx + py * dy) / len2)) : 0
                                        let qx = px + t * dx, qy = py + t * dy
                                        let d2 = qx * qx + qy * qy
                                        if d2 < best { best = d2; bestV = v - 1; bestT = t }
                                        px = x; py = y
                                    }
                                    if best > r2 { continue }
                                    let offset = along[bestV] + (along[bestV + 1] - along[bestV]) * bestT
                                    scratch.roads.append(CandidateScratch.Road(
                                        edge: edge, offset: offset, distance: best.squareRoot(), forward: forwardOpen,
                                        twin: backwardOpen ? twin : nil, closed: forwardClosed || backwardClosed))
                                }
                            }
                        }
                    }
                }
            }
        }
        if scratch.roads.count > 1 {
            // Insertion sort in place on a buffer pointer (a few dozen roads; the library's sort went through its
            // generic stable-sort entry with a closure). (distance, edge) orders the roads totally (each edge once,
            // distances finite), so any sort gives this order.
            scratch.roads.withUnsafeMutableBufferPointer { roads in
                for i in 1..<roads.count {
                    let road = roads[i]
                    var j = i
                    while j > 0 && (roads[j - 1].distance > road.distance
                        || (roads[j - 1].distance == road.distance && roads[j - 1].edge > road.edge)) {
                        roads[j] = roads[j - 1]
                        j -= 1
                    }
                    roads[j] = road
                }
            }
        }
        // Closed roads have slots of their own: a pedestrian street must not push an open road out.
        var openRoads = 0, closedRoads = 0
        for road in scratch.roads {
            if road.closed {
                if closedRoads >= maximumClosedRoads { continue }
                closedRoads += 1
            } else {
                if openRoads >= maximumRoads { continue }
                openRoads += 1
            }
            if road.forward {
                out.append(RoadCandidate(edge: road.edge, offset: road.offset, distance: road.distance, closed: road.closed))
            }
            if let twin = road.twin {
                out.append(RoadCandidate(edge: twin, offset: max(0, edgeLength[Int(twin)] - road.offset),
                                         distance: road.distance, closed: road.closed))
            }
        }
    }

    /// The nearest directed road position usable by `mode` within `radius`, if any.
    public func nearest(to point: Coordinate, mode: TravelMode, radius: Double) -> (edge: EdgeID, offsetMeters: Double, distanceMeters: Double)? {
        var out = [RoadCandidate]()
        var scratch = CandidateScratch()
        candidates(near: point, radius: radius, mode: mode, maximumRoads: 1, into: &out, scratch: &scratch)
        return out.first.map { ($0.edge, $0.offset, $0.distance) }
    }
}

/// Reusable storage of candidate searches (one per matcher). Its size does not depend on the map's: a fleet agent
/// holds one per vehicle, and an array with a slot per edge (as this was) cost 35 KiB per vehicle on the Helsinki
/// centre and would cost megabytes on a region, every search touching a few dozen scattered slots of it.
struct CandidateScratch {
    struct Road {
        var edge: EdgeID
        var offset: Double
        var distance: Double
        var forward: Bool
        var twin: EdgeID?
        /// Both directions of a road are closed or neither (`closedRoadModes`).
        var closed: Bool
    }
    /// The edges one search has looked at (a road crossing several grid cells is listed in each): an open-addressing
    /// set of edge + 1 (0 = empty), emptied per search, grown to keep it at most half full.
    private var seenSlots = [UInt32](repeating: 0, count: 128)
    private var seenCount = 0
    var roads: [Road] = []

    init() {
        roads.reserveCapacity(64)
    }

    /// Starts a search: nothing seen yet.
    mutating func startSearch() {
        if seenCount > 0 {
            seenSlots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            seenCount = 0
        }
    }

    /// True the first time `edge` is offered in a search. Inlined: a call here spilled and reloaded the candidate
    /// loop's registers for every edge whose box is in reach.
    @inline(__always) mutating func firstSight(of edge: Int) -> Bool {
        if 2 * (seenCount + 1) > seenSlots.count { grow() }
        let key = UInt32(edge) &+ 1
        let mask = seenSlots.count - 1
        // Fibonacci hashing: neighbouring edge ids spread over the table.
        var i = Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while true {
            let k = seenSlots[i]
            if k == key { return false }
            if k == 0 {
                seenSlots[i] = key
                seenCount += 1
                return true
            }
            i = (i + 1) & mask
        }
    }

    @inline(never) private mutating func grow() {
        let old = seenSlots
        seenSlots = [UInt32](repeating: 0, count: old.count * 2)
        seenCount = 0
        for key in old where key != 0 { _ = firstSight(of: Int(key - 1)) }
    }
}
