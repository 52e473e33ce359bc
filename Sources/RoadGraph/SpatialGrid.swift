import Foundation
import Geo

/// A uniform latitude/longitude grid over edge segments, stored in the graph image. Each cell lists every edge
/// with a segment whose bounding box touches the cell (an edge appears in several cells). Cells are about
/// `SpatialGridConfiguration.cellMeters` on a side; `nearestEdges` scans only the cells that the query circle's
/// bounding box covers. Of each pair of twin edges only the lower id is listed (they share one geometry).
public struct SpatialGridConfiguration: Sendable, Hashable {
    /// Target cell side, metres. Default 64: a 50 m query touches 4–9 cells of a few dozen edges.
    public var cellMeters: Double = 64
    /// Upper bound on the number of cells; the cell side grows for large extracts. Default 4 Mi (16 MiB of offsets).
    public var maxCells: Int = 1 << 22
    public init(cellMeters: Double = 64, maxCells: Int = 1 << 22) {
        self.cellMeters = cellMeters
        self.maxCells = maxCells
    }
}

struct SpatialGridView: @unchecked Sendable {
    // Pointers into the immutable graph image owned by the enclosing RoadGraph's storage.
    let minLat: Double, minLon: Double, cellLat: Double, cellLon: Double
    let rows: Int, cols: Int
    let cellMeters: Double
    let first: UnsafePointer<UInt32>
    let entries: UnsafePointer<UInt32>

    init(header: UnsafeRawBufferPointer, first firstBuf: UnsafeRawBufferPointer, entries entryBuf: UnsafeRawBufferPointer,
         edgeCount: Int) throws {
        let h = header.baseAddress!
        minLat = h.load(fromByteOffset: 0, as: Double.self)
        minLon = h.load(fromByteOffset: 8, as: Double.self)
        cellLat = h.load(fromByteOffset: 16, as: Double.self)
        cellLon = h.load(fromByteOffset: 24, as: Double.self)
        rows = Int(h.load(fromByteOffset: 32, as: UInt32.self))
        cols = Int(h.load(fromByteOffset: 36, as: UInt32.self))
        cellMeters = h.load(fromByteOffset: 40, as: Double.self)
        // rows and cols come from the file: multiply with overflow checks and compare without further arithmetic
        // on `cells`, so a hostile header is a `corrupt` error, not a trap.
        let (cells, cellsOverflow) = rows.multipliedReportingOverflow(by: cols)
        guard rows >= 1, cols >= 1, !cellsOverflow, minLat.isFinite, minLon.isFinite, cellLat > 0, cellLon > 0,
              cellLat.isFinite, cellLon.isFinite,
              firstBuf.count % 4 == 0, firstBuf.count / 4 - 1 == cells, entryBuf.count % 4 == 0
        else { throw RoadGraphError(.corrupt, "spatial grid header is inconsistent") }
        first = firstBuf.baseAddress!.assumingMemoryBound(to: UInt32.self)
        let entryCount = entryBuf.count / 4
        entries = (entryBuf.baseAddress ?? firstBuf.baseAddress!).assumingMemoryBound(to: UInt32.self)
        guard first[0] == 0, Int(first[cells]) == entryCount else {
            throw RoadGraphError(.corrupt, "spatial grid offsets do not span its entries")
        }
        for i in 0..<cells where first[i + 1] < first[i] {
            throw RoadGraphError(.corrupt, "spatial grid offsets decrease")
        }
        for i in 0..<entryCount where Int(entries[i]) >= edgeCount {
            throw RoadGraphError(.corrupt, "spatial grid names a missing edge")
        }
    }

    // Clamped in floating point first, so no query (or hostile header) can overflow the Int conversion.
    @inline(__always) func row(_ lat: Double) -> Int {
        let v = (lat - minLat) / cellLat
        return v >= 0 ? (v < Double(rows) ? Int(v) : rows - 1) : 0
    }
    @inline(__always) func col(_ lon: Double) -> Int {
        let v = (lon - minLon) / cellLon
        return v >= 0 ? (v < Double(cols) ? Int(v) : cols - 1) : 0
    }
}

