// Accuracy and speed of MapMatching on simulated drives over a real extract (run by scripts/bench-matching).
//
//   MatchingBenchmark simulate --map MAP.osm.pbf|MAP.graph --out DIR [--drives 30] [--seed 1] [--sigma 8]
//                              [--outliers 0.02] [--interval 1 --interval 5] [--save-graph MAP.graph]
//                              [--no-speed] (fixes without speed and course) [--accuracy M] (reported accuracy)
//                              [--position-only] (also match each drive with speed and course stripped)
//                              [--traffic] (traffic-like drives: lanes, queues with stop-and-go, slower cruising;
//                              see DriveSimulationConfiguration.trafficLike; output in DIR/<interval>s-traffic/)
//                              [--repeat N] (match each drive N times, keep each fix's smallest time)
//                              [--lag N] and other configuration overrides (see below) for tuning experiments
//       Imports the map, routes random trips, simulates each drive per fix interval, writes DIR/<interval>s/
//       fixes.jsonl and truth.jsonl (one JSON array per drive and line), runs the online matcher on every drive
//       (one update per fix, timed) and writes edgenav.jsonl (per drive: [[lat, lon, wayId], …]) and timing.json,
//       and breakdown.txt: the wrong-way fixes classified by cause (see ErrorBreakdown).
//   MatchingBenchmark wayids --map MAP.osm.pbf --in POINTS.jsonl --truth TRUTH.jsonl --out OUT.jsonl
//       For engines that report positions without OSM way ids (OSRM): each drive's [[lat, lon] or null, …] becomes
//       [[lat, lon, wayId], …] with the way of the nearest road within 2 m (ties broken towards the true way, so the
//       reference is never penalised for a point on a shared node).
import Foundation
import Geo
import MapMatching
import OSMImport
import RoadGraph
import Routing
import TraceSimulation

struct Options {
    var values: [String: [String]] = [:]
    init(_ args: ArraySlice<String>) {
        var key: String?
        for a in args {
            if a.hasPrefix("--") {
                key = String(a.dropFirst(2))
                values[key!, default: []].append("")
            } else if let k = key {
                values[k]![values[k]!.count - 1] = a
                key = nil
            }
        }
    }
    func string(_ k: String) -> String? { values[k]?.last }
    func double(_ k: String, _ d: Double) -> Double { string(k).flatMap(Double.init) ?? d }
    func int(_ k: String, _ d: Int) -> Int { string(k).flatMap(Int.init) ?? d }
    func doubles(_ k: String, _ d: [Double]) -> [Double] {
        let v = (values[k] ?? []).compactMap(Double.init)
        return v.isEmpty ? d : v
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("MatchingBenchmark: \(message)\n".utf8))
    exit(1)
}

func loadGraph(_ path: String) -> RoadGraph {
    let url = URL(fileURLWithPath: path)
    do {
        if path.hasSuffix(".graph") { return try RoadGraph(contentsOf: url) }
        return try GraphImporter.buildGraph(input: url).graph
    } catch {
        fail("cannot load \(path): \(error)")
    }
}

func json(_ value: Any) -> String {
    let data = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}

/// CPU time consumed by the calling thread, microseconds (CLOCK_THREAD_CPUTIME_ID, nanosecond resolution).
func threadCPUMicroseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e6 + Double(t.tv_nsec) / 1e3
}

func percentile(_ values: [Double], _ q: Double) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    return s[min(s.count - 1, max(0, Int((q * Double(s.count - 1)).rounded())))]
}

