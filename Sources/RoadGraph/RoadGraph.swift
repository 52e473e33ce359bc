import Foundation
import Geo

/// An immutable directed road graph in compressed-sparse-row form, either freshly built in memory or
/// memory-mapped from a graph file (see `GraphFileLayout` for the byte layout).
///
/// Graph nodes are OSM nodes that are junctions, way ends, barriers or signal points; other OSM nodes are
/// edge shape points. A two-way street segment is two edges (twins, `reverseEdge(of:)`), each with its own
/// access mask. Every accessor is O(1) and allocation-free except `geometry(of:)`, `name`, `ref` and
/// `nearestEdges`. Accessors trap on out-of-range ids like array subscripts do.
public final class RoadGraph: @unchecked Sendable {
    // @unchecked: all stored properties are immutable pointers into `storage`, which is never written after init.
    let storage: GraphStorage
    public let nodeCount: Int
    public let edgeCount: Int
    public let metadata: GraphMetadata

    let nodeCoords: UnsafePointer<Int32>  // 2 per node
    let nodePassable: UnsafePointer<UInt8>
    let firstOut: UnsafePointer<UInt32>
    let edgeSources: UnsafePointer<UInt32>
    let edgeTargets: UnsafePointer<UInt32>
    let edgeReverses: UnsafePointer<UInt32>
    let edgeRecords: UnsafeRawPointer
    let shapeFirst: UnsafePointer<UInt32>
    let shapePoints: UnsafePointer<Int32>
    let stringOffsets: UnsafePointer<UInt32>
    let stringBytes: UnsafePointer<UInt8>
    let stringCount: Int
    let firstIn: UnsafePointer<UInt32>
    let inEdges: UnsafePointer<UInt32>
    let restrictionRecords: UnsafeRawPointer
    let restrictionCount: Int
    let grid: SpatialGridView

    /// Size of the graph image in bytes (the file size when loaded from disk).
    public var byteCount: Int { storage.byteCount }

    /// How the graph's bytes are held (a mapping of the file, of a private copy, or memory).
    public var backing: GraphBacking { storage.backing }

    // MARK: Loading

    /// Memory-maps and verifies a graph file (magic, version, length, checksum, structural consistency).
    /// Throws `RoadGraphError` with codes io, notAGraphFile, unsupportedVersion, truncated, checksumMismatch, corrupt.
    public convenience init(contentsOf url: URL) throws {
        try self.init(storage: GraphStorage(mapping: url), verifyChecksum: true)
    }

    /// Loads a graph file for a long-running process: maps a private, unnamed copy of it made in `directory`
    /// (falling back to a copy in heap memory when the directory cannot hold one), then verifies it as
    /// `init(contentsOf:)` does. Whatever later happens to the file at `url` — replaced atomically, overwritten
    /// in place, truncated — cannot change or unmap the graph in use. Costs one file copy at load (milliseconds
    /// for a city) and the map's size on disk in `directory` until the graph is released.
    public convenience init(privateCopyOf url: URL, in directory: URL) throws {
        try self.init(storage: GraphStorage(privateCopyOf: url, in: directory), verifyChecksum: true)
    }