/// Builds the grid sections from vertex lists.
struct SpatialGridBuilder {
    /// `isIndexed(e)` is false for the second edge of each twin pair: twins share geometry, and the query reports both.
    static func build(edgeCount: Int, boundingBox: BoundingBox?, config: SpatialGridConfiguration,
                      isIndexed: (Int) -> Bool, vertices: (Int, (Coordinate) -> Void) -> Void)
        -> (header: [UInt8], first: [UInt32], entries: [UInt32])
    {
        let box = boundingBox ?? BoundingBox(minLatitude: 0, minLongitude: 0, maxLatitude: 0, maxLongitude: 0)
        let metersPerDegLat = Geodesy.earthRadiusMeters * .pi / 180
        let midLat = box.center.latitude
        let metersPerDegLon = max(metersPerDegLat * cos(midLat * .pi / 180), 1)
        var cellMeters = max(config.cellMeters, 1)
        var rows = 1, cols = 1
        while true {
            let heightM = (box.maxLatitude - box.minLatitude) * metersPerDegLat
            let widthM = (box.maxLongitude - box.minLongitude) * metersPerDegLon
            rows = max(1, Int((heightM / cellMeters).rounded(.up)))
            cols = max(1, Int((widthM / cellMeters).rounded(.up)))
            if rows * cols <= max(config.maxCells, 1) { break }
            cellMeters *= 1.5
        }
        let cellLat = cellMeters / metersPerDegLat
        let cellLon = cellMeters / metersPerDegLon
        func row(_ lat: Double) -> Int { min(rows - 1, max(0, Int(((lat - box.minLatitude) / cellLat).rounded(.down)))) }
        func col(_ lon: Double) -> Int { min(cols - 1, max(0, Int(((lon - box.minLongitude) / cellLon).rounded(.down)))) }

        var pairs = [(cell: UInt32, edge: UInt32)]()
        pairs.reserveCapacity(edgeCount * 2)
        var cellsOfEdge = [UInt32]()
        for e in 0..<edgeCount where isIndexed(e) {
            cellsOfEdge.removeAll(keepingCapacity: true)
            var previous: Coordinate?
            vertices(e) { c in
                if let p = previous {
                    let r0 = row(min(p.latitude, c.latitude)), r1 = row(max(p.latitude, c.latitude))
                    let c0 = col(min(p.longitude, c.longitude)), c1 = col(max(p.longitude, c.longitude))
                    for r in r0...r1 { for cc in c0...c1 { cellsOfEdge.append(UInt32(r * cols + cc)) } }
                }
                previous = c
            }
            if cellsOfEdge.count > 1 {
                cellsOfEdge.sort()
            }
            var last: UInt32 = .max
            for cell in cellsOfEdge where cell != last {
                pairs.append((cell, UInt32(e)))
                last = cell
            }
        }
        let cellCount = rows * cols
        var first = [UInt32](repeating: 0, count: cellCount + 1)
        for p in pairs { first[Int(p.cell) + 1] += 1 }
        for i in 0..<cellCount { first[i + 1] += first[i] }
        var cursor = first
        var entries = [UInt32](repeating: 0, count: pairs.count)
        for p in pairs {
            entries[Int(cursor[Int(p.cell)])] = p.edge
            cursor[Int(p.cell)] += 1
        }
        var header = [UInt8](repeating: 0, count: GraphFileLayout.gridHeaderSize)
        header.withUnsafeMutableBytes { h in
            h.storeBytes(of: box.minLatitude, toByteOffset: 0, as: Double.self)
            h.storeBytes(of: box.minLongitude, toByteOffset: 8, as: Double.self)
            h.storeBytes(of: cellLat, toByteOffset: 16, as: Double.self)
            h.storeBytes(of: cellLon, toByteOffset: 24, as: Double.self)
            h.storeBytes(of: UInt32(rows), toByteOffset: 32, as: UInt32.self)
            h.storeBytes(of: UInt32(cols), toByteOffset: 36, as: UInt32.self)
            h.storeBytes(of: cellMeters, toByteOffset: 40, as: Double.self)
        }
        return (header, first, entries)
    }
}