func simulate(_ o: Options) {
    guard let mapPath = o.string("map"), let out = o.string("out") else { fail("simulate needs --map and --out") }
    let graph = loadGraph(mapPath)
    if let save = o.string("save-graph") {
        do { try graph.write(to: URL(fileURLWithPath: save)) } catch { fail("cannot write \(save): \(error)") }
    }
    let index = RoadGeometryIndex(graph: graph)
    // Drives between random points on open roads, as in every session before 7: since then a waypoint on a road
    // closed to cars would start or end its drive there, and the same seed would drive other routes.
    var openRoadsOnly = RouterConfiguration()
    openRoadsOnly.closedRoadSnapMarginMeters = .infinity
    let router = Router(graph: graph, configuration: openRoadsOnly)
    let driveCount = o.int("drives", 30)
    let seed = UInt64(o.int("seed", 1))
    let sigma = o.double("sigma", 8)
    let outliers = o.double("outliers", 0.02)
    let repeats = o.int("repeat", 1)
    guard let box = graph.metadata.boundingBox else { fail("empty graph") }
    // Configuration overrides, for tuning experiments (the published figures use the defaults).
    var configuration = MapMatchingConfiguration()
    if let v = o.string("lag").flatMap(Int.init) {
        // A lag of exactly this many fixes.
        configuration.lagFixes = v
        configuration.maximumLagFixes = v
        configuration.lagSeconds = 0
    }
    if let v = o.string("lag-seconds").flatMap(Double.init) { configuration.lagSeconds = v }
    if let v = o.string("lag-fixes").flatMap(Int.init) { configuration.lagFixes = v }
    if let v = o.string("candidates").flatMap(Int.init) { configuration.maximumCandidateRoads = v }
    if let v = o.string("prune").flatMap(Double.init) { configuration.pruneMargin = v }
    if let v = o.string("history").flatMap(Int.init) { configuration.smoothingHistoryFixes = v }
    if let v = o.string("beta").flatMap(Double.init) { configuration.betaMeters = v }
    if let v = o.string("junction-penalty").flatMap(Double.init) { configuration.standingPastJunctionPenalty = v }
    if let v = o.string("clearance").flatMap(Double.init) { configuration.junctionClearanceMeters = v }
    if let v = o.string("speed-sigma").flatMap(Double.init) { configuration.speedIntegrationSigmaMetersPerSecond = v }
    if let v = o.string("speed-scale").flatMap(Double.init) { configuration.speedIntegrationScaleError = v }
    if let v = o.string("rejection").flatMap(Double.init) { configuration.smoothingRejectionSigmas = v }
    if let v = o.string("inference-margin").flatMap(Double.init) { configuration.speedInferenceMarginSigmas = v }
    if let v = o.string("inference-seconds").flatMap(Double.init) { configuration.speedInferenceSeconds = v }
    if let v = o.string("course-hold").flatMap(Double.init) { configuration.standingCourseHoldSeconds = v }
    if let v = o.string("course-weight").flatMap(Double.init) { configuration.courseWeight = v }
    if let v = o.string("stop-bonus").flatMap(Double.init) { configuration.standingBeforeJunctionBonus = v }
    if let v = o.string("stop-zone").flatMap(Double.init) { configuration.stopLineZoneMeters = v }
    if let v = o.string("near").flatMap(Int.init) { configuration.smoothingNearFixes = v }
    if let v = o.string("history-seconds").flatMap(Double.init) { configuration.smoothingHistorySeconds = v }
    if let v = o.string("inferred-course").flatMap(Double.init) { configuration.inferredCourseWeight = v }
    if let v = o.string("acceleration").flatMap(Double.init) {
        configuration.accelerationSigmaMetersPerSecondSquared = v
    }
    if let v = o.string("beta-sigmas").flatMap(Double.init) { configuration.betaPerSigma = v }
    if let v = o.string("speed-beta").flatMap(Double.init) { configuration.speedBetaMeters = v }
    if let v = o.string("speed-inference").flatMap(Int.init) { configuration.speedInferenceFixes = v }
    if let v = o.string("derived-beta").flatMap(Double.init) { configuration.derivedSpeedBetaMeters = v }
    if let v = o.string("derived-growth").flatMap(Double.init) { configuration.derivedSpeedBetaGrowthMetersPerSecond = v }
    if let v = o.string("jerk").flatMap(Double.init) { configuration.positionsOnlyJerkMetersPerSecondCubed = v }
    if let v = o.string("half-lane").flatMap(Double.init) { configuration.halfLaneWidthMeters = v }
    if let v = o.string("sigma-default").flatMap(Double.init) { configuration.defaultSigmaMeters = v }
    if let v = o.string("stop-uncertainty").flatMap(Double.init) { configuration.stoppingIntervalUncertaintyFactor = v }
    if let v = o.string("speed-step").flatMap(Double.init) { configuration.speedStepSeconds = v }
    if let v = o.string("turn-sigma").flatMap(Double.init) { configuration.sharpTurnPathSigmaMeters = v }
    if let v = o.string("turn-degrees").flatMap(Double.init) { configuration.sharpTurnDegrees = v }

    // Random trips of 1.5–6 km straight-line between uniformly drawn points on driveable roads.
    var rng = SplitMix64(seed: seed)
    var routes: [Route] = []
    var attempts = 0
    while routes.count < driveCount && attempts < driveCount * 200 {
        attempts += 1
        func point() -> Coordinate {
            Coordinate(latitude: Double.random(in: box.minLatitude...box.maxLatitude, using: &rng),
                       longitude: Double.random(in: box.minLongitude...box.maxLongitude, using: &rng))
        }
        let a = point(), b = point()
        let gc = Geodesy.distanceMeters(a, b)
        guard gc > 1500 && gc < 6000 else { continue }
        guard index.nearest(to: a, mode: .driving, radius: 50) != nil, index.nearest(to: b, mode: .driving, radius: 50) != nil
        else { continue }
        let response = router.route(RouteRequest(origin: Waypoint(a), destinations: [Waypoint(b)]))
        guard response.status == .ok, let route = response.route, route.distanceMeters > 1000 else { continue }
        routes.append(route)
    }
    FileHandle.standardError.write(Data("simulate: \(routes.count) routes, \(graph.edgeCount) edges\n".utf8))

    for interval in o.doubles("interval", [1, 5]) {
        let traffic = o.values["traffic"] != nil
        let dir = URL(fileURLWithPath: out).appendingPathComponent("\(Int(interval))s" + (traffic ? "-traffic" : ""))
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var fixesText = "", truthText = "", oursText = "", positionOnlyText = "", provisionalText = ""
        var perFix: [Double] = []
        var perFixPositionOnly: [Double] = []
        var onWay = 0
        var errors: [Double] = []
        // The provisional answers (each fix's answer at once, as the navigator uses it).
        var provisionalOnWay = 0
        var provisionalErrors: [Double] = []
        var totalFixes = 0
        var searches = 0
        var breakdown = ErrorBreakdown()
        var breakdownPositionOnly = ErrorBreakdown()
        for (n, route) in routes.enumerated() {
            var c = traffic ? DriveSimulationConfiguration.trafficLike : DriveSimulationConfiguration()
            c.fixIntervalSeconds = interval
            c.positionSigmaMeters = sigma
            c.outlierProbability = outliers
            c.seed = seed &* 1_000_003 &+ UInt64(n)
            if o.values["no-speed"] != nil {
                // Position-only receivers: no Doppler speed, no course.
                c.speedSigmaMetersPerSecond = nil
                c.courseSigmaDegrees = nil
            }
            if let a = o.string("accuracy").flatMap(Double.init) { c.reportedAccuracyMeters = a }
            let drive = DriveSimulator(index: index, configuration: c).drive(route)
            fixesText += json(drive.fixes.map { f -> [String: Any] in
                var d: [String: Any] = ["lat": f.coordinate.latitude, "lon": f.coordinate.longitude, "timestamp": f.timestamp]
                if let v = f.speedMetersPerSecond { d["speed"] = v }
                if let v = f.courseDegrees { d["course"] = v }
                return d
            }) + "\n"
            truthText += json(zip(drive.truth, drive.isOutlier).map { t, outlier -> [String: Any] in
                ["lat": t.coordinate.latitude, "lon": t.coordinate.longitude, "wayId": t.osmWayID,
                 "stopped": t.isStopped, "outlier": outlier, "speed": t.speedMetersPerSecond]
            }) + "\n"
            // The online matcher, one timed update per fix, as a navigator would call it. With --repeat N the drive
            // is matched N times by fresh matchers and each fix keeps its smallest time (less noise from other
            // processes on a shared machine; scripts/bench-matching uses 3).
            var matcher = MapMatcher(index: index, configuration: configuration)
            var results: [SnappedLocation] = []
            var provisional: [SnappedLocation] = []
            var times = [Double](repeating: .infinity, count: drive.fixes.count)
            for run in 0..<max(1, repeats) {
                if run > 0 { matcher = MapMatcher(index: index, configuration: configuration) }
                results.removeAll(keepingCapacity: true)
                provisional.removeAll(keepingCapacity: true)
                // Thread CPU time, not wall time: the machine is shared, and a preempted update would count the
                // other processes' time slices (milliseconds) as ours.
                for (i, fix) in drive.fixes.enumerated() {
                    let start = threadCPUMicroseconds()
                    let update = matcher.update(fix)
                    times[i] = min(times[i], threadCPUMicroseconds() - start)
                    results.append(contentsOf: update.finalized)
                    provisional.append(update.provisional)
                }
                results.append(contentsOf: matcher.finish())
            }
            perFix.append(contentsOf: times)
            for (r, t) in zip(provisional, drive.truth) {
                if r.osmWayID == t.osmWayID { provisionalOnWay += 1 }
                provisionalErrors.append(Geodesy.distanceMeters(r.coordinate, t.coordinate))
            }
            for (r, t) in zip(results, drive.truth) {
                if r.osmWayID == t.osmWayID { onWay += 1 }
                errors.append(Geodesy.distanceMeters(r.coordinate, t.coordinate))
            }
            breakdown.add(drive: drive, matched: results, index: index)
            searches += matcher.roadSearchCount
            totalFixes += drive.fixes.count
            provisionalText += json(provisional.map {
                [$0.coordinate.latitude, $0.coordinate.longitude, $0.osmWayID] as [Any]
            }) + "\n"
            oursText += json(results.map { [$0.coordinate.latitude, $0.coordinate.longitude, $0.osmWayID] as [Any] }) + "\n"
            if o.values["position-only"] != nil {
                // The same positions without speed and course (what OSRM and Valhalla are given).
                let plain = drive.fixes.map { LocationFix(coordinate: $0.coordinate, timestamp: $0.timestamp) }
                var bareResults: [SnappedLocation] = []
                var bareTimes = [Double](repeating: .infinity, count: plain.count)
                for _ in 0..<max(1, repeats) {
                    let bare = MapMatcher(index: index, configuration: configuration)
                    bareResults.removeAll(keepingCapacity: true)
                    for (i, fix) in plain.enumerated() {
                        let start = threadCPUMicroseconds()
                        let update = bare.update(fix)
                        bareTimes[i] = min(bareTimes[i], threadCPUMicroseconds() - start)
                        bareResults.append(contentsOf: update.finalized)
                    }
                    bareResults.append(contentsOf: bare.finish())
                }
                perFixPositionOnly.append(contentsOf: bareTimes)
                breakdownPositionOnly.add(drive: drive, matched: bareResults, index: index)
                positionOnlyText += json(bareResults.map { [$0.coordinate.latitude, $0.coordinate.longitude, $0.osmWayID] as [Any] }) + "\n"
            }
        }
        var breakdownText = breakdown.report(title: "EdgeNav \(Int(interval)) s")
        if breakdownPositionOnly.fixes > 0 {
            breakdownText += breakdownPositionOnly.report(title: "EdgeNav positions only \(Int(interval)) s")
        }
        try! breakdownText.write(to: dir.appendingPathComponent("breakdown.txt"), atomically: true, encoding: .utf8)
        FileHandle.standardError.write(Data(breakdownText.utf8))
        try! fixesText.write(to: dir.appendingPathComponent("fixes.jsonl"), atomically: true, encoding: .utf8)
        try! truthText.write(to: dir.appendingPathComponent("truth.jsonl"), atomically: true, encoding: .utf8)
        try! oursText.write(to: dir.appendingPathComponent("edgenav.jsonl"), atomically: true, encoding: .utf8)
        try! provisionalText.write(to: dir.appendingPathComponent("edgenav-provisional.jsonl"), atomically: true,
                                   encoding: .utf8)
        let timing: [String: Any] = [
            "fixes": totalFixes, "drives": routes.count, "p50Microseconds": percentile(perFix, 0.5),
            "p99Microseconds": percentile(perFix, 0.99), "meanMicroseconds": perFix.reduce(0, +) / Double(max(1, perFix.count)),
            "roadSearchesPerFix": Double(searches) / Double(max(1, totalFixes)),
            "onTrueWay": Double(onWay) / Double(max(1, totalFixes)), "errorP50": percentile(errors, 0.5),
            "errorP95": percentile(errors, 0.95),
            "provisionalOnTrueWay": Double(provisionalOnWay) / Double(max(1, totalFixes)),
            "provisionalErrorP50": percentile(provisionalErrors, 0.5),
            "provisionalErrorP95": percentile(provisionalErrors, 0.95), "lagFixes": configuration.lagFixes,
            "lagSeconds": configuration.lagSeconds, "maximumLagFixes": configuration.maximumLagFixes,
        ]
        try! json(timing).write(to: dir.appendingPathComponent("timing.json"), atomically: true, encoding: .utf8)
        if !positionOnlyText.isEmpty {
            try! positionOnlyText.write(to: dir.appendingPathComponent("edgenav-position-only.jsonl"), atomically: true,
                                        encoding: .utf8)
            let t: [String: Any] = [
                "p50Microseconds": percentile(perFixPositionOnly, 0.5), "p99Microseconds": percentile(perFixPositionOnly, 0.99),
                "meanMicroseconds": perFixPositionOnly.reduce(0, +) / Double(max(1, perFixPositionOnly.count)),
            ]
            try! json(t).write(to: dir.appendingPathComponent("timing-position-only.json"), atomically: true, encoding: .utf8)
        }
        print(json(["interval": interval, "timing": timing]))
    }
}

