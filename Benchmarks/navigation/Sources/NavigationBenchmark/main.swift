// Accuracy and per-fix cost of the navigator on simulated noisy drives over a real extract.
//   swift build -c release --product NavigationBenchmark
//   .build/release/NavigationBenchmark <map.osm.pbf> [trips=40] [snapping=mapMatcher|nearestRoad]
import Foundation
import Geo
import MapMatching
import Navigation
import OSMImport
import RoadGraph
import Routing
import TraceSimulation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: NavigationBenchmark <map.osm.pbf> [trips] [mapMatcher|nearestRoad]")
    exit(2)
}
let mapURL = URL(fileURLWithPath: arguments[1])
let tripCount = arguments.count > 2 ? Int(arguments[2]) ?? 40 : 40
let snapping = TripEvaluator.Snapping(rawValue: arguments.count > 3 ? arguments[3] : "mapMatcher") ?? .mapMatcher

let clock = ContinuousClock()
let verbose = ProcessInfo.processInfo.environment["NAV_BENCH_VERBOSE"] != nil
let importStart = clock.now
let (graph, _) = try GraphImporter.buildGraph(input: mapURL)
print(
    "map \(mapURL.lastPathComponent): \(graph.nodeCount) nodes, \(graph.edgeCount) edges, imported in \(clock.now - importStart)"
)
let index = RoadGeometryIndex(graph: graph)
let router = Router(graph: graph)

// Trips: origin → two waypoints, each leg 1–6 km by road, from seeded random driving edges.
/// NAV_BENCH_SEED draws another sample of trips (default 2026, the one BENCHMARKS.md reports).
var rng = SplitMix64(seed: ProcessInfo.processInfo.environment["NAV_BENCH_SEED"].flatMap(UInt64.init) ?? 2026)
var drivable: [EdgeID] = []
for e in 0..<EdgeID(graph.edgeCount) where graph.access(of: e).contains(.driving) && graph.lengthMeters(of: e) > 30 {
    drivable.append(e)
}
@MainActor func randomPoint() -> Coordinate {
    let e = drivable[Int.random(in: 0..<drivable.count, using: &rng)]
    let g = graph.geometry(of: e)
    return PolylineGeometry.point(along: g, offsetMeters: PolylineGeometry.lengthMeters(g) / 2)!
}
var trips: [(Coordinate, [Coordinate])] = []
var attempts = 0
while trips.count < tripCount && attempts < tripCount * 200 {
    attempts += 1
    let o = randomPoint(), a = randomPoint(), b = randomPoint()
    guard let route = router.route(RouteRequest(origin: Waypoint(o), destinations: [Waypoint(a), Waypoint(b)])).route,
        route.legs.allSatisfy({ $0.distanceMeters >= 1000 && $0.distanceMeters <= 6000 })
    else { continue }
    trips.append((o, [a, b]))
}
print("trips: \(trips.count) (two waypoints each), snapping: \(snapping.rawValue)")

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let s = values.sorted()
    return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
}
func pct(_ x: Double) -> String { String(format: "%.1f%%", x * 100) }

