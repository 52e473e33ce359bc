import Foundation
import Geo
import RoadGraph

#if canImport(Glibc)
import Glibc
#endif

/// Progress of an import, delivered whenever the whole-percent value of `fraction` changes.
public struct ImportProgress: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable {
        case ways = "reading ways and relations"
        case nodes = "reading nodes"
        case building = "building graph"
        case writing = "writing graph"
    }
    public var phase: Phase
    /// 0...1 within the phase.
    public var fraction: Double
}

/// What an import did.
public struct ImportSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    public var inputName: String = ""
    public var graphNodes = 0
    public var graphEdges = 0
    /// OSM nodes referenced by kept ways and found in the file.
    public var osmNodesUsed = 0
    /// OSM nodes referenced by kept ways but absent from the file (clipped extracts).
    public var osmNodesMissing = 0
    public var waysRead = 0
    public var waysKept = 0
    /// Of them, roads closed to every mode (access=private, access=no): only where a waypoint or a vehicle is
    /// (`RoadWay.closedRoadForward`).
    public var closedRoadWays = 0
    /// `WaySkipReason` raw value → count.
    public var waysSkipped: [String: Int] = [:]
    /// Kept ways whose maxspeed tag could not be read (the limit is then unknown or inferred).
    public var invalidMaxspeedWays = 0
    /// Restriction relations turned into graph restrictions.
    public var restrictionsApplied = 0
    /// `RestrictionSkipReason` raw value → count.
    public var restrictionsSkipped: [String: Int] = [:]
    public var turnRestrictionEntries = 0
    public var barrierNodes = 0
    public var trafficSignalNodes = 0
    public var countryHint: String?
    public var seconds = 0.0
    /// Size of the written graph file (0 when only built in memory).
    public var outputBytes = 0

    public var description: String {
        func reasons(_ d: [String: Int]) -> String {
            d.isEmpty ? "none" : d.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        return """
            input: \(inputName)  country hint: \(countryHint ?? "unknown")
            graph: \(graphNodes) nodes, \(graphEdges) edges (\(osmNodesUsed) OSM nodes used, \(osmNodesMissing) missing)
            ways: \(waysRead) read, \(waysKept) kept (\(closedRoadWays) closed to every mode: private, access=no); skipped: \(reasons(waysSkipped)); unreadable maxspeed: \(invalidMaxspeedWays)
            restrictions: \(restrictionsApplied) applied (\(turnRestrictionEntries) edge pairs); skipped: \(reasons(restrictionsSkipped))
            barriers: \(barrierNodes), traffic signals: \(trafficSignalNodes)
            time: \(String(format: "%.2f", seconds)) s\(outputBytes > 0 ? ", file \(outputBytes) bytes" : "")
            """
    }
}