func wayIDs(_ o: Options) {
    guard let mapPath = o.string("map"), let input = o.string("in"), let truthPath = o.string("truth"),
          let out = o.string("out") else { fail("wayids needs --map, --in, --truth and --out") }
    let graph = loadGraph(mapPath)
    let lines = (try? String(contentsOfFile: input, encoding: .utf8))?.split(separator: "\n") ?? []
    let truthLines = (try? String(contentsOfFile: truthPath, encoding: .utf8))?.split(separator: "\n") ?? []
    var text = ""
    for (line, truthLine) in zip(lines, truthLines) {
        let points = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [Any] ?? []
        let truth = (try? JSONSerialization.jsonObject(with: Data(truthLine.utf8))) as? [[String: Any]] ?? []
        var result: [Any] = []
        for (i, p) in points.enumerated() {
            guard let pair = p as? [Double], pair.count >= 2 else { result.append(NSNull()); continue }
            let c = Coordinate(latitude: pair[0], longitude: pair[1])
            let trueWay = (truth.indices.contains(i) ? truth[i]["wayId"] as? Int64 : nil) ?? -1
            let near = graph.nearestEdges(to: c, mode: .driving, radiusMeters: 2, limit: 8)
            let way = near.first(where: { graph.osmWayID(of: $0.edge) == trueWay }).map { _ in trueWay }
                ?? near.first.map { graph.osmWayID(of: $0.edge) } ?? 0
            result.append([pair[0], pair[1], way] as [Any])
        }
        text += json(result) + "\n"
    }
    try! text.write(toFile: out, atomically: true, encoding: .utf8)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: MatchingBenchmark simulate|wayids --map MAP …") }
let options = Options(arguments.dropFirst(2))
switch arguments[1] {
case "simulate": simulate(options)
case "wayids": wayIDs(options)
default: fail("unknown command \(arguments[1])")
}