/// Off-route experiments: NAV_DIV_THRESHOLD, NAV_DIV_REFERENCE, NAV_DIV_STEP, NAV_DIV_LOG_ODDS, NAV_DIV_COURSE,
/// NAV_DIV_COURSE_STEP, NAV_DIV_COURSE_SPAN, NAV_VETO_LOG_ODDS override the
/// divergence rule's defaults (0 threshold = off); NAV_DECISIVE_LOG_ODDS, NAV_HOLD_LOG_ODDS the matcher's off-route
/// thresholds; NAV_STANDING_PROGRESS, NAV_COASTING_SECONDS, NAV_AGREEING_ESTIMATE the arrival checks (0 = off); NAV_BRANCH_DECISION (0 = off), NAV_BRANCH_LANE,
/// NAV_BRANCH_COURSE_SIGMA, NAV_BRANCH_STEP, NAV_BRANCH_COURSE_STEP, NAV_BRANCH_SPAN, NAV_BRANCH_PAST (0 = off),
/// NAV_BRANCH_PAST_ESTIMATE (negative = off) the junction branch
/// test's.
func applyOffRouteOverrides(_ c: inout NavigatorConfiguration) {
    let env = ProcessInfo.processInfo.environment
    if let v = env["NAV_BRANCH_DECISION"].flatMap(Double.init) {
        c.junctionBranches.decisionLogOdds = v > 0 ? v : .infinity
    }
    if let v = env["NAV_BRANCH_LANE"].flatMap(Double.init) { c.junctionBranches.laneSigmaMeters = v }
    if let v = env["NAV_BRANCH_COURSE_SIGMA"].flatMap(Double.init) { c.junctionBranches.courseSigmaDegrees = v }
    if let v = env["NAV_BRANCH_STEP"].flatMap(Double.init) { c.junctionBranches.maximumStepPerFix = v }
    if let v = env["NAV_BRANCH_COURSE_STEP"].flatMap(Double.init) { c.junctionBranches.maximumCourseStep = v }
    if let v = env["NAV_BRANCH_SPAN"].flatMap(Double.init) { c.junctionBranches.courseSpanMeters = v }
    if let v = env["NAV_BRANCH_PAST"].flatMap(Double.init) { c.junctionBranches.pastJunctionMeters = v > 0 ? v : .infinity }
    if let v = env["NAV_BRANCH_PAST_ESTIMATE"].flatMap(Double.init) { c.junctionBranches.pastJunctionEstimateMeters = v >= 0 ? v : .infinity }
    if let v = env["NAV_DIV_THRESHOLD"].flatMap(Double.init) { c.divergenceThreshold = v > 0 ? v : .infinity }
    if let v = env["NAV_DIV_REFERENCE"].flatMap(Double.init) { c.divergenceReferenceAccuracies = v }
    if let v = env["NAV_DIV_STEP"].flatMap(Double.init) { c.divergenceMaximumStep = v }
    if let v = env["NAV_DIV_LOG_ODDS"].flatMap(Double.init) { c.divergenceLogOdds = v }
    if let v = env["NAV_DIV_COURSE"].flatMap(Double.init) { c.divergenceCourseDegrees = v }
    if let v = env["NAV_DIV_COURSE_STEP"].flatMap(Double.init) { c.divergenceCourseStep = v }
    if let v = env["NAV_DIV_COURSE_SPAN"].flatMap(Double.init) { c.divergenceCourseSpanMeters = v }
    if let v = env["NAV_VETO_LOG_ODDS"].flatMap(Double.init) { c.offRouteVetoLogOdds = v }
    if let v = env["NAV_DECISIVE_LOG_ODDS"].flatMap(Double.init) { c.offRouteDecisiveLogOdds = v }
    if let v = env["NAV_HOLD_LOG_ODDS"].flatMap(Double.init) { c.offRouteHoldLogOdds = v }
    if let v = env["NAV_STANDING_PROGRESS"].flatMap(Double.init) { c.arrivalStandingProgressMeters = v }
    if let v = env["NAV_COASTING_SECONDS"].flatMap(Double.init) { c.arrivalCoastingMaximumSeconds = v }
    if let v = env["NAV_AGREEING_ESTIMATE"].flatMap(Double.init) { c.arrivalAgreeingEstimateMeters = v }
}