/// OSM extract → road graph. Two passes over the file: ways and restriction relations first (to learn which nodes
/// matter), then only those nodes. Tag interpretation is in `TravelProfiles`, `MaxspeedParser`, `RestrictionParser`.
public enum GraphImporter {
    /// Prints progress to stderr, but only when stderr is a terminal.
    public static let terminalProgress: @Sendable (ImportProgress) -> Void = { p in
        guard isatty(STDERR_FILENO) != 0 else { return }
        let line = "\r\(p.phase.rawValue): \(Int((p.fraction * 100).rounded()))%\u{1B}[K" + (p.fraction >= 1 ? "\n" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Imports `input` (.osm.pbf, .osm, .osm.bz2, .osm.gz) and writes the graph file to `output`.
    /// `country` (ISO 3166-1 alpha-2) replaces the guessed country hint (`CountryHint`).
    public static func importFile(input: URL, output: URL, country: String? = nil,
                                  progress: (@Sendable (ImportProgress) -> Void)? = GraphImporter.terminalProgress) throws -> ImportSummary {
        let start = Date()
        var (graph, summary) = try buildGraph(input: input, country: country, progress: progress)
        progress?(ImportProgress(phase: .writing, fraction: 0))
        do {
            try graph.write(to: output)
        } catch {
            throw OSMImportError(.graph, "cannot write \(output.path): \(error)")
        }
        progress?(ImportProgress(phase: .writing, fraction: 1))
        summary.outputBytes = graph.byteCount
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }

    /// Imports `input` into an in-memory graph. `country` (ISO 3166-1 alpha-2, e.g. "GB") replaces the guessed
    /// country hint, which decides default speed limits and the side traffic keeps to (`RoadGraph.drivingSide`).
    public static func buildGraph(input: URL, country: String? = nil,
                                  progress: (@Sendable (ImportProgress) -> Void)? = nil) throws -> (graph: RoadGraph, summary: ImportSummary) {
        let start = Date()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw OSMImportError(.fileNotFound, "no such file: \(input.path)")
        }
        guard FileManager.default.isReadableFile(atPath: input.path) else {
            throw OSMImportError(.fileNotFound, "cannot read \(input.path)")
        }
        var summary = ImportSummary()
        summary.inputName = input.lastPathComponent

        // Pass 1: ways and relations.
        let ways = WayCollector(progress: progress)
        let header = try OSMReader.read(input, entities: [.ways, .relations], sink: ways)
        progress?(ImportProgress(phase: .ways, fraction: 1))
        summary.waysRead = ways.totalWays
        summary.waysKept = ways.roads.count
        summary.closedRoadWays = ways.roads.count { $0.forward.isEmpty && $0.backward.isEmpty }
        summary.waysSkipped = Dictionary(uniqueKeysWithValues: ways.skipped.map { ($0.key.rawValue, $0.value) })
        summary.invalidMaxspeedWays = ways.invalidMaxspeed
        var restrictionSkips = ways.restrictionSkipped
        guard !ways.roads.isEmpty else {
            throw OSMImportError(.noRoads, "\(input.lastPathComponent) contains no way any travel mode can use")
        }

        // Pass 2: the nodes those ways use.
        var neededIDs = ways.refs
        neededIDs.sort()
        var unique = [Int64]()
        unique.reserveCapacity(neededIDs.count)
        for id in neededIDs where unique.last != id { unique.append(id) }
        neededIDs = []
        let nodes = NodeCollector(count: unique.count, progress: progress)
        _ = try OSMReader.read(input, entities: [.nodes], wantedNodeIDs: unique, sink: nodes)
        progress?(ImportProgress(phase: .nodes, fraction: 1))
        progress?(ImportProgress(phase: .building, fraction: 0))
        summary.barrierNodes = nodes.passable.count
        summary.trafficSignalNodes = nodes.signals.count

        func indexOf(_ id: Int64) -> Int? {
            var lo = 0, hi = unique.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if unique[mid] < id { lo = mid + 1 } else { hi = mid }
            }
            return lo < unique.count && unique[lo] == id ? lo : nil
        }
        let refIndex = ways.refs.map { Int32(indexOf($0)!) }

        // Country hint.
        var box: BoundingBox?
        if let b = header.boundingBox {
            box = BoundingBox(minLatitude: b.minLat, minLongitude: b.minLon, maxLatitude: b.maxLat, maxLongitude: b.maxLon)
        } else {
            for i in 0..<unique.count where nodes.found[i] {
                let c = Coordinate(latitude: nodes.latitudes[i], longitude: nodes.longitudes[i])
                if box == nil { box = BoundingBox(enclosing: [c]) } else { box!.extend(c) }
            }
        }
        let country = country?.uppercased() ?? CountryHint.guess(boundingBox: box, zoneVotes: ways.zoneVotes)
        summary.countryHint = country

        // Which OSM nodes become graph nodes.
        var useCount = [UInt8](repeating: 0, count: unique.count)
        var isGraphNode = [Bool](repeating: false, count: unique.count)
        for (i, _) in nodes.passable { isGraphNode[i] = true }
        for i in nodes.signals { isGraphNode[i] = true }
        for w in 0..<ways.roads.count {
            let range = ways.refRange(w)
            var lastFound: Int?
            var previousMissing = false
            var firstFound = true
            var prevIdx = -1
            for k in range {
                let idx = Int(refIndex[k])
                if !nodes.found[idx] {
                    if let l = lastFound { isGraphNode[l] = true }
                    previousMissing = true
                    continue
                }
                if idx == prevIdx { continue }
                prevIdx = idx
                if useCount[idx] < 255 { useCount[idx] += 1 }
                if firstFound || previousMissing { isGraphNode[idx] = true }
                firstFound = false
                previousMissing = false
                lastFound = idx
            }
            if let l = lastFound { isGraphNode[l] = true }
        }
        for i in 0..<unique.count where useCount[i] >= 2 { isGraphNode[i] = true }
        summary.osmNodesUsed = nodes.found.lazy.filter { $0 }.count
        summary.osmNodesMissing = unique.count - summary.osmNodesUsed

        // Edges.
        var builder = RoadGraphBuilder()
        builder.metadata = GraphMetadata(sourceName: input.lastPathComponent, importedAt: Date(), countryHint: country,
                                         notes: ["profiles": "edgenav-profiles-1", "ways_kept": String(ways.roads.count)])
        var graphNode = [Int32](repeating: -1, count: unique.count)
        func coordinate(_ idx: Int) -> Coordinate {
            Coordinate(latitude: nodes.latitudes[idx], longitude: nodes.longitudes[idx])
        }
        func node(_ idx: Int) -> NodeID {
            if graphNode[idx] >= 0 { return NodeID(graphNode[idx]) }
            let id = builder.addNode(coordinate(idx), passableBy: nodes.passable[idx] ?? .all)
            graphNode[idx] = Int32(id)
            return id
        }
        var restrictedWays = Set<Int64>()
        for r in ways.restrictions {
            restrictedWays.formUnion(r.fromWays)
            restrictedWays.formUnion(r.toWays)
        }
        var edgesOfWay = [Int64: [EdgeID]]()
        var edgeEnds = [(from: NodeID, to: NodeID)]()
        for w in 0..<ways.roads.count {
            let road = ways.roads[w]
            let wayID = ways.wayIDs[w]
            let range = ways.refRange(w)
            var ferrySpeed: Double?
            if let duration = road.ferryDurationSeconds {
                var line = [Coordinate]()
                for k in range where nodes.found[Int(refIndex[k])] { line.append(coordinate(Int(refIndex[k]))) }
                let meters = PolylineGeometry.lengthMeters(line)
                if meters > 0 { ferrySpeed = meters / duration * 3.6 }
            }
            let forwardSpeeds = road.resolvedSpeeds(forward: true, country: country)
            let backwardSpeeds = road.resolvedSpeeds(forward: false, country: country)
            func emit(_ u: Int, _ v: Int, _ shape: [Coordinate]) {
                if u == v && shape.isEmpty { return }
                let from = node(u), to = node(v)
                var line = [coordinate(u)]
                line.append(contentsOf: shape)
                line.append(coordinate(v))
                let length = PolylineGeometry.lengthMeters(line)
                func attributes(_ access: ModeMask, _ speeds: (limitKph: Double?, flags: EdgeFlags, motorKph: Double), signalsAt: Int) -> EdgeAttributes {
                    var flags = road.flags.union(speeds.flags)
                    if nodes.signals.contains(signalsAt) { flags.insert(.trafficSignalsAtTarget) }
                    return EdgeAttributes(
                        lengthMeters: length, access: access, flags: flags,
                        freeFlowSpeedKph: ferrySpeed ?? speeds.motorKph,
                        cyclingSpeedKph: ferrySpeed ?? road.cyclingSpeedKph,
                        walkingSpeedKph: ferrySpeed ?? road.walkingSpeedKph,
                        speedLimitKph: speeds.limitKph, osmWayID: wayID, name: road.name, ref: road.ref,
                        highwayClass: road.highwayClass)
                }
                let track = restrictedWays.contains(wayID)
                // A closed road (`RoadWay.closedRoadForward`) gets edges that no mode may use.
                if !road.forward.isEmpty || road.closedRoadForward {
                    let e = builder.addEdge(from: from, to: to, shape: shape, attributes: attributes(road.forward, forwardSpeeds, signalsAt: v))
                    edgeEnds.append((from, to))
                    if track { edgesOfWay[wayID, default: []].append(e) }
                }
                if !road.backward.isEmpty || road.closedRoadBackward {
                    let e = builder.addEdge(from: to, to: from, shape: shape.reversed(), attributes: attributes(road.backward, backwardSpeeds, signalsAt: u))
                    edgeEnds.append((to, from))
                    if track { edgesOfWay[wayID, default: []].append(e) }
                }
            }
            var segmentStart: Int?
            var shape = [Coordinate]()
            var prevIdx = -1
            for k in range {
                let idx = Int(refIndex[k])
                guard nodes.found[idx] else {
                    segmentStart = nil
                    shape = []
                    prevIdx = -1
                    continue
                }
                if idx == prevIdx { continue }
                prevIdx = idx
                guard let s = segmentStart else {
                    segmentStart = idx
                    shape = []
                    continue
                }
                if isGraphNode[idx] {
                    emit(s, idx, shape)
                    segmentStart = idx
                    shape = []
                } else {
                    shape.append(coordinate(idx))
                }
            }
            if w % 1024 == 0 {
                ways.reportBuilding(fraction: Double(w) / Double(ways.roads.count) * 0.8)
            }
        }
        guard builder.edgeCount > 0 else {
            throw OSMImportError(.noRoads, "\(input.lastPathComponent): no routable way has two nodes inside the extract")
        }

        // Turn restrictions.
        var appliedIDs = Set<Int64>()
        var entries = 0
        for r in ways.restrictions {
            guard let via = indexOf(r.viaNode), graphNode[via] >= 0 else {
                restrictionSkips[.memberNotInGraph, default: 0] += 1
                continue
            }
            let viaNode = NodeID(graphNode[via])
            guard r.fromWays.allSatisfy({ edgesOfWay[$0] != nil }), r.toWays.allSatisfy({ edgesOfWay[$0] != nil }) else {
                restrictionSkips[.memberNotInGraph, default: 0] += 1
                continue
            }
            let fromEdges = r.fromWays.flatMap { edgesOfWay[$0]! }.filter { edgeEnds[Int($0)].to == viaNode }
            let toEdges = r.toWays.flatMap { edgesOfWay[$0]! }.filter { edgeEnds[Int($0)].from == viaNode }
            guard !fromEdges.isEmpty, !toEdges.isEmpty else {
                restrictionSkips[.notAtVia, default: 0] += 1
                continue
            }
            for f in fromEdges {
                for t in toEdges {
                    builder.addTurnRestriction(TurnRestriction(from: f, via: viaNode, to: t, kind: r.kind, modes: r.modes))
                    entries += 1
                }
            }
            appliedIDs.insert(r.id)
        }
        summary.restrictionsApplied = appliedIDs.count
        summary.turnRestrictionEntries = entries
        summary.restrictionsSkipped = Dictionary(uniqueKeysWithValues: restrictionSkips.map { ($0.key.rawValue, $0.value) })
        builder.metadata.notes["restrictions_applied"] = String(appliedIDs.count)

        let graph: RoadGraph
        do {
            graph = try builder.build()
        } catch {
            throw OSMImportError(.graph, "building the graph failed: \(error)")
        }
        progress?(ImportProgress(phase: .building, fraction: 1))
        summary.graphNodes = graph.nodeCount
        summary.graphEdges = graph.edgeCount
        summary.seconds = Date().timeIntervalSince(start)
        return (graph, summary)
    }
}

