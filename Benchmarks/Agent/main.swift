// bench-agent: the agent measured from the outside, through a real broker (scripts/bench-agent runs it).
//
//   bench-agent latency --broker URL --map FILE --agent-pid PID [--fixes 600] [--rate 20]
//       The broker's floor (publish → subscribe of a plain message, same clients) and then the agent's latency:
//       a raw fix published on fleet/bench-1/location/raw → its location/snapped and nav/eta received; then both
//       again, interleaved (a floor message half an interval after each fix), so that they share the same seconds.
//   bench-agent fleet --broker URL --map FILE --agent-pid PID [--broker-pid PID] [--vehicles 10000] [--seconds 30]
//                     [--trips 0] [--batched-publishes 1]
//       Every vehicle sends one fix per second to an agent in fleet mode (the first `trips` with an assignment);
//       reports the fixes it processed per second, its CPU use, the broker's and the benchmark's own CPU beside it,
//       its memory per vehicle and the lag of one watched vehicle.
import Agent
import Foundation
import Geo
import MQTT
import Navigation
import RoadGraph
import Synchronization

struct Options {
    var values: [String: String] = [:]
    init(_ arguments: ArraySlice<String>) {
        var i = arguments.startIndex
        while i < arguments.endIndex {
            let key = arguments[i]
            if key.hasPrefix("--"), i + 1 < arguments.endIndex {
                values[String(key.dropFirst(2))] = arguments[i + 1]
                i += 2
            } else {
                i += 1
            }
        }
    }
    func string(_ k: String, _ d: String) -> String { values[k] ?? d }
    func int(_ k: String, _ d: Int) -> Int { values[k].flatMap(Int.init) ?? d }
}

func nowNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Resident set size and CPU seconds of a process, from /proc.
func processStats(_ pid: Int32) -> (rssMB: Double, cpuSeconds: Double) {
    var rss = Double.nan, cpu = Double.nan
    if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
       let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
       let kb = Double(line.split(separator: " ").dropFirst().first ?? "") {
        rss = kb / 1024
    }
    if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
       let close = stat.lastIndex(of: ")") {
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15 (1-based in proc(5)).
        if fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) {
            cpu = (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }
    return (rss, cpu)
}

/// This process's own CPU seconds (user + system).
func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// CPU seconds per thread of a process (by thread name), from /proc/PID/task.
func threadCPUSeconds(_ pid: Int32) -> [String: Double] {
    var result: [String: Double] = [:]
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    for task in tasks {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
        let name = String(stat[stat.index(after: open)..<close])
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) {
            result[name, default: 0] += (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }
    return result
}

/// Time a process's threads spent runnable but waiting for a CPU, and how many times they were scheduled in, from
/// /proc/PID/task/*/schedstat (nanoseconds on the CPU, nanoseconds waiting on a run queue, time slices).
func runQueueWait(_ pid: Int32) -> (waitSeconds: Double, slices: Int) {
    guard pid > 0 else { return (.nan, 0) }
    var wait = 0.0, slices = 0
    for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8) else { continue }
        let fields = text.split(separator: " ")
        guard fields.count >= 3, let w = Double(fields[1]), let n = Int(fields[2].trimmingCharacters(in: .whitespacesAndNewlines))
        else { continue }
        wait += w / 1e9
        slices += n
    }
    return (wait, slices)
}

/// What the subscriber saw: receive time per key.
final class Arrivals: Sendable {
    let received = Mutex<[String: UInt64]>([:])
    /// `agent/metrics` payloads with their receive time.
    let metrics = Mutex<[(receivedAt: UInt64, text: String)]>([])
    func record(_ key: String, at time: UInt64) {
        received.withLock { if $0[key] == nil { $0[key] = time } }
    }
}