extension RoadGraph {
    /// Edges open to `mode` whose geometry passes within `radiusMeters` of `point`, closest first (ties by edge id),
    /// at most `limit`. Distances use an equirectangular frame around `point` for the search and haversine for the
    /// reported `distanceMeters`; both twins of a two-way road are returned when both are open to `mode`.
    public func nearestEdges(to point: Coordinate, mode: TravelMode, radiusMeters: Double, limit: Int) -> [EdgeSnap] {
        nearestEdges(to: point, openToAnyOf: ModeMask(mode), radiusMeters: radiusMeters, limit: limit)
    }

    /// Edges open to at least one of `modes`, as `nearestEdges(to:mode:radiusMeters:limit:)` (which asks for one);
    /// with `includingClosedToAll`, also the edges of roads closed to every mode (`RoadWay.closedRoadForward`:
    /// access=private, access=no), which no mode mask selects.
    public func nearestEdges(
        to point: Coordinate, openToAnyOf modes: ModeMask, radiusMeters: Double, limit: Int,
        includingClosedToAll: Bool = false
    ) -> [EdgeSnap] {
        guard limit > 0, edgeCount > 0, radiusMeters >= 0, point.isValid else { return [] }
        let g = grid
        let ky = Geodesy.earthRadiusMeters * .pi / 180
        let kx = ky * cos(point.latitude * .pi / 180)
        let dLat = radiusMeters / ky
        let dLon = kx > 1e-9 ? radiusMeters / kx : 360
        let minLat = point.latitude - dLat, maxLat = point.latitude + dLat
        let minLon = point.longitude - dLon, maxLon = point.longitude + dLon
        // Outside the grid entirely?
        if maxLat < g.minLat || minLat > g.minLat + Double(g.rows) * g.cellLat
            || maxLon < g.minLon || minLon > g.minLon + Double(g.cols) * g.cellLon { return [] }
        let r0 = g.row(minLat), r1 = g.row(maxLat), c0 = g.col(minLon), c1 = g.col(maxLon)
        let m = modes.rawValue
        let r2 = radiusMeters * radiusMeters
        let qLat7 = point.latitude * 1e7, qLon7 = point.longitude * 1e7
        let kx7 = kx * 1e-7, ky7 = ky * 1e-7

        struct Candidate { var edge: UInt32; var d2: Double; var segment: Int; var t: Double }
        var candidates = [Candidate]()
        candidates.reserveCapacity(32)
        for r in r0...r1 {
            for c in c0...c1 {
                let cell = r * g.cols + c
                var i = Int(g.first[cell])
                let end = Int(g.first[cell + 1])
                while i < end {
                    let e = Int(g.entries[i])
                    i += 1
                    // The grid lists one edge per twin pair; the twin shares the geometry, so test both at once.
                    let twin = edgeReverses[e]
                    let hasTwin = twin != GraphFileLayout.noEdge
                    let ownModes = edgeRecords.load(fromByteOffset: e * GraphFileLayout.edgeRecordSize + 4, as: UInt8.self)
                    let twinModes = hasTwin
                        ? edgeRecords.load(fromByteOffset: Int(twin) * GraphFileLayout.edgeRecordSize + 4, as: UInt8.self) : 0
                    let ownAccess = ownModes & m != 0
                    let twinAccess = twinModes & m != 0
                    // A closed road's edges carry no mode at all (an edge open to some other mode is no match).
                    let closedToAll = includingClosedToAll && ownModes == 0 && twinModes == 0
                    let takesOwn = ownAccess || closedToAll
                    let takesTwin = twinAccess || (closedToAll && hasTwin)
                    guard takesOwn || takesTwin else { continue }
                    // Segment distances in a local frame around the query, straight from the fixed-point arrays.
                    var best = Double.infinity, bestSeg = 0, bestT = 0.0
                    let source = Int(edgeSources[e]), target = Int(edgeTargets[e])
                    var px = (Double(nodeCoords[2 * source + 1]) - qLon7) * kx7
                    var py = (Double(nodeCoords[2 * source]) - qLat7) * ky7
                    let span = shapeSpan(e)
                    var j = 0
                    var seg = 0
                    while j <= span.count {
                        let x: Double, y: Double
                        if j < span.count {
                            let k = shapeIndex(span, j)
                            x = (Double(shapePoints[2 * k + 1]) - qLon7) * kx7
                            y = (Double(shapePoints[2 * k]) - qLat7) * ky7
                        } else {
                            x = (Double(nodeCoords[2 * target + 1]) - qLon7) * kx7
                            y = (Double(nodeCoords[2 * target]) - qLat7) * ky7
                        }
                        let dx = x - px, dy = y - py
                        let len2 = dx * dx + dy * dy
                        var t = 0.0
                        if len2 > 0 { t = min(1, max(0, -(px * dx + py * dy) / len2)) }
                        let qx = px + t * dx, qy = py + t * dy
                        let d2 = qx * qx + qy * qy
                        if d2 < best { best = d2; bestSeg = seg; bestT = t }
                        px = x; py = y; seg += 1; j += 1
                    }
                    if best <= r2 {
                        if takesOwn { candidates.append(Candidate(edge: UInt32(e), d2: best, segment: bestSeg, t: bestT)) }
                        if takesTwin {
                            // Same point seen from the other direction: mirrored segment index and fraction.
                            candidates.append(Candidate(edge: twin, d2: best, segment: seg - 1 - bestSeg, t: 1 - bestT))
                        }
                    }
                }
            }
        }
        guard !candidates.isEmpty else { return [] }
        @inline(__always) func precedes(_ a: Candidate, _ b: Candidate) -> Bool {
            a.d2 != b.d2 ? a.d2 < b.d2 : a.edge < b.edge
        }
        if limit <= 32 && candidates.count > limit {
            // Routing asks for a dozen of often hundreds of candidates (an edge is listed in every cell it crosses):
            // keep the best `limit` distinct edges, each at its closest, in a small sorted array instead of sorting
            // them all. Same result as the full sort below: the first `limit` distinct edges in (d2, edge) order.
            var best: [Candidate] = []
            best.reserveCapacity(limit + 1)
            for cand in candidates {
                if best.count == limit, let worst = best.last, !precedes(cand, worst) { continue }
                if let same = best.firstIndex(where: { $0.edge == cand.edge }) {
                    if !precedes(cand, best[same]) { continue }
                    best.remove(at: same)
                }
                var i = best.count
                while i > 0 && precedes(cand, best[i - 1]) { i -= 1 }
                best.insert(cand, at: i)
                if best.count > limit { best.removeLast() }
            }
            candidates = best
        } else {
            candidates.sort(by: precedes)
        }
        var result = [EdgeSnap]()
        result.reserveCapacity(min(limit, candidates.count))
        for cand in candidates {
            if result.contains(where: { $0.edge == cand.edge }) { continue }
            let a = vertex(of: cand.edge, at: cand.segment), b = vertex(of: cand.edge, at: cand.segment + 1)
            let p = Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * cand.t,
                               longitude: a.longitude + (b.longitude - a.longitude) * cand.t)
            var offset = 0.0
            var previous = vertex(of: cand.edge, at: 0)
            for k in 0..<cand.segment {
                let next = vertex(of: cand.edge, at: k + 1)
                offset += Geodesy.distanceMeters(previous, next)
                previous = next
            }
            offset += Geodesy.distanceMeters(a, p)
            result.append(EdgeSnap(edge: cand.edge, point: p, distanceMeters: Geodesy.distanceMeters(point, p),
                                   offsetMeters: min(offset, lengthMeters(of: cand.edge))))
            if result.count == limit { break }
        }
        return result
    }
}