    init(storage: GraphStorage, verifyChecksum: Bool) throws {
        self.storage = storage
        let base = storage.base
        let size = storage.byteCount
        guard size >= GraphFileLayout.headerSize,
              Array(UnsafeRawBufferPointer(start: base, count: 8)) == GraphFileLayout.magic
        else { throw RoadGraphError(.notAGraphFile, "missing EdgeNav graph magic") }
        let version = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard GraphFileLayout.readableVersions.contains(version) else {
            throw RoadGraphError(.unsupportedVersion,
                                 "graph format version \(version); this build reads version \(GraphFileLayout.formatVersion) — re-import the map")
        }
        let sectionCount = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        let declaredLength = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        guard declaredLength <= UInt64(size) else {
            throw RoadGraphError(.truncated, "file is \(size) bytes but its header says \(declaredLength)")
        }
        guard declaredLength == UInt64(size) else {
            throw RoadGraphError(.corrupt, "file is \(size) bytes but its header says \(declaredLength)")
        }
        guard sectionCount == GraphFileLayout.Section.allCases.count,
              size >= GraphFileLayout.headerSize + GraphFileLayout.sectionTableSize
        else { throw RoadGraphError(.corrupt, "unexpected section count \(sectionCount)") }
        if verifyChecksum {
            let stored = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            let actual = GraphFileLayout.checksum(base + 64, count: size - 64)
            guard stored == actual else {
                throw RoadGraphError(.checksumMismatch, "checksum mismatch (stored \(stored), computed \(actual))")
            }
        }
        var sections = [UnsafeRawBufferPointer]()
        for i in 0..<sectionCount {
            let off = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 64 + i * 16, as: UInt64.self))
            let len = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 64 + i * 16 + 8, as: UInt64.self))
            guard off % 8 == 0, off <= UInt64(size), len <= UInt64(size) - off else {
                throw RoadGraphError(.corrupt, "section \(i) out of bounds")
            }
            sections.append(UnsafeRawBufferPointer(start: base + Int(off), count: Int(len)))
        }
        typealias S = GraphFileLayout.Section
        func section(_ s: S) -> UnsafeRawBufferPointer { sections[s.rawValue] }
        func words<T>(_ s: S, _ t: T.Type, count: Int? = nil) throws -> UnsafePointer<T> {
            let buf = section(s)
            guard buf.count % MemoryLayout<T>.stride == 0 else { throw RoadGraphError(.corrupt, "section \(s) has a partial element") }
            if let count, buf.count != count * MemoryLayout<T>.stride {
                throw RoadGraphError(.corrupt, "section \(s) holds \(buf.count) bytes, expected \(count * MemoryLayout<T>.stride)")
            }
            // Sections are 8-byte aligned in an mmap'd (page-aligned) or 16-byte aligned buffer.
            return (buf.baseAddress ?? base).assumingMemoryBound(to: T.self)
        }

        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            metadata = try decoder.decode(GraphMetadata.self, from: Data(section(.metadata)))
        } catch {
            throw RoadGraphError(.corrupt, "metadata is not valid JSON: \(error)")
        }
        let firstOutCount = section(.firstOut).count / 4
        guard firstOutCount >= 1 else { throw RoadGraphError(.corrupt, "empty node offsets") }
        let n = firstOutCount - 1
        let e = section(.edgeSource).count / 4
        nodeCount = n
        edgeCount = e
        nodeCoords = try words(.nodeCoordinates, Int32.self, count: 2 * n)
        nodePassable = try words(.nodePassable, UInt8.self, count: n)
        firstOut = try words(.firstOut, UInt32.self, count: n + 1)
        edgeSources = try words(.edgeSource, UInt32.self, count: e)
        edgeTargets = try words(.edgeTarget, UInt32.self, count: e)
        edgeReverses = try words(.edgeReverse, UInt32.self, count: e)
        guard section(.edgeRecords).count == e * GraphFileLayout.edgeRecordSize else {
            throw RoadGraphError(.corrupt, "edge records do not match the edge count")
        }
        edgeRecords = section(.edgeRecords).baseAddress ?? base
        shapeFirst = try words(.shapeFirst, UInt32.self, count: e + 1)
        let shapeWordCount = section(.shapePoints).count / 4
        shapePoints = try words(.shapePoints, Int32.self)
        stringCount = section(.stringOffsets).count / 4 - 1
        guard stringCount >= 1 else { throw RoadGraphError(.corrupt, "empty string table") }
        stringOffsets = try words(.stringOffsets, UInt32.self)
        stringBytes = try words(.stringBytes, UInt8.self)
        let stringByteCount = section(.stringBytes).count
        firstIn = try words(.firstIn, UInt32.self, count: n + 1)
        inEdges = try words(.inEdges, UInt32.self, count: e)
        guard section(.restrictions).count % GraphFileLayout.restrictionRecordSize == 0 else {
            throw RoadGraphError(.corrupt, "partial restriction record")
        }
        restrictionCount = section(.restrictions).count / GraphFileLayout.restrictionRecordSize
        restrictionRecords = section(.restrictions).baseAddress ?? base
        guard section(.gridHeader).count == GraphFileLayout.gridHeaderSize else {
            throw RoadGraphError(.corrupt, "bad spatial grid header")
        }
        grid = try SpatialGridView(header: section(.gridHeader), first: section(.gridFirst), entries: section(.gridEdges), edgeCount: e)

        // Structural checks: O(N + E), a few ms on a city. They guarantee no accessor can read out of bounds.
        func checkOffsets(_ p: UnsafePointer<UInt32>, count: Int, end: Int, _ what: String) throws {
            guard p[0] == 0, Int(p[count - 1]) == end else { throw RoadGraphError(.corrupt, "\(what) offsets do not span their data") }
            for i in 1..<max(count, 1) where p[i] < p[i - 1] {
                throw RoadGraphError(.corrupt, "\(what) offsets decrease at \(i)")
            }
        }
        try checkOffsets(firstOut, count: n + 1, end: e, "outgoing edge")
        try checkOffsets(firstIn, count: n + 1, end: e, "incoming edge")
        try checkOffsets(shapeFirst, count: e + 1, end: shapeWordCount / 2, "shape")
        guard shapeWordCount % 2 == 0 else { throw RoadGraphError(.corrupt, "odd shape coordinate count") }
        try checkOffsets(stringOffsets, count: stringCount + 1, end: stringByteCount, "string")
        for u in 0..<n {
            for ed in Int(firstOut[u])..<Int(firstOut[u + 1]) where edgeSources[ed] != UInt32(u) {
                throw RoadGraphError(.corrupt, "edge \(ed) is not sorted under its source node")
            }
            for i in Int(firstIn[u])..<Int(firstIn[u + 1]) {
                let ed = inEdges[i]
                guard Int(ed) < e, edgeTargets[Int(ed)] == UInt32(u) else {
                    throw RoadGraphError(.corrupt, "incoming edge list of node \(u) is inconsistent")
                }
            }
        }
        for ed in 0..<e {
            let r = edgeReverses[ed]
            guard Int(edgeTargets[ed]) < n, r == GraphFileLayout.noEdge || Int(r) < e else {
                throw RoadGraphError(.corrupt, "edge \(ed) refers to a missing node or twin")
            }
            let rec = edgeRecords + ed * GraphFileLayout.edgeRecordSize
            if EdgeFlags(rawValue: rec.load(fromByteOffset: 6, as: UInt16.self)).contains(.shapeFromTwin) {
                guard r != GraphFileLayout.noEdge, shapeFirst[ed] == shapeFirst[ed + 1],
                      !EdgeFlags(rawValue: (edgeRecords + Int(r) * GraphFileLayout.edgeRecordSize).load(fromByteOffset: 6, as: UInt16.self))
                          .contains(.shapeFromTwin)
                else { throw RoadGraphError(.corrupt, "edge \(ed) borrows a shape it cannot have") }
            }
            guard Int(rec.load(fromByteOffset: 24, as: UInt32.self)) < stringCount,
                  Int(rec.load(fromByteOffset: 28, as: UInt32.self)) < stringCount,
                  rec.load(fromByteOffset: 5, as: UInt8.self) < UInt8(HighwayClass.allCases.count)
            else { throw RoadGraphError(.corrupt, "edge \(ed) has an invalid name, ref or class") }
        }
        var previousFrom: UInt32 = 0
        for i in 0..<restrictionCount {
            let rec = restrictionRecords + i * GraphFileLayout.restrictionRecordSize
            let from = rec.load(fromByteOffset: 0, as: UInt32.self)
            let to = rec.load(fromByteOffset: 4, as: UInt32.self)
            guard Int(from) < e, Int(to) < e, from >= previousFrom, rec.load(fromByteOffset: 8, as: UInt8.self) <= 1 else {
                throw RoadGraphError(.corrupt, "turn restriction \(i) is invalid")
            }
            previousFrom = from
        }
    }

    /// Byte size of each section of the image, in file order (for `GraphInfo`).
    public var sectionSizes: [(name: String, bytes: Int)] {
        GraphFileLayout.Section.allCases.map { section in
            let len = storage.base.loadUnaligned(fromByteOffset: 64 + section.rawValue * 16 + 8, as: UInt64.self)
            return ("\(section)", Int(UInt64(littleEndian: len)))
        }
    }

    /// Writes the graph image to `url` atomically (temporary file + rename).
    public func write(to url: URL) throws {
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: storage.base), count: storage.byteCount, deallocator: .none)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw RoadGraphError(.io, "cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    // MARK: Nodes

    @inline(__always) func coordinate(atWord i: Int, in p: UnsafePointer<Int32>) -> Coordinate {
        Coordinate(latitude: Double(p[2 * i]) * 1e-7, longitude: Double(p[2 * i + 1]) * 1e-7)
    }

    public func coordinate(of node: NodeID) -> Coordinate {
        precondition(Int(node) < nodeCount, "node \(node) out of range")
        return coordinate(atWord: Int(node), in: nodeCoords)
    }

    /// False when a barrier on the node blocks `mode` (e.g. a bollard for cars). `isTurnAllowed` already honours
    /// this: through a blocking node only the U-turn back is allowed.
    public func isPassable(node: NodeID, mode: TravelMode) -> Bool {
        precondition(Int(node) < nodeCount, "node \(node) out of range")
        return ModeMask(rawValue: nodePassable[Int(node)]).contains(mode)
    }

    public func outgoingEdges(of node: NodeID) -> Range<EdgeID> {
        precondition(Int(node) < nodeCount, "node \(node) out of range")
        return firstOut[Int(node)]..<firstOut[Int(node) + 1]
    }

    /// Incoming edges of `node` (reverse adjacency), for backward searches.
    public func incomingEdges(of node: NodeID) -> IncomingEdges {
        precondition(Int(node) < nodeCount, "node \(node) out of range")
        return IncomingEdges(storage: storage, base: inEdges, start: Int(firstIn[Int(node)]), end: Int(firstIn[Int(node) + 1]))
    }

    // MARK: Edges

    @inline(__always) private func checkEdge(_ e: EdgeID) {
        precondition(Int(e) < edgeCount, "edge \(e) out of range")
    }

    @inline(__always) private func record(_ e: EdgeID) -> UnsafeRawPointer {
        checkEdge(e)
        return edgeRecords + Int(e) * GraphFileLayout.edgeRecordSize
    }

    public func source(of e: EdgeID) -> NodeID { checkEdge(e); return edgeSources[Int(e)] }
    public func target(of e: EdgeID) -> NodeID { checkEdge(e); return edgeTargets[Int(e)] }

    /// The twin running the other way over the same geometry (same OSM way), if it exists.
    public func reverseEdge(of e: EdgeID) -> EdgeID? {
        checkEdge(e)
        let r = edgeReverses[Int(e)]
        return r == GraphFileLayout.noEdge ? nil : r
    }

    /// Along the shape, metres (stored as Float32: sub-millimetre for any real edge).
    public func lengthMeters(of e: EdgeID) -> Double { Double(record(e).load(fromByteOffset: 0, as: Float32.self)) }

    /// Modes that may traverse `e` in its direction.
    public func access(of e: EdgeID) -> ModeMask { ModeMask(rawValue: record(e).load(fromByteOffset: 4, as: UInt8.self)) }

    public func highwayClass(of e: EdgeID) -> HighwayClass {
        HighwayClass(rawValue: record(e).load(fromByteOffset: 5, as: UInt8.self)) ?? .other
    }

    public func flags(of e: EdgeID) -> EdgeFlags {
        EdgeFlags(rawValue: record(e).load(fromByteOffset: 6, as: UInt16.self) & EdgeFlags.publicMask)
    }

    @inline(__always) private func rawFlags(_ e: EdgeID) -> EdgeFlags {
        EdgeFlags(rawValue: record(e).load(fromByteOffset: 6, as: UInt16.self))
    }

    /// Free-flow speed for `mode`, km/h: the motor-vehicle speed for driving, taxi and twoWheeler, else the cycling
    /// or walking speed. > 0 whenever `access(of: e)` contains `mode` (the importer's tables are in `TravelProfiles`).
    public func freeFlowSpeedKph(of e: EdgeID, mode: TravelMode) -> Double {
        let offset: Int
        switch mode {
        case .driving, .taxi, .twoWheeler: offset = 8
        case .cycling: offset = 10
        case .walking: offset = 12
        }
        return Double(record(e).load(fromByteOffset: offset, as: UInt16.self)) / 100
    }

    /// lengthMeters / free-flow speed; `.infinity` when the stored speed is 0.
    public func durationSeconds(of e: EdgeID, mode: TravelMode) -> Double {
        let kph = freeFlowSpeedKph(of: e, mode: mode)
        return kph > 0 ? lengthMeters(of: e) * 3.6 / kph : .infinity
    }

    /// Legal speed limit, km/h. nil when unknown, and also for maxspeed=none (then `flags` has `.noSpeedLimit`).
    /// `.speedLimitInferred` marks limits taken from country defaults rather than a maxspeed tag.
    public func speedLimitKph(of e: EdgeID) -> Double? {
        let v = record(e).load(fromByteOffset: 14, as: UInt16.self)
        return v == 0 ? nil : Double(v) / 100
    }

    /// The motor modes (driving, taxi, twoWheeler) that the tags close `e` to although it is a road they could
    /// drive (`HighwayClass.isRoadForMotorVehicles`) and its twin is closed to them too: a street tagged
    /// motor_vehicle=no or access=no, or a pedestrian street. The closed direction of a one-way street is not
    /// closed here: the street is open, only not that way. Delivery vehicles drive pedestrian zones and traffic
    /// simulators may ignore the tags, so the matcher and the router may use such roads at a cost.
    public func motorModesClosedByTags(of e: EdgeID) -> ModeMask {
        guard highwayClass(of: e).isRoadForMotorVehicles else { return [] }
        var open = access(of: e)
        if let twin = reverseEdge(of: e) { open.formUnion(access(of: twin)) }
        return ModeMask.motorized.subtracting(open)
    }

    public func osmWayID(of e: EdgeID) -> Int64 { record(e).load(fromByteOffset: 16, as: Int64.self) }

    /// Street name ("" when none).
    public func name(of e: EdgeID) -> String { string(at: Int(record(e).load(fromByteOffset: 24, as: UInt32.self))) }

    /// Road reference such as "E18" ("" when none).
    public func ref(of e: EdgeID) -> String { string(at: Int(record(e).load(fromByteOffset: 28, as: UInt32.self))) }

    func string(at index: Int) -> String {
        let start = Int(stringOffsets[index])
        let end = Int(stringOffsets[index + 1])
        return String(decoding: UnsafeBufferPointer(start: stringBytes + start, count: end - start), as: UTF8.self)
    }

    /// Where the intermediate points of `e` are stored: `count` points from word pair `start`, backwards if `reversed`.
    @inline(__always) func shapeSpan(_ e: Int) -> (start: Int, count: Int, reversed: Bool) {
        let raw = edgeRecords.load(fromByteOffset: e * GraphFileLayout.edgeRecordSize + 6, as: UInt16.self)
        if raw & EdgeFlags.shapeFromTwin.rawValue != 0 {
            let r = Int(edgeReverses[e])
            let s = Int(shapeFirst[r])
            return (s, Int(shapeFirst[r + 1]) - s, true)
        }
        let s = Int(shapeFirst[e])
        return (s, Int(shapeFirst[e + 1]) - s, false)
    }

    /// Index into `shapePoints` (pairs) of the `j`-th intermediate point of a span, in the edge's direction.
    @inline(__always) func shapeIndex(_ span: (start: Int, count: Int, reversed: Bool), _ j: Int) -> Int {
        span.reversed ? span.start + span.count - 1 - j : span.start + j
    }

    /// Number of intermediate shape points of `e`.
    public func shapePointCount(of e: EdgeID) -> Int {
        checkEdge(e)
        return shapeSpan(Int(e)).count
    }

    /// Source node, intermediate shape points, target node, in the edge's direction.
    public func geometry(of e: EdgeID) -> [Coordinate] {
        checkEdge(e)
        let span = shapeSpan(Int(e))
        var out = [Coordinate]()
        out.reserveCapacity(span.count + 2)
        out.append(coordinate(of: edgeSources[Int(e)]))
        for j in 0..<span.count { out.append(coordinate(atWord: shapeIndex(span, j), in: shapePoints)) }
        out.append(coordinate(of: edgeTargets[Int(e)]))
        return out
    }

    /// Vertex `index` of `e`'s geometry without allocating: 0 is the source node, then the shape points, then the target.
    func vertex(of e: EdgeID, at index: Int) -> Coordinate {
        let span = shapeSpan(Int(e))
        if index == 0 { return coordinate(atWord: Int(edgeSources[Int(e)]), in: nodeCoords) }
        if index <= span.count { return coordinate(atWord: shapeIndex(span, index - 1), in: shapePoints) }
        return coordinate(atWord: Int(edgeTargets[Int(e)]), in: nodeCoords)
    }

    // MARK: Turns

    /// Number of stored (edge-resolved) turn restrictions.
    public var turnRestrictionCount: Int { restrictionCount }

    /// All stored turn restrictions (for inspection and tests).
    public var turnRestrictions: [TurnRestriction] {
        (0..<restrictionCount).map { i in
            let r = restrictionRecords + i * GraphFileLayout.restrictionRecordSize
            let from = r.load(fromByteOffset: 0, as: UInt32.self)
            return TurnRestriction(from: from, via: edgeTargets[Int(from)], to: r.load(fromByteOffset: 4, as: UInt32.self),
                                   kind: TurnRestriction.Kind(rawValue: r.load(fromByteOffset: 8, as: UInt8.self)) ?? .no,
                                   modes: ModeMask(rawValue: r.load(fromByteOffset: 9, as: UInt8.self)))
        }
    }

    /// May a traveller in `mode` continue from `from` into `to` at their shared node (target(from) == source(to))?
    ///
    /// Rules, in order:
    /// 1. false when the edges do not meet;
    /// 2. if the shared node blocks `mode` (barrier), only the U-turn back onto `reverseEdge(of: from)` is allowed;
    /// 3. `only_*` restrictions on `from` for `mode`: allowed exactly when `to` is one of their targets;
    /// 4. `no_*` restrictions from → to for `mode`: not allowed;
    /// 5. a U-turn onto `reverseEdge(of: from)` is allowed only at a dead end, i.e. when no other outgoing edge of the
    ///    node is open to `mode`.
    /// Via-way restrictions are not represented (the importer counts and skips them). Access of `to` itself is not
    /// checked here: callers check `access(of:)`.
    public func isTurnAllowed(from: EdgeID, to: EdgeID, mode: TravelMode) -> Bool {
        let via = target(of: from)
        guard source(of: to) == via else { return false }
        let isUTurn = edgeReverses[Int(from)] == to
        if !isPassable(node: via, mode: mode) { return isUTurn }
        let m = ModeMask(mode).rawValue
        if rawFlags(from).contains(.hasTurnRestrictions) {
            var lo = 0, hi = restrictionCount
            while lo < hi {
                let mid = (lo + hi) / 2
                if restrictionRecords.load(fromByteOffset: mid * GraphFileLayout.restrictionRecordSize, as: UInt32.self) < from {
                    lo = mid + 1
                } else { hi = mid }
            }
            var sawOnly = false, onlyMatches = false
            var i = lo
            while i < restrictionCount {
                let r = restrictionRecords + i * GraphFileLayout.restrictionRecordSize
                guard r.load(fromByteOffset: 0, as: UInt32.self) == from else { break }
                if r.load(fromByteOffset: 9, as: UInt8.self) & m != 0 {
                    let target = r.load(fromByteOffset: 4, as: UInt32.self)
                    if r.load(fromByteOffset: 8, as: UInt8.self) == TurnRestriction.Kind.only.rawValue {
                        sawOnly = true
                        if target == to { onlyMatches = true }
                    } else if target == to {
                        return false
                    }
                }
                i += 1
            }
            if sawOnly { return onlyMatches }
        }
        if isUTurn {
            for other in outgoingEdges(of: via) where other != to && access(of: other).rawValue & m != 0 {
                return false
            }
        }
        return true
    }
}

/// Incoming edge ids of one node; keeps the graph storage alive while it exists.
public struct IncomingEdges: RandomAccessCollection, Sendable {
    let storage: GraphStorage
    nonisolated(unsafe) let base: UnsafePointer<UInt32>
    public let startIndex: Int
    public let endIndex: Int

    init(storage: GraphStorage, base: UnsafePointer<UInt32>, start: Int, end: Int) {
        self.storage = storage
        self.base = base
        startIndex = start
        endIndex = end
    }

    public subscript(position: Int) -> EdgeID {
        precondition(position >= startIndex && position < endIndex, "index out of range")
        return base[position]
    }
}
