// bench-routing: the EdgeNav side of scripts/bench-routing (release build only; figures go to BENCHMARKS.md).
//
//   bench-routing import MAP.osm.pbf GRAPH                        OSMImport, timed, with peak RSS
//   bench-routing routes GRAPH PAIRS.jsonl OUTDIR [algorithms]   route every pair with both strategies
//   bench-routing grid NODES PAIRS                                synthetic grid city: build, memory, queries
//
// Pair lines: {"id": 0, "fromLat": .., "fromLon": .., "toLat": .., "toLon": ..} (degrees). Every command prints one
// JSON object per measured configuration on stdout.
import Foundation
import Geo
import OSMImport
import RoadGraph
import SeededRandom
import Routing

struct Pair: Decodable {
    var id: Int
    var fromLat: Double
    var fromLon: Double
    var toLat: Double
    var toLon: Double
}

/// Resident set size of this process, MiB (VmRSS from /proc/self/status).
func residentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kib = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
        return kib / 1024
    }
    return .nan
}

/// Peak resident set size of this process, MiB (VmHWM).
func peakResidentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? .nan) / 1024
    }
    return .nan
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

func percentile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count - 1)).rounded())))]
}

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func readPairs(_ path: String) throws -> [Pair] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let decoder = JSONDecoder()
    return try text.split(separator: "\n").filter { !$0.isEmpty }.map { try decoder.decode(Pair.self, from: Data($0.utf8)) }
}