/// Pass 1 sink: interprets ways and restriction relations, keeps only routable ways' node refs.
final class WayCollector: OSMObjectSink {
    var wayIDs = [Int64]()
    var roads = [RoadWay]()
    var refStarts = [Int]()
    var refs = [Int64]()
    var skipped = [WaySkipReason: Int]()
    var restrictions = [ParsedRestriction]()
    var restrictionSkipped = [RestrictionSkipReason: Int]()
    var zoneVotes = [String: Int]()
    var totalWays = 0
    var invalidMaxspeed = 0
    let progress: (@Sendable (ImportProgress) -> Void)?
    var lastPercent = -1

    init(progress: (@Sendable (ImportProgress) -> Void)?) { self.progress = progress }

    func refRange(_ w: Int) -> Range<Int> { refStarts[w]..<(w + 1 < refStarts.count ? refStarts[w + 1] : refs.count) }

    func wantsWay(keys: UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Bool {
        totalWays += 1
        for k in keys {
            guard let k else { continue }
            if strcmp(k, "highway") == 0 || strcmp(k, "route") == 0 { return true }
        }
        skipped[.notARoad, default: 0] += 1
        return false
    }

    func way(id: Int64, refs wayRefs: UnsafeBufferPointer<Int64>, tags: OSMTags) -> Bool {
        switch TravelProfiles.classify(tags) {
        case .skipped(let reason):
            skipped[reason, default: 0] += 1
        case .road(let road):
            guard wayRefs.count >= 2 else {
                skipped[.tooShort, default: 0] += 1
                return true
            }
            if road.maxspeedInvalid { invalidMaxspeed += 1 }
            if let c = road.zoneCountry { zoneVotes[c, default: 0] += 1 }
            wayIDs.append(id)
            roads.append(road)
            refStarts.append(refs.count)
            refs.append(contentsOf: wayRefs)
        }
        return true
    }

    func relation(id: Int64, members: [OSMMember], tags: OSMTags) -> Bool {
        guard RestrictionParser.isRestriction(tags) else { return true }
        switch RestrictionParser.parse(id: id, tags: tags, members: members) {
        case .success(let list): restrictions.append(contentsOf: list)
        case .failure(let reason): restrictionSkipped[reason, default: 0] += 1
        }
        return true
    }

    func node(index: Int, id: Int64, latitude: Double, longitude: Double, tags: OSMTags) -> Bool { true }

    func progress(offset: UInt64, fileSize: UInt64) {
        guard let progress, fileSize > 0 else { return }
        let pct = Int(Double(offset) / Double(fileSize) * 100)
        if pct != lastPercent {
            lastPercent = pct
            progress(ImportProgress(phase: .ways, fraction: min(1, Double(pct) / 100)))
        }
    }

    func reportBuilding(fraction: Double) {
        progress?(ImportProgress(phase: .building, fraction: fraction))
    }
}

/// Pass 2 sink: coordinates and barrier / signal tags of the wanted nodes.
final class NodeCollector: OSMObjectSink {
    var latitudes: [Double]
    var longitudes: [Double]
    var found: [Bool]
    /// Index → modes that may pass, for every barrier node (barriers become graph nodes even when passable).
    var passable = [Int: ModeMask]()
    var signals = Set<Int>()
    let progress: (@Sendable (ImportProgress) -> Void)?
    var lastPercent = -1