func client(_ broker: BrokerURL, _ id: String, onMessage: @escaping @Sendable (MQTTMessage) -> Void = { _ in }) throws
    -> MQTTClient
{
    let directory = NSTemporaryDirectory() + "bench-agent-\(id)-\(getpid())"
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var configuration = MQTTConfiguration(broker: broker, clientID: "\(id)-\(getpid())")
    configuration.protocolVersion = .v5
    // A deep outbox: the benchmark's publisher must not be what limits the offered load.
    let outbox = try Outbox(directory: directory,
                            configuration: OutboxConfiguration(maxMessages: 2_000_000, maxBytes: 1 << 30, compactionThresholdBytes: 64 << 20))
    return try MQTTClient(configuration: configuration, outbox: outbox, onMessage: onMessage)
}

/// The `"timestamp":"…"` value of a payload, without a JSON parser.
func timestampField(_ payload: [UInt8]) -> String? {
    let key = Array(#""timestamp":""#.utf8)
    guard payload.count > key.count else { return nil }
    var i = 0
    while i + key.count + 24 <= payload.count {
        if payload[i] == key[0], Array(payload[i..<(i + key.count)]) == key {
            return String(decoding: payload[(i + key.count)..<(i + key.count + 24)], as: UTF8.self)
        }
        i += 1
    }
    return nil
}

func stop(_ clients: [MQTTClient]) {
    let done = DispatchSemaphore(value: 0)
    Task {
        for c in clients { _ = await c.stop(timeoutSeconds: 2) }
        done.signal()
    }
    done.wait()
}

// MARK: - Latency

func latency(_ o: Options) throws {
    let broker = try BrokerURL(parsing: o.string("broker", "mqtt://127.0.0.1:1883"))
    let graph = try RoadGraph(contentsOf: URL(fileURLWithPath: o.string("map", "")))
    let agentPID = Int32(o.int("agent-pid", 0))
    let brokerPID = Int32(o.int("broker-pid", 0))
    let fixCount = o.int("fixes", 600)
    let rate = Double(o.int("rate", 20))
    let vehicle = "bench-1"

    let arrivals = Arrivals()
    let sub = try client(broker, "bench-sub") { message in
        let t = nowNanoseconds()
        if message.topic == "bench/floor" {
            arrivals.record("floor:" + String(decoding: message.payload, as: UTF8.self), at: t)
        } else if message.topic.hasSuffix("agent/metrics") {
            arrivals.metrics.withLock { $0.append((t, String(decoding: message.payload, as: UTF8.self))) }
        } else if let ts = timestampField(message.payload) {
            let kind = message.topic.hasSuffix("location/snapped") ? "snapped" : "eta"
            arrivals.record("\(kind):\(ts)", at: t)
        }
    }
    for filter in ["bench/floor", "fleet/\(vehicle)/location/snapped", "fleet/\(vehicle)/nav/eta",
                   "fleet/\(vehicle)/agent/metrics"] {
        // SUBSCRIBER_QOS=0: a subscriber that never answers the broker (as `mosquitto_sub` does by default).
        try sub.subscribe(filter, qos: ProcessInfo.processInfo.environment["SUBSCRIBER_QOS"] == "0" ? .atMostOnce : .atLeastOnce)
    }
    let pub = try client(broker, "bench-pub")
    try sub.start()
    try pub.start()
    Thread.sleep(forTimeInterval: 1)
    let interval = 1 / rate

    // The floor: the same publisher and subscriber, a plain message through the broker.
    var floorSent: [String: UInt64] = [:]
    for i in 0..<fixCount {
        let key = String(i)
        floorSent[key] = nowNanoseconds()
        try pub.publish(topic: "bench/floor", payload: Array(key.utf8), retain: false, kind: .event)
        Thread.sleep(forTimeInterval: interval)
    }
    Thread.sleep(forTimeInterval: 0.5)

    // The agent: a drive along a route, fixes stamped with the wall clock.
    let start = Date()
    let navigator = NavigatorCore(graph: graph)
    let origin = Coordinate(latitude: 60.1665, longitude: 24.9446)
    _ = navigator.process(RawFix(coordinate: origin, timestamp: start))
    _ = navigator.setDestinations([NavigationWaypoint(coordinate: Coordinate(latitude: 60.1760, longitude: 24.9500))], at: start)
    let simulator = LocationSimulator(graph: graph, configuration: LocationSimulatorConfiguration(fixIntervalSeconds: interval))
    simulator.simulateLocationsAlongExistingRoute(navigator, at: start)
    try pub.publish(topic: "fleet/\(vehicle)/location/raw",
                    payload: Array(OutputPayloads.rawFix(RawFix(coordinate: origin, timestamp: Date())).utf8), retain: false,
                    kind: .event)
    try pub.publish(topic: "fleet/\(vehicle)/nav/destinations", payload: Array(#"""
        {"assignmentId":"bench","waypoints":[{"lat":60.1760,"lon":24.9500,"title":"far"}]}
        """#.utf8), retain: true, kind: .event)
    Thread.sleep(forTimeInterval: 1)

    var sent: [String: UInt64] = [:]
    var clock = Date()
    var published = 0
    let agentWaitBefore = runQueueWait(agentPID), brokerWaitBefore = runQueueWait(brokerPID)
    let selfWaitBefore = runQueueWait(getpid())
    var last = RawFix(coordinate: origin, timestamp: clock, horizontalAccuracyMeters: 5)
    /// Waits for the next fix's time, publishes it (position from the simulator, time from the wall clock: what a
    /// live GPS reports) and records when it was sent in `sentTimes`; returns its time.
    func publishNextFix(into sentTimes: inout [String: UInt64]) throws -> Date {
        Thread.sleep(forTimeInterval: max(0, clock.addingTimeInterval(interval).timeIntervalSinceNow))
        let now = Date()
        if let simulated = simulator.advance(by: now.timeIntervalSince(clock)).last { last = simulated }
        clock = now
        let fix = RawFix(coordinate: last.coordinate, timestamp: now, horizontalAccuracyMeters: 5,
                         courseDegrees: last.courseDegrees, speedMetersPerSecond: last.speedMetersPerSecond)
        sentTimes[ISO8601Timestamp.string(from: now)] = nowNanoseconds()
        try pub.publish(topic: "fleet/\(vehicle)/location/raw", payload: Array(OutputPayloads.rawFix(fix).utf8), retain: false,
                        kind: .event)
        return now
    }
    while published < fixCount {
        _ = try publishNextFix(into: &sent)
        published += 1
    }
    let agentWait = runQueueWait(agentPID), brokerWait = runQueueWait(brokerPID), selfWait = runQueueWait(getpid())
    Thread.sleep(forTimeInterval: 1)
    let stats = processStats(agentPID)

    // Interleaved: the drive goes on, and half an interval after each fix a floor message goes through the same
    // clients. Floor and agent then share the same seconds of the machine; measured one after the other, 30 s apart,
    // the floor's p50 moved by up to 2x between runs on a VM (0.17-0.34 ms), and the ratio with it.
    var interleavedSent: [String: UInt64] = [:]
    var interleavedFloorSent: [String: UInt64] = [:]
    var interleaved = 0
    while interleaved < fixCount {
        let now = try publishNextFix(into: &interleavedSent)
        Thread.sleep(forTimeInterval: max(0, now.addingTimeInterval(interval / 2).timeIntervalSinceNow))
        let key = "i\(interleaved)"
        interleavedFloorSent[key] = nowNanoseconds()
        try pub.publish(topic: "bench/floor", payload: Array(key.utf8), retain: false, kind: .event)
        interleaved += 1
    }
    Thread.sleep(forTimeInterval: 1)
    stop([pub, sub])

    let received = arrivals.received.withLock { $0 }
    func latencies(_ prefix: String, _ sentTimes: [String: UInt64]) -> [Double] {
        sentTimes.compactMap { key, t0 in received[prefix + key].map { Double($0 - t0) / 1e6 } }
    }
    let floor = latencies("floor:", floorSent)
    let snapped = latencies("snapped:", sent)
    let eta = latencies("eta:", sent)
    func line(_ name: String, _ values: [Double], of total: Int) -> String {
        String(format: "%-22@ p50 %6.3f ms  p99 %6.3f ms  max %7.3f ms  (%d of %d received)", name as NSString,
               percentile(values, 0.5), percentile(values, 0.99), values.max() ?? .nan, values.count, total)
    }
    print("fixes at \(Int(rate)) Hz, \(fixCount) each; one vehicle on \(o.string("map", ""))")
    print(line("broker floor", floor, of: fixCount))
    print(line("fix → location/snapped", snapped, of: fixCount))
    print(line("fix → nav/eta", eta, of: fixCount))
    print(String(format: "p50 snapped / floor: %.2fx", percentile(snapped, 0.5) / percentile(floor, 0.5)))
    let floorInterleaved = latencies("floor:", interleavedFloorSent)
    let snappedInterleaved = latencies("snapped:", interleavedSent)
    let etaInterleaved = latencies("eta:", interleavedSent)
    print("interleaved (a floor message half an interval after each fix, \(fixCount) of each):")
    print(line("  broker floor", floorInterleaved, of: fixCount))
    print(line("  fix → location/snapped", snappedInterleaved, of: fixCount))
    print(line("  fix → nav/eta", etaInterleaved, of: fixCount))
    print(String(format: "  p50 snapped / floor: %.2fx, nav/eta / floor: %.2fx",
                 percentile(snappedInterleaved, 0.5) / percentile(floorInterleaved, 0.5),
                 percentile(etaInterleaved, 0.5) / percentile(floorInterleaved, 0.5)))
    print(String(format: "agent resident memory: %.1f MB, CPU %.2f s", stats.rssMB, stats.cpuSeconds))
    // The scheduler's share of the tail: a fix wakes the broker twice, the agent and this benchmark's clients once
    // each; on a loaded machine each wake-up may wait for a CPU (/proc/PID/task/*/schedstat, over the agent part).
    func waiting(_ name: String, _ before: (waitSeconds: Double, slices: Int), _ after: (waitSeconds: Double, slices: Int))
        -> String
    {
        let slices = after.slices - before.slices
        let wait = after.waitSeconds - before.waitSeconds
        return String(format: "%@ %.0f ms in all, %.3f ms per time slice (%d slices)", name as NSString, wait * 1000,
                      slices > 0 ? wait / Double(slices) * 1000 : Double.nan, slices)
    }
    print("waiting for a CPU while runnable, during the \(fixCount) fixes: "
        + [waiting("agent", agentWaitBefore, agentWait), waiting("broker", brokerWaitBefore, brokerWait),
           waiting("benchmark", selfWaitBefore, selfWait)].joined(separator: "; "))
    print("load average: " + ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")
        .split(separator: " ").prefix(3).joined(separator: " "))
    // The agent's own part (network thread → outputs queued), from its last agent/metrics (last 4096 fixes).
    if let text = arrivals.metrics.withLock({ $0.last?.text }),
       let m = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
       let latency = m["processingLatencyMs"] as? [String: Any] {
        let inline = (m["inbox"] as? [String: Any])?["fixesInline"] as? Int
        print("agent's own latency (its agent/metrics): p50 \(latency["p50"] ?? "-") ms, p99 \(latency["p99"] ?? "-") ms "
            + "over \(latency["samples"] ?? "-") fixes; \(m["fixes"] ?? "-") fixes, \(inline.map(String.init) ?? "-") handled inline")
    }
}

// MARK: - Fleet

func fleet(_ o: Options) throws {
    let broker = try BrokerURL(parsing: o.string("broker", "mqtt://127.0.0.1:1883"))
    let graph = try RoadGraph(contentsOf: URL(fileURLWithPath: o.string("map", "")))
    let agentPID = Int32(o.int("agent-pid", 0))
    let vehicles = o.int("vehicles", 10_000)
    let seconds = o.int("seconds", 30)

    let tripCount = min(vehicles, max(0, o.int("trips", 0)))
    let brokerPID = Int32(o.int("broker-pid", 0))
    let batchedPublishes = o.int("batched-publishes", 1) != 0

    // Where vehicle k is at each second of the load (index 0 is the warm-up fix), worked out before anything is
    // published so the load generator only encodes and sends. Vehicles without a trip crawl along a drivable edge
    // at 5 m/s (wrapping at its end); positions are on roads, so every fix is matched. The first `trips` vehicles
    // get an assignment (`nav/destinations`) during the warm-up and drive its route at 10 m/s: their navigator also
    // tracks route progress, ETA and off-route checks, as a dispatched vehicle's does.
    var drivable: [EdgeID] = []
    for e in 0..<graph.edgeCount where graph.access(of: EdgeID(e)).contains(.driving) { drivable.append(EdgeID(e)) }
    let steps = seconds + 1
    func crawl(_ path: [Coordinate], metersPerSecond: Double) -> [Coordinate] {
        let length = PolylineGeometry.lengthMeters(path)
        return (0..<steps).map { step in
            let along = Double(step) * metersPerSecond
            let offset = length > 0 ? along.truncatingRemainder(dividingBy: length) : 0
            return PolylineGeometry.point(along: path, offsetMeters: offset) ?? path[0]
        }
    }
    var positions: [[Coordinate]] = (0..<vehicles).map { k in
        crawl(graph.geometry(of: drivable[(k * 7919) % drivable.count]), metersPerSecond: 5)
    }
    // Which vehicles drive a trip (those whose start has a route of 2 km or more: a few start on an island or a
    // oneway stub, and crawl instead), its destination and length.
    var tripDestination: [Coordinate?] = Array(repeating: nil, count: vehicles)
    var tripMeters: [Double] = []
    let routingStarted = Date()
    var candidate = 0
    while tripMeters.count < tripCount && candidate < vehicles {
        let k = candidate
        candidate += 1
        let origin = positions[k][0]
        for attempt in 1...8 {
            let destination = graph.geometry(of: drivable[(k * 104_729 + attempt * 7_727) % drivable.count])[0]
            let navigator = NavigatorCore(graph: graph)
            let start = Date()
            _ = navigator.process(RawFix(coordinate: origin, timestamp: start, horizontalAccuracyMeters: 5))
            let result = navigator.setDestinations([NavigationWaypoint(coordinate: destination)], at: start)
            guard result.status == .ok, let leg = navigator.currentRouteLeg, leg.distanceMeters > 2_000 else { continue }
            positions[k] = crawl(leg.geometry, metersPerSecond: 10)
            tripDestination[k] = destination
            tripMeters.append(leg.distanceMeters)
            break
        }
    }
    let trips = tripMeters.count
    if tripCount > 0 {
        print(String(format: "trips: %d of %d vehicles have an assignment (routes %.1f–%.1f km, planned in %.1f s by the "
                     + "benchmark; %d vehicles tried)", trips, vehicles, (tripMeters.min() ?? 0) / 1000,
                     (tripMeters.max() ?? 0) / 1000, Date().timeIntervalSince(routingStarted), candidate))
    }

    let arrivals = Arrivals()
    let sub = try client(broker, "bench-fleet-sub") { message in
        let t = nowNanoseconds()
        if message.topic.hasSuffix("agent/metrics") {
            let text = String(decoding: message.payload, as: UTF8.self)
            arrivals.metrics.withLock { $0.append((t, text)) }
        } else if let ts = timestampField(message.payload) {
            arrivals.record(ts, at: t)
        }
    }
    try sub.subscribe("fleet/agents/+/agent/metrics", qos: .atLeastOnce)
    try sub.subscribe("fleet/v0/location/snapped", qos: .atLeastOnce)
    let pub = try client(broker, "bench-fleet-pub")
    try sub.start()
    try pub.start()
    Thread.sleep(forTimeInterval: 1)
    let empty = processStats(agentPID)

    // Warm-up: one fix per vehicle, then wait until the agent has created every vehicle (its session and trip
    // journal) and emptied its inbox. Creating 10,000 vehicles costs seconds of file-system work that a fleet pays
    // once, when it starts; the measured load below is the steady state that follows.
    let creationStarted = Date()
    for k in 0..<vehicles {
        let fix = RawFix(coordinate: positions[k][0], timestamp: Date().addingTimeInterval(-2), horizontalAccuracyMeters: 5)
        _ = try? pub.publish(topic: "fleet/v\(k)/location/raw", payload: Array(OutputPayloads.rawFix(fix).utf8), retain: false,
                             kind: .event, wakeNetworkThread: k % 100 == 99)
        if let d = tripDestination[k] {
            let assignment = #"{"assignmentId":"bench-\#(k)","waypoints":[{"lat":\#(d.latitude),"lon":\#(d.longitude),"title":"far"}]}"#
            _ = try? pub.publish(topic: "fleet/v\(k)/nav/destinations", payload: Array(assignment.utf8), retain: true,
                                 kind: .event, wakeNetworkThread: false)
        }
    }
    pub.wakeNetworkThread()
    var atLoadStart: [String: Any]?
    while Date().timeIntervalSince(creationStarted) < 180 {
        Thread.sleep(forTimeInterval: 0.5)
        guard let text = arrivals.metrics.withLock({ $0.last?.text }),
              let m = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let created = m["vehiclesCreated"] as? Int, let inbox = m["inbox"] as? [String: Any],
              let depth = inbox["depth"] as? Int else { continue }
        if created >= vehicles && depth == 0 {
            atLoadStart = m
            break
        }
    }
    let creationSeconds = Date().timeIntervalSince(creationStarted)
    let fixesBeforeLoad = atLoadStart?["fixes"] as? Int ?? 0
    let inboxBeforeLoad = atLoadStart?["inbox"] as? [String: Any]
    let droppedBeforeLoad = inboxBeforeLoad?["fixesDroppedBacklog"] as? Int ?? 0
    let coalescedBeforeLoad = inboxBeforeLoad?["fixesCoalescedRate"] as? Int ?? 0
    let inlineBeforeLoad = inboxBeforeLoad?["fixesInline"] as? Int ?? 0
    let baseline = processStats(agentPID)
    let threadsBefore = threadCPUSeconds(agentPID)
    if atLoadStart == nil {
        print(String(format: "warm-up: the agent had not created all %d vehicles after %.0f s; measuring anyway",
                     vehicles, creationSeconds))
    } else {
        print(String(format: "warm-up: %d vehicles created (one fix each) in %.1f s (agent CPU %.1f s, %.0f µs per vehicle)",
                     vehicles, creationSeconds, baseline.cpuSeconds - empty.cpuSeconds,
                     (baseline.cpuSeconds - empty.cpuSeconds) / Double(vehicles) * 1e6))
    }

    var sent: [String: UInt64] = [:]
    var publisherDropped = 0
    var published = 0
    let slices = 100  // publish each second's fixes in 100 batches
    let started = Date()
    var cpuAtWarm = baseline.cpuSeconds
    var brokerAtWarm = processStats(brokerPID).cpuSeconds
    var selfAtWarm = ownCPUSeconds()
    var warmAt = started
    var batch: [OutboxEntry] = []
    batch.reserveCapacity(vehicles / slices + 1)
    for second in 0..<seconds {
        if second == 5 {
            cpuAtWarm = processStats(agentPID).cpuSeconds
            brokerAtWarm = processStats(brokerPID).cpuSeconds
            selfAtWarm = ownCPUSeconds()
            warmAt = Date()
        }
        for slice in 0..<slices {
            let sliceStart = started.addingTimeInterval(Double(second) + Double(slice) / Double(slices))
            Thread.sleep(forTimeInterval: max(0, sliceStart.timeIntervalSinceNow))
            let now = Date()
            var k = slice
            batch.removeAll(keepingCapacity: true)
            while k < vehicles {
                let fix = RawFix(coordinate: positions[k][second + 1], timestamp: now, horizontalAccuracyMeters: 5,
                                 speedMetersPerSecond: tripDestination[k] == nil ? 5 : 10)
                if k == 0 { sent[ISO8601Timestamp.string(from: now)] = nowNanoseconds() }
                batch.append(OutboxEntry(topic: "fleet/v\(k)/location/raw", payload: Array(OutputPayloads.rawFix(fix).utf8),
                                         retain: false, kind: .event))
                k += slices
            }
            // The slice's fixes go to the publisher's outbox as one journal write, with one wake-up of its network
            // thread: the benchmark's clients share the two cores with the agent and must stay cheap.
            if batchedPublishes {
                let result = pub.publish(batch)
                published += result.stored
                publisherDropped += batch.count - result.stored
            } else {
                // Session 4's generator, for comparison: one journal write per fix.
                for entry in batch {
                    do {
                        try pub.publish(topic: entry.topic, payload: entry.payload, retain: false, kind: .event,
                                        wakeNetworkThread: false)
                        published += 1
                    } catch {
                        publisherDropped += 1
                    }
                }
                pub.wakeNetworkThread()
            }
        }
    }
    let end = Date()
    let endStats = processStats(agentPID)
    let brokerAtEnd = processStats(brokerPID).cpuSeconds
    let selfAtEnd = ownCPUSeconds()
    let endNanoseconds = nowNanoseconds()
    Thread.sleep(forTimeInterval: 11)
    let settled = processStats(agentPID)
    let threadsAfter = threadCPUSeconds(agentPID)
    stop([pub, sub])

    let received = arrivals.received.withLock { $0 }
    let lags = sent.compactMap { key, t0 in received[key].map { Double($0 - t0) / 1e6 } }
    let wall = end.timeIntervalSince(warmAt)
    let cpu = endStats.cpuSeconds - cpuAtWarm
    print("fleet: \(vehicles) vehicles (\(trips) with a trip) × 1 fix/s for \(seconds) s (offered \(vehicles) fixes/s; \(published) published, "
        + "\(publisherDropped) not published: the benchmark's own outbox was full)")

    let startNanoseconds = nowNanoseconds() - UInt64(Date().timeIntervalSince(started) * 1e9)
    struct Sample {
        var receivedAt: UInt64
        var fixes: Int, fixesInline: Int, latencyP50: Double, latencyP99: Double, inboxDepth: Int
        var dropped: Int, coalesced: Int
    }
    let samples = arrivals.metrics.withLock { $0 }.compactMap { receivedAt, text -> Sample? in
        guard receivedAt >= startNanoseconds else { return nil }
        guard let m = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let fixes = m["fixes"] as? Int, let inbox = m["inbox"] as? [String: Any],
              let latency = m["processingLatencyMs"] as? [String: Any] else { return nil }
        return Sample(receivedAt: receivedAt, fixes: fixes - fixesBeforeLoad, fixesInline: (inbox["fixesInline"] as? Int ?? 0) - inlineBeforeLoad,
                      latencyP50: latency["p50"] as? Double ?? .nan, latencyP99: latency["p99"] as? Double ?? .nan,
                      inboxDepth: inbox["depth"] as? Int ?? -1,
                      dropped: (inbox["fixesDroppedBacklog"] as? Int ?? 0) - droppedBeforeLoad,
                      coalesced: (inbox["fixesCoalescedRate"] as? Int ?? 0) - coalescedBeforeLoad)
    }
    print("agent/metrics during the run (t: seconds since the load started; latency: network thread → outputs queued, "
        + "last 4096 fixes):")
    var previous: Sample?
    for sample in samples {
        let t = Double(Int64(sample.receivedAt) - Int64(startNanoseconds)) / 1e9
        var rate = Double.nan
        if let p = previous, sample.receivedAt > p.receivedAt {
            rate = Double(sample.fixes - p.fixes) / (Double(sample.receivedAt - p.receivedAt) / 1e9)
        }
        print(String(format: "  t %5.1f s  fixes %7d (%6.0f/s, %4.1f %% inline)  latency p50 %8.3f ms p99 %8.3f ms  inbox %6d",
                     t, sample.fixes, rate, sample.fixes > 0 ? Double(sample.fixesInline) / Double(sample.fixes) * 100 : 0,
                     sample.latencyP50, sample.latencyP99, sample.inboxDepth))
        previous = sample
    }
    print(String(format: "agent CPU after warm-up (from 5 s to the end of the load): %.2f cores (%.1f s CPU over %.1f s)",
                 cpu / wall, cpu, wall))
    // What runs beside the agent on the same cores, over the same interval.
    print(String(format: "beside it: broker %.2f cores, this benchmark (load generator + subscriber) %.2f cores; load average %@",
                 brokerPID > 0 ? (brokerAtEnd - brokerAtWarm) / wall : Double.nan, (selfAtEnd - selfAtWarm) / wall,
                 ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
                    .joined(separator: " ") as NSString))
    let last = samples.last
    if let last, last.fixes > 0 {
        // The load and the drain after it (not the creation of the vehicles): CPU per fix the agent handled.
        let fixes = Double(last.fixes)
        let total = settled.cpuSeconds - baseline.cpuSeconds
        let split = threadsAfter.map { name, seconds in (name, seconds - (threadsBefore[name] ?? 0)) }
            .filter { $0.1 > 0.05 }.sorted { $0.1 > $1.1 }
            .map { "\($0.0) " + String(format: "%.0f µs", $0.1 / fixes * 1e6) }.joined(separator: ", ")
        print(String(format: "agent CPU per fix handled: %.0f µs (%.1f s CPU, %.0f fixes; ", total / fixes * 1e6, total, fixes)
            + "by thread: \(split))")
    }
    print(String(format: "watched vehicle v0: fix → snapped p50 %.2f ms p99 %.2f ms (%d of %d)", percentile(lags, 0.5),
                 percentile(lags, 0.99), lags.count, sent.count))
    print(String(format: "agent memory: %.1f MB before, %.1f MB with %d vehicles → %.1f KiB per vehicle",
                 empty.rssMB, settled.rssMB, vehicles, (settled.rssMB - empty.rssMB) * 1024 / Double(vehicles)))

    // The judgement. Sustained means: every fix published reached the agent's navigator (none dropped or coalesced
    // in its inbox, none left waiting), the agent kept pace during the load (its inbox held less than a second of
    // fixes at every metrics sample after the warm-up) and its own latency did not grow (p99 under 1 s at every
    // such sample, and the watched vehicle got every snapped location).
    let warmNanoseconds = startNanoseconds + 5_000_000_000
    let loaded = samples.filter { $0.receivedAt >= warmNanoseconds && $0.receivedAt <= endNanoseconds }
    var failures: [String] = []
    if publisherDropped > 0 { failures.append("\(publisherDropped) fixes not published by the benchmark") }
    if let last {
        if last.fixes < published { failures.append("the agent handled \(last.fixes) of \(published) fixes") }
        if last.dropped > 0 || last.coalesced > 0 {
            failures.append("inbox dropped \(last.dropped) and coalesced \(last.coalesced) fixes")
        }
    } else {
        failures.append("no agent/metrics received")
    }
    if loaded.isEmpty { failures.append("no agent/metrics during the load after the warm-up") }
    if let deep = loaded.map(\.inboxDepth).max(), deep >= vehicles {
        failures.append("inbox held \(deep) fixes (a second or more) during the load")
    }
    if let slow = loaded.map(\.latencyP99).max(), !(slow < 1000) {
        failures.append(String(format: "in-agent latency p99 reached %.0f ms during the load", slow))
    }
    if lags.count < sent.count { failures.append("watched vehicle got \(lags.count) of \(sent.count) snapped locations") }
    if failures.isEmpty {
        print(String(format: "SUSTAINED: %d vehicles × 1 fix/s, using %.2f cores of agent CPU", vehicles, cpu / wall))
    } else {
        print("NOT SUSTAINED: " + failures.joined(separator: "; "))
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: bench-agent latency|fleet --broker URL --map FILE --agent-pid PID …")
    exit(2)
}
let options = Options(arguments.dropFirst(2))
switch arguments[1] {
case "latency": try latency(options)
case "fleet": try fleet(options)
default:
    print("unknown mode \(arguments[1])")
    exit(2)
}