/// Routes all pairs; writes per-pair lines to `output` (when given) and returns the summary.
func measure(
    router: Router, pairs: [Pair], strategy: RoutingStrategy, algorithm: SearchAlgorithm, output: String?
) -> [String: Any] {
    var lines: [String] = []
    var latencies: [Double] = []
    var statuses: [String: Int] = [:]
    let clock = ContinuousClock()
    for pair in pairs {
        let request = RouteRequest(
            origin: Waypoint(Coordinate(latitude: pair.fromLat, longitude: pair.fromLon)),
            destinations: [Waypoint(Coordinate(latitude: pair.toLat, longitude: pair.toLon))], strategy: strategy)
        let start = clock.now
        let response = router.route(request, algorithm: algorithm)
        let latencyMs = seconds(clock.now - start) * 1000
        statuses[response.status.rawValue, default: 0] += 1
        if response.status == .ok { latencies.append(latencyMs) }
        if output != nil {
            let route = response.route
            lines.append(
                "{\"id\": \(pair.id), \"status\": \"\(response.status.rawValue)\", "
                    + "\"distanceMeters\": \(route?.distanceMeters ?? 0), \"durationSeconds\": \(route?.durationSeconds ?? 0), "
                    + "\"latencyMs\": \(latencyMs), \"osmWayIDs\": \(route?.legs.first?.osmWayIDs ?? [])}")
        }
    }
    if let output {
        _ = FileManager.default.createFile(atPath: output, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    return [
        "strategy": strategy.rawValue, "algorithm": algorithm.rawValue, "pairs": pairs.count,
        "ok": statuses["ok"] ?? 0, "statuses": statuses,
        "p50Ms": percentile(latencies, 0.5), "p99Ms": percentile(latencies, 0.99),
        "rssMiB": residentMiB(),
    ]
}

func routesCommand(graphPath: String, pairsPath: String, outdir: String, algorithms: [SearchAlgorithm]) throws {
    let clock = ContinuousClock()
    let rssStart = residentMiB()
    let loadStart = clock.now
    let graph = try RoadGraph(contentsOf: URL(fileURLWithPath: graphPath))
    let loadSeconds = seconds(clock.now - loadStart)
    let rssLoaded = residentMiB()
    let landmarkStart = clock.now
    let environment = ProcessInfo.processInfo.environment
    let landmarkCount = Int(environment["LANDMARKS"] ?? "") ?? 16
    let landmarks = LandmarkIndex.build(graph: graph, modes: [.driving], landmarkCount: landmarkCount)
    let landmarkSeconds = seconds(clock.now - landmarkStart)
    var configuration = RouterConfiguration()
    if let active = Int(environment["ACTIVE_LANDMARKS"] ?? "") { configuration.activeLandmarkCount = active }
    let router = Router(graph: graph, landmarks: landmarks, configuration: configuration)
    let fileBytes = (try? FileManager.default.attributesOfItem(atPath: graphPath)[.size] as? Int) ?? 0
    emit([
        "graph": graphPath, "nodes": graph.nodeCount, "edges": graph.edgeCount, "fileBytes": fileBytes,
        "loadSeconds": loadSeconds, "rssAfterLoadMiB": rssLoaded - rssStart, "landmarkSeconds": landmarkSeconds,
        "landmarkBytes": landmarks.memoryBytes, "rssWithRouterMiB": residentMiB() - rssStart,
        "landmarks": landmarkCount, "activeLandmarks": configuration.activeLandmarkCount,
    ])
    let pairs = try readPairs(pairsPath)
    for strategy in RoutingStrategy.allCases {
        for algorithm in algorithms {
            var summary = measure(router: router, pairs: pairs, strategy: strategy, algorithm: algorithm,
                                  output: "\(outdir)/edgenav-\(strategy.rawValue)-\(algorithm.rawValue).jsonl")
            summary["rssMiB"] = residentMiB() - rssStart
            emit(summary)
        }
    }
}

/// A square grid city of `nodeCount` junctions 100 m apart: two-way residential streets (40 km/h), every 10th
/// street an arterial (70 km/h), every 5th non-arterial street one-way (alternating directions).
func gridCommand(nodeCount: Int, pairCount: Int, dijkstraPairs: Int) throws {
    let clock = ContinuousClock()
    let side = Int(Double(nodeCount).squareRoot().rounded())
    let rssStart = residentMiB()
    let buildStart = clock.now
    let projection = LocalProjection(origin: Coordinate(latitude: 60.0, longitude: 24.0))
    var builder = RoadGraphBuilder()
    for row in 0..<side {
        for col in 0..<side {
            _ = builder.addNode(projection.unproject(x: Double(col) * 100, y: Double(row) * 100))
        }
    }
    func street(_ index: Int, _ horizontal: Bool, _ from: Int, _ to: Int) {
        let arterial = index % 10 == 0
        let oneway = !arterial && index % 5 == 0
        let way = Int64(horizontal ? index + 1 : side + index + 1)
        let attributes = EdgeAttributes(access: .all, freeFlowSpeedKph: arterial ? 70 : 40, osmWayID: way,
                                        highwayClass: arterial ? .primary : .residential)
        let forwardOnly = (index / 5) % 2 == 0
        if !oneway || forwardOnly { builder.addEdge(from: NodeID(from), to: NodeID(to), attributes: attributes) }
        if !oneway || !forwardOnly { builder.addEdge(from: NodeID(to), to: NodeID(from), attributes: attributes) }
    }
    for row in 0..<side {
        for col in 0..<side {
            let v = row * side + col
            if col + 1 < side { street(row, true, v, v + 1) }
            if row + 1 < side { street(col, false, v, v + side) }
        }
    }
    let graph = try builder.build()
    let buildSeconds = seconds(clock.now - buildStart)
    let rssGraph = residentMiB()
    let landmarkStart = clock.now
    let landmarks = LandmarkIndex.build(graph: graph, modes: [.driving], landmarkCount: 8)
    let landmarkSeconds = seconds(clock.now - landmarkStart)
    let router = Router(graph: graph, landmarks: landmarks)
    emit([
        "grid": "\(side)x\(side)", "nodes": graph.nodeCount, "edges": graph.edgeCount, "graphBytes": graph.byteCount,
        "buildSeconds": buildSeconds, "rssAfterBuildMiB": rssGraph - rssStart, "landmarkSeconds": landmarkSeconds,
        "landmarkBytes": landmarks.memoryBytes, "rssWithRouterMiB": residentMiB() - rssStart,
    ])
    var seeded = SplitMix64(seed: 42)
    func nextRandom() -> Double { seeded.nextUnit() }  // reproducible pairs
    let extent = Double(side - 1) * 100
    var pairs: [Pair] = []
    for id in 0..<pairCount {
        let a = projection.unproject(x: nextRandom() * extent, y: nextRandom() * extent)
        let b = projection.unproject(x: nextRandom() * extent, y: nextRandom() * extent)
        pairs.append(Pair(id: id, fromLat: a.latitude, fromLon: a.longitude, toLat: b.latitude, toLon: b.longitude))
    }
    for strategy in RoutingStrategy.allCases {
        var summary = measure(router: router, pairs: pairs, strategy: strategy, algorithm: .alt, output: nil)
        summary["grid"] = "\(side)x\(side)"
        emit(summary)
        var reference = measure(router: router, pairs: Array(pairs.prefix(dijkstraPairs)), strategy: strategy,
                                algorithm: .bidirectionalDijkstra, output: nil)
        reference["grid"] = "\(side)x\(side)"
        emit(reference)
    }
}

let arguments = CommandLine.arguments
do {
    switch arguments.count > 1 ? arguments[1] : "" {
    case "routes" where arguments.count >= 5:
        let algorithms = arguments.count > 5
            ? arguments[5].split(separator: ",").compactMap { SearchAlgorithm(rawValue: String($0)) }
            : [.alt, .bidirectionalDijkstra]
        try routesCommand(graphPath: arguments[2], pairsPath: arguments[3], outdir: arguments[4], algorithms: algorithms)
    case "import" where arguments.count >= 4:
        let clock = ContinuousClock()
        let start = clock.now
        let summary = try GraphImporter.importFile(input: URL(fileURLWithPath: arguments[2]),
                                                   output: URL(fileURLWithPath: arguments[3]), progress: nil)
        emit(["map": arguments[2], "importSeconds": seconds(clock.now - start), "fileBytes": summary.outputBytes,
              "nodes": summary.graphNodes, "edges": summary.graphEdges, "peakRssMiB": peakResidentMiB(),
              "restrictionsApplied": summary.restrictionsApplied, "restrictionsSkipped": summary.restrictionsSkipped,
              "waysKept": summary.waysKept])
    case "snap" where arguments.count >= 5:  // diagnostics: what a coordinate snaps to
        let graph = try RoadGraph(contentsOf: URL(fileURLWithPath: arguments[2]))
        let point = Coordinate(latitude: Double(arguments[3]) ?? 0, longitude: Double(arguments[4]) ?? 0)
        for snap in graph.nearestEdges(to: point, mode: .driving, radiusMeters: 250, limit: 6) {
            let e = snap.edge
            let onward = graph.outgoingEdges(of: graph.target(of: e)).filter {
                graph.access(of: $0).contains(.driving) && graph.isTurnAllowed(from: e, to: $0, mode: .driving)
            }
            emit(["edge": Int(e), "way": graph.osmWayID(of: e), "distanceMeters": snap.distanceMeters,
                  "access": graph.access(of: e).description, "flags": Int(graph.flags(of: e).rawValue),
                  "onwardWays": onward.map { graph.osmWayID(of: $0) },
                  "targetPassable": graph.isPassable(node: graph.target(of: e), mode: .driving),
                  "sourcePassable": graph.isPassable(node: graph.source(of: e), mode: .driving)])
        }
    case "grid" where arguments.count >= 3:
        try gridCommand(nodeCount: Int(arguments[2]) ?? 1_000_000,
                        pairCount: arguments.count > 3 ? Int(arguments[3]) ?? 1000 : 1000,
                        dijkstraPairs: arguments.count > 4 ? Int(arguments[4]) ?? 100 : 100)
    default:
        FileHandle.standardError.write(Data("usage: bench-routing routes GRAPH PAIRS OUTDIR [alt,dijkstra,...] | grid NODES [PAIRS] [DIJKSTRA_PAIRS]\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("bench-routing: \(error)\n".utf8))
    exit(1)
}