    init(count: Int, progress: (@Sendable (ImportProgress) -> Void)?) {
        latitudes = [Double](repeating: 0, count: count)
        longitudes = [Double](repeating: 0, count: count)
        found = [Bool](repeating: false, count: count)
        self.progress = progress
    }

    func wantsWay(keys: UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Bool { false }
    func way(id: Int64, refs: UnsafeBufferPointer<Int64>, tags: OSMTags) -> Bool { true }
    func relation(id: Int64, members: [OSMMember], tags: OSMTags) -> Bool { true }

    func node(index: Int, id: Int64, latitude: Double, longitude: Double, tags: OSMTags) -> Bool {
        guard index >= 0, index < found.count else { return true }
        latitudes[index] = latitude
        longitudes[index] = longitude
        found[index] = true
        if !tags.isEmpty {
            if tags["barrier"] != nil { passable[index] = TravelProfiles.passableModes(nodeTags: tags) }
            if TravelProfiles.hasTrafficSignals(nodeTags: tags) { signals.insert(index) }
        }
        return true
    }

    func progress(offset: UInt64, fileSize: UInt64) {
        guard let progress, fileSize > 0 else { return }
        let pct = Int(Double(offset) / Double(fileSize) * 100)
        if pct != lastPercent {
            lastPercent = pct
            progress(ImportProgress(phase: .nodes, fraction: min(1, Double(pct) / 100)))
        }
    }
}