/// NAV_BENCH_LANE_METERS: every fix that far right of the true course (a vehicle in a lane off the centre line).
let laneOffset = ProcessInfo.processInfo.environment["NAV_BENCH_LANE_METERS"].flatMap(Double.init) ?? 0
/// NAV_BENCH_TRIPS=3,17: only these trips (0-based, as the verbose log numbers them) in the arrival and ETA runs.
let onlyTrips = ProcessInfo.processInfo.environment["NAV_BENCH_TRIPS"].map {
    Set($0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
}
if laneOffset != 0 { print("fixes \(laneOffset) m right of the true course") }
var stepNanos: [Double] = []
/// The same steps in this thread's CPU time (no time spent descheduled on a loaded machine).
var stepCPUNanos: [Double] = []
func threadCPUNanos() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}
for interval in [1.0, 5.0] {
    for traffic in [false, true] where ProcessInfo.processInfo.environment["NAV_BENCH_ONLY_LEAVING"] == nil {
        var evaluator = TripEvaluator(graph: graph, index: index)
        evaluator.laneOffsetMeters = laneOffset
        evaluator.snapping = snapping
        evaluator.noise.fixIntervalSeconds = interval
        evaluator.noise.reportedAccuracyMeters = 10
        if verbose { evaluator.log = { print("  " + $0) } }
        applyOffRouteOverrides(&evaluator.configuration)
        // Model experiments: NAV_OWN_WEIGHT, NAV_SIGNAL_SECONDS, NAV_TURN_SCALE override the defaults.
        let env = ProcessInfo.processInfo.environment
        if let w = env["NAV_OWN_WEIGHT"].flatMap(Double.init) { evaluator.configuration.ownSpeedWeight = w }
        if let v = env["NAV_SIGNAL_SECONDS"].flatMap(Double.init) {
            evaluator.configuration.junctions.trafficSignalSeconds = v
        }
        if let r = env["NAV_ARRIVAL_RADIUS"].flatMap(Double.init) { evaluator.configuration.arrivalRadiusMeters = r }
        if let k = env["NAV_PACE_HALF_WEIGHT"].flatMap(Double.init) { evaluator.configuration.paceHalfWeightSeconds = k }
        if let v = env["NAV_PACE_SPLIT"] { evaluator.configuration.paceSplitsStops = v == "1" }
        if let k = env["NAV_PACE_STOP_HALF_WEIGHT"].flatMap(Double.init) {
            evaluator.configuration.paceStopHalfWeightSeconds = k
        }
        if let v = env["NAV_SIGNAL_SLOWDOWN"].flatMap(Double.init) {
            evaluator.configuration.junctions.trafficSignalSlowdownSeconds = v
        }
        if let v = env["NAV_COVERED_TURN_SHARE"].flatMap(Double.init) {
            evaluator.configuration.junctions.turnDelayShareUnderTraffic = v
        }
        if let k = env["NAV_TURN_SCALE"].flatMap(Double.init) {
            evaluator.configuration.junctions.uncontrolledCrossingSeconds *= k
            evaluator.configuration.junctions.kerbSideTurnSeconds *= k
            evaluator.configuration.junctions.crossingTurnSeconds *= k
            evaluator.configuration.junctions.uTurnSeconds *= k
            evaluator.configuration.junctions.sharpBendSeconds *= k
        }
        var arrivals = 0, waypoints = 0, once = 0, within30 = 0, early = 0, earlyBeside = 0, reroutes = 0, followed = 0
        var errors: [Double] = []
        for (i, trip) in trips.enumerated() where onlyTrips.map({ $0.contains(i) }) ?? true {
            if verbose { print("  trip \(i): origin \(trip.0), waypoints \(trip.1)") }
            // With known traffic only the first leg: the navigator routes later legs with traffic, the simulated
            // drive without, and the difference would be measured as leaving the route.
            let stops = traffic ? Array(trip.1.prefix(1)) : trip.1
            guard
                let r = evaluator.run(
                    origin: trip.0, waypoints: stops, knownTraffic: traffic, seed: UInt64(i + 1),
                    step: { nav, fix in
                        let cpu = threadCPUNanos()
                        let t = clock.now
                        let events = nav.process(fix)
                        let d = clock.now - t
                        stepCPUNanos.append(threadCPUNanos() - cpu)
                        stepNanos.append(Double(d.components.attoseconds) / 1e9 + Double(d.components.seconds) * 1e9)
                        return events
                    })
            else { continue }
            followed += 1
            reroutes += r.reroutes
            for (k, count) in r.arrivalCounts.enumerated() {
                waypoints += 1
                if count >= 1 { arrivals += 1 }
                if count == 1 { once += 1 }
                if let d = r.arrivalDistanceMeters[k], d <= 30 { within30 += 1 }
                if let m = r.arrivalRemainingMeters[k], m > 30 {
                    early += 1
                    // Of them, within 30 m of the waypoint in a straight line: what Benchmarks/sumo counts apart as
                    // "passed earlier" (the other carriageway, a loop round a block).
                    if let d = r.arrivalDistanceMeters[k], d <= 30 { earlyBeside += 1 }
                }
            }
            if let e = r.midTripTimeError { errors.append(e) }
        }
        let absErrors = errors.map { abs($0) }
        print(
            "interval \(Int(interval)) s, traffic \(traffic ? "known" : "none"): trips \(followed), waypoints \(waypoints), "
                + "arrived \(arrivals), exactly once \(once), within 30 m \(within30), early \(early) (within 30 m in a straight line \(earlyBeside)), reroutes \(reroutes), "
                + "mid-trip ETA |error| median \(pct(percentile(absErrors, 0.5))) p90 \(pct(percentile(absErrors, 0.9))), "
                + "signed median \(pct(percentile(errors, 0.5)))")
    }
    // Leaving the route mid-way: fixes from the first truly-off fix to the reroute.
    if ProcessInfo.processInfo.environment["NAV_BENCH_SKIP_LEAVING"] != nil { continue }
    var evaluator = TripEvaluator(graph: graph, index: index)
    evaluator.laneOffsetMeters = laneOffset
    evaluator.snapping = snapping
    evaluator.noise.fixIntervalSeconds = interval
    evaluator.noise.reportedAccuracyMeters = 10
    if let r = ProcessInfo.processInfo.environment["NAV_ARRIVAL_RADIUS"].flatMap(Double.init) {
        evaluator.configuration.arrivalRadiusMeters = r
    }
    if verbose { evaluator.log = { print("  " + $0) } }
    applyOffRouteOverrides(&evaluator.configuration)
    var delays: [Int] = []
    var corridorDelays: [Int] = []
    var missed = 0
    for (i, trip) in trips.enumerated() {
        guard let r = evaluator.run(origin: trip.0, waypoints: trip.1, leaveAfterFraction: 0.4, seed: UInt64(i + 101))
        else { continue }
        if let n = r.fixesToReroute { delays.append(n) } else { missed += 1 }
        if let n = r.fixesToRerouteAfterCorridorExit { corridorDelays.append(n) }
    }
    let within3 = delays.filter { $0 <= 3 }.count
    let corridorWithin3 = corridorDelays.filter { $0 <= 3 }.count
    let histogram = Dictionary(grouping: delays, by: { min($0, 9) }).mapValues(\.count).sorted { $0.key < $1.key }
        .map { "\($0.key == 9 ? "9+" : String($0.key)):\($0.value)" }.joined(separator: " ")
    print(
        "interval \(Int(interval)) s, leaving the route: drives \(delays.count + missed), rerouted within 3 fixes \(within3), "
            + "later \(delays.count - within3), never \(missed); fixes-to-reroute histogram \(histogram); "
            + "counted from leaving the road corridor (truth > 10 m from the route): within 3 fixes \(corridorWithin3) of \(corridorDelays.count)"
    )
}
print(
    String(
        format: "per-fix step: p50 %.1f µs, p99 %.1f µs, max %.1f µs over %d fixes", percentile(stepNanos, 0.5) / 1000,
        percentile(stepNanos, 0.99) / 1000, (stepNanos.max() ?? 0) / 1000, stepNanos.count))
print(
    String(
        format: "per-fix step, thread CPU time: p50 %.1f µs, p99 %.1f µs, max %.1f µs", percentile(stepCPUNanos, 0.5) / 1000,
        percentile(stepCPUNanos, 0.99) / 1000, (stepCPUNanos.max() ?? 0) / 1000))
