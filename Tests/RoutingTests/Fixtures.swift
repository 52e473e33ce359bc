import Geo
import RoadGraph
import TestKit

@testable import Routing

/// A small hand-drawn road map: named nodes placed in metres east/north of a Helsinki origin, roads as chains of
/// node names. Each road is one OSM way; two-way roads get twin edges.
struct FixtureMap {
    static let origin = Coordinate(latitude: 60.17, longitude: 24.94)
    let projection = LocalProjection(origin: FixtureMap.origin)
    var builder = RoadGraphBuilder()
    var nodes: [String: NodeID] = [:]
    /// "a>b" → builder edge id.
    var builderEdges: [String: EdgeID] = [:]
    private var nextWay: Int64 = 100

    mutating func node(_ name: String, x: Double, y: Double, passableBy: ModeMask = .all) {
        nodes[name] = builder.addNode(projection.unproject(x: x, y: y), passableBy: passableBy)
    }

    func coordinate(x: Double, y: Double) -> Coordinate { projection.unproject(x: x, y: y) }

    /// Adds a road through the named nodes; returns its OSM way id.
    @discardableResult
    mutating func road(
        _ names: [String], oneway: Bool = false, access: ModeMask = .all, flags: EdgeFlags = [],
        speedKph: Double = 50, backwardAccess: ModeMask? = nil
    ) -> Int64 {
        nextWay += 1
        for (a, b) in zip(names, names.dropFirst()) {
            let attributes = EdgeAttributes(access: access, flags: flags, freeFlowSpeedKph: speedKph, osmWayID: nextWay,
                                            name: "way \(nextWay)")
            builderEdges["\(a)>\(b)"] = builder.addEdge(from: nodes[a]!, to: nodes[b]!, attributes: attributes)
            if !oneway {
                var back = attributes
                back.access = backwardAccess ?? access
                builderEdges["\(b)>\(a)"] = builder.addEdge(from: nodes[b]!, to: nodes[a]!, attributes: back)
            }
        }
        return nextWay
    }

    /// A turn restriction from edge `from` ("a>b") into edge `to` ("b>c").
    mutating func restrict(_ from: String, _ to: String, _ kind: TurnRestriction.Kind, modes: ModeMask = .motorized) {
        let via = nodes[String(from.split(separator: ">")[1])]!
        builder.addTurnRestriction(
            TurnRestriction(from: builderEdges[from]!, via: via, to: builderEdges[to]!, kind: kind, modes: modes))
    }

    func build() throws -> BuiltFixture {
        let (graph, ids) = try builder.buildWithEdgeMap()
        var edges: [String: EdgeID] = [:]
        for (name, id) in builderEdges { edges[name] = ids[Int(id)] }
        return BuiltFixture(graph: graph, nodes: nodes, edges: edges, projection: projection)
    }
}

struct BuiltFixture {
    let graph: RoadGraph
    let nodes: [String: NodeID]
    let edges: [String: EdgeID]
    let projection: LocalProjection

    func at(_ x: Double, _ y: Double) -> Coordinate { projection.unproject(x: x, y: y) }
    func edge(_ name: String) -> EdgeID { edges[name]! }
    /// Edge names ("a>b") of a leg, for readable expectations.
    func names(_ leg: RouteLeg) -> [String] {
        let byID = Dictionary(uniqueKeysWithValues: edges.map { ($0.value, $0.key) })
        return leg.edges.map { byID[$0] ?? "?" }
    }
    func router(landmarks: Bool = true, configuration: RouterConfiguration = RouterConfiguration()) -> Router {
        Router(graph: graph,
               landmarks: landmarks ? LandmarkIndex.build(graph: graph, modes: TravelMode.allCases, landmarkCount: 4) : nil,
               configuration: configuration)
    }
}

/// Checks that a leg is a legal walk: consecutive edges meet, every turn is allowed, every edge is open.
func isLegal(_ leg: RouteLeg, graph: RoadGraph, mode: TravelMode, avoid: AvoidOptions) -> Bool {
    let mask = ModeMask(mode)
    // A leg may start or end on a road closed to the mode by its tags (`ClosedRoadStretch`): those edges may lead
    // to the first open edge and from the last, never lie between open ones.
    let open = leg.edges.map { graph.access(of: $0).contains(mask) }
    let firstOpen = open.firstIndex(of: true) ?? leg.edges.count
    let lastOpen = open.lastIndex(of: true) ?? -1
    for e in leg.edges where !graph.flags(of: e).isDisjoint(with: avoid.excludedFlags) { return false }
    for (i, e) in leg.edges.enumerated() where !open[i] {
        let inStretch = i < firstOpen || i > lastOpen
        if !inStretch || !graph.motorModesClosedByTags(of: e).contains(mask) { return false }
    }
    for (a, b) in zip(leg.edges, leg.edges.dropFirst()) where !graph.isTurnAllowed(from: a, to: b, mode: mode) {
        return false
    }
    return true
}

/// Relative comparison for costs found by different methods: equal-cost paths may sum the same edge weights in a
/// different order (and the ALT search and the Dijkstras may pick different equal-cost paths), so the last few
/// bits can differ; 1e-6 relative is far above that rounding noise and far below any real difference.
func nearlyEqual(_ a: Double, _ b: Double) -> Bool {
    abs(a - b) <= 1e-6 * max(1, abs(a), abs(b))
}
