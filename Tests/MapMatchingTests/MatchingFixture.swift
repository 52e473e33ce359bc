import Geo
@testable import MapMatching
import RoadGraph
import TestKit
import TraceSimulation

/// A road described on an ASCII map: the node letters it runs through, and its attributes.
struct FixtureRoad {
    var nodes: String
    var name: String
    var oneway = false
    var speedLimitKph: Double? = 50
    var highwayClass: HighwayClass = .residential
    var flags: EdgeFlags = []
    var access: ModeMask = .all
    /// When set, the modes allowed against the way's direction (a one-way street with a contraflow cycle lane:
    /// `oneway` false, `access` the motor modes and bicycles, `backwardAccess` bicycles only).
    var backwardAccess: ModeMask? = nil
}

/// An ASCII-art map built straight into a RoadGraph (no importer needed): each road is one OSM way (ids 1, 2, …
/// in declaration order); two-way roads get twin edges.
struct MatchingFixture {
    let map: ASCIIMap
    let graph: RoadGraph
    let index: RoadGeometryIndex
    /// "AB" → the directed edge from A to B.
    let edges: [String: EdgeID]
    /// Road name → OSM way id.
    let wayIDs: [String: Int64]

    /// `barriers`: nodes only these modes may pass through (a bollard: walking and cycling).
    /// `country`: the graph's country hint (which decides the side traffic keeps to).
    init(_ drawing: String, gridMeters: Double = 10, roads: [FixtureRoad],
         barriers: [Character: ModeMask] = [:], country: String? = nil) throws {
        map = ASCIIMap(drawing, gridMeters: gridMeters)
        var builder = RoadGraphBuilder()
        builder.metadata.countryHint = country
        var nodes: [Character: NodeID] = [:]
        for name in map.nodeNames { nodes[name] = builder.addNode(map[name], passableBy: barriers[name] ?? .all) }
        var builderEdges: [String: EdgeID] = [:]
        var ways: [String: Int64] = [:]
        for (i, road) in roads.enumerated() {
            let way = Int64(i + 1)
            ways[road.name] = way
            let letters = Array(road.nodes)
            for (a, b) in zip(letters, letters.dropFirst()) {
                let attributes = EdgeAttributes(
                    access: road.access, flags: road.flags.union(road.oneway ? .oneway : []),
                    freeFlowSpeedKph: road.speedLimitKph ?? 50, speedLimitKph: road.speedLimitKph, osmWayID: way,
                    name: road.name, highwayClass: road.highwayClass)
                builderEdges["\(a)\(b)"] = builder.addEdge(from: nodes[a]!, to: nodes[b]!, attributes: attributes)
                if !road.oneway {
                    var backward = attributes
                    if let access = road.backwardAccess { backward.access = access }
                    builderEdges["\(b)\(a)"] = builder.addEdge(from: nodes[b]!, to: nodes[a]!, attributes: backward)
                }
            }
        }
        let (graph, ids) = try builder.buildWithEdgeMap()
        self.graph = graph
        index = RoadGeometryIndex(graph: graph)
        edges = builderEdges.mapValues { ids[Int($0)] }
        wayIDs = ways
    }

    subscript(_ name: Character) -> Coordinate { map[name] }

    /// Directed edges along a letter path, e.g. "ABCB".
    func path(_ letters: String) -> [EdgeID] {
        let l = Array(letters)
        return zip(l, l.dropFirst()).map { edges["\($0)\($1)"]! }
    }

    func way(_ name: String) -> Int64 { wayIDs[name]! }

    /// A point `fraction` of the way from a to b, moved `east`/`north` metres.
    func at(_ a: Character, _ b: Character, _ fraction: Double, east: Double = 0, north: Double = 0) -> Coordinate {
        let p = map.point(a, b, fraction: fraction)
        return LocalProjection(origin: p).unproject(x: east, y: north)
    }

    /// A simulated drive along a letter path.
    /// `margin` metres are left out at both ends (a start exactly on a junction is ambiguous by nature).
    func drive(_ letters: String, margin: Double = 0,
               _ configure: (inout DriveSimulationConfiguration) -> Void = { _ in }) -> SimulatedDrive {
        var c = DriveSimulationConfiguration()
        configure(&c)
        let edges = path(letters)
        return DriveSimulator(index: index, configuration: c)
            .drive(edges: edges, startOffset: margin, endOffset: index.length(of: edges.last!) - margin)
    }
}

/// A fix at `coordinate`, `t` seconds into the trace.
func fix(_ coordinate: Coordinate, t: Double, speed: Double? = nil, course: Double? = nil) -> LocationFix {
    LocationFix(coordinate: coordinate, timestamp: 1_700_000_000 + t, speedMetersPerSecond: speed, courseDegrees: course)
}

func matchAll(_ fixture: MatchingFixture, _ fixes: [LocationFix], mode: TravelMode = .driving,
              configuration: MapMatchingConfiguration = MapMatchingConfiguration(),
              routeEdges: [EdgeID]? = nil) -> [SnappedLocation] {
    let matcher = MapMatcher(index: fixture.index, mode: mode, configuration: configuration)
    if let routeEdges { matcher.setRoute(edges: routeEdges) }
    var out: [SnappedLocation] = []
    for f in fixes { out.append(contentsOf: matcher.update(f).finalized) }
    out.append(contentsOf: matcher.finish())
    return out
}

/// Share of outputs whose way id equals the truth's.
func wayAccuracy(_ out: [SnappedLocation], _ drive: SimulatedDrive) -> Double {
    guard !out.isEmpty else { return 0 }
    var good = 0
    for (o, t) in zip(out, drive.truth) where o.osmWayID == t.osmWayID { good += 1 }
    return Double(good) / Double(out.count)
}

func percentile(_ values: [Double], _ q: Double) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    return s[min(s.count - 1, max(0, Int((q * Double(s.count - 1)).rounded())))]
}
