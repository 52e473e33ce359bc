import Foundation
import Geo
import RoadGraph

/// Computes exact routes on a `RoadGraph`.
///
/// A router keeps per-edge search labels between queries (so a query allocates almost nothing); it is therefore
/// not `Sendable`: give each task or actor its own router. The graph and the landmark index are shared, immutable
/// values.
public final class Router {
    public let graph: RoadGraph
    /// The ALT tables, if any. `install(landmarks:)` adds them later (built on another thread while this router
    /// already answers with bidirectional Dijkstra).
    public private(set) var landmarks: LandmarkIndex?
    public let configuration: RouterConfiguration
    /// Modes that may use at least one edge of the graph.
    public let supportedModes: ModeMask

    private let forwardLabels: SearchLabels
    private let backwardLabels: SearchLabels
    private let potentialCache: NodePotentialCache
    private let topology: SearchTopology
    /// Free-flow cost tables by (mode, strategy, avoid), built on first use: a few bytes per edge each, and there
    /// are at most 5 modes × 2 strategies × the avoid combinations.
    private var costTables: [EdgeCostTable.Key: EdgeCostTable] = [:]
    /// Strongly connected components per mode, built on the first query that needs them (one that found no route).
    private var componentsByMode: [TravelMode: RoadComponents] = [:]

    public init(graph: RoadGraph, landmarks: LandmarkIndex? = nil, configuration: RouterConfiguration = RouterConfiguration()) {
        self.graph = graph
        self.landmarks = landmarks
        self.configuration = configuration
        var modes: ModeMask = []
        for e in 0..<graph.edgeCount { modes.formUnion(graph.access(of: EdgeID(e))) }
        supportedModes = modes
        forwardLabels = SearchLabels(edgeCount: graph.edgeCount)
        backwardLabels = SearchLabels(edgeCount: graph.edgeCount, withPotentials: false)
        potentialCache = NodePotentialCache(nodeCount: graph.nodeCount)
        topology = SearchTopology(graph: graph)
    }

    private func costTable(mode: TravelMode, strategy: RoutingStrategy, avoid: AvoidOptions) -> EdgeCostTable {
        let key = EdgeCostTable.Key(mode: mode, strategy: strategy, excludedFlags: avoid.excludedFlags.rawValue)
        if let table = costTables[key] { return table }
        let freeFlow = EdgeCostModel(graph: graph, mode: mode, strategy: strategy, avoid: avoid, traffic: nil)
        let table = EdgeCostTable(model: freeFlow, topology: topology)
        costTables[key] = table
        return table
    }

    /// Routes with `configuration.algorithm`.
    public func route(_ request: RouteRequest) -> RouteResponse {
        route(request, algorithm: configuration.algorithm)
    }

    /// Starts using `landmarks` for `.alt` queries (call it where this router is used: it is not thread-safe).
    /// Returns false, and changes nothing, when the index was built for another graph.
    @discardableResult
    public func install(landmarks index: LandmarkIndex) -> Bool {
        guard index.matches(graph) else { return false }
        landmarks = index
        return true
    }

    /// Routes with the given method; every method returns routes of equal weight.
    public func route(_ request: RouteRequest, algorithm: SearchAlgorithm) -> RouteResponse {
        if let failure = validate(request) { return failure }
        if let landmarks, !landmarks.matches(graph) {
            return RouteResponse(status: .internalError, message: "landmark index was built for another graph")
        }
        let model = EdgeCostModel(graph: graph, mode: request.travelMode, strategy: request.strategy,
                                  avoid: request.avoid, traffic: request.traffic)
        let waypoints = [request.origin] + request.destinations
        // Per waypoint: where it is put (on a closed road when one is clearly nearest), and the open roads for when
        // no route joins that.
        var candidates: [[PathEndpoint]] = []
        var openCandidates: [[PathEndpoint]] = []
        for (index, waypoint) in waypoints.enumerated() {
            let (found, openMeters) = openRoadEndpoints(for: waypoint, arriving: index > 0, model: model)
            let closed = closedRoadEndpoints(for: waypoint, arriving: index > 0, nearestOpenMeters: openMeters, model: model)
            if found.isEmpty && closed.isEmpty {
                return RouteResponse(status: .locationUnavailable, waypointIndex: index,
                                     message: "no road usable by \(request.travelMode.rawValue) within "
                                        + "\(configuration.snapRadiusMeters) m of waypoint \(index)")
            }
            candidates.append(closed.isEmpty ? found : closed)
            openCandidates.append(found)
        }

        let search = EdgeSearch(model: model, topology: topology,
                                costs: costTable(mode: request.travelMode, strategy: request.strategy, avoid: request.avoid),
                                forward: forwardLabels, backward: backwardLabels, potentials: potentialCache)
        let closedStretch = ClosedRoadStretch(graph: graph, model: model, configuration: configuration)
        var legs: [RouteLeg] = []
        var sources = candidates[0]
        for index in 1..<waypoints.count {
            var targets = candidates[index]
            var found = connect(search, algorithm, sources, targets, closedStretch)
            if found == nil && index > 1 && sources != candidates[index - 1] {
                // Continuing in the arrival direction failed: allow leaving the waypoint in either direction.
                sources = candidates[index - 1]
                found = connect(search, algorithm, sources, targets, closedStretch)
            }
            if found == nil && (sources != openCandidates[index - 1] || targets != openCandidates[index])
                && !openCandidates[index - 1].isEmpty && !openCandidates[index].isEmpty
            {
                // No way off (or onto) the closed road within reach: the nearest open roads, as without it.
                sources = openCandidates[index - 1]
                targets = openCandidates[index]
                candidates[index] = targets
                found = connect(search, algorithm, sources, targets, closedStretch)
            }
            if found == nil {
                // A waypoint snapped onto a small island of the network (e.g. a driveway whose only link is a
                // track closed to cars): use the nearest road of the main network instead, as OSRM does. A leg
                // that leaves from there need not start where the previous one ended.
                let start = mainNetworkReplacement(for: sources, near: waypoints[index - 1], model)
                let end = mainNetworkReplacement(for: targets, near: waypoints[index], model)
                if start != nil || end != nil {
                    sources = start ?? sources
                    targets = end ?? targets
                    candidates[index] = targets
                    found = connect(search, algorithm, sources, targets, closedStretch)
                }
            }
            if found == nil {
                // The nearest roads are on the main network, yet no route joins them: the destination's road cannot
                // be entered (every turn into it forbidden, its only way in from a road the mode may not use) or, for
                // the first leg, the vehicle's road cannot be left (a one-way stub). A fix or a pin is metres off, so
                // the next nearest roads round either end, one pair at a time, fewest metres off both ends first (the
                // road a stub reaches within the snap radius, even the stub itself, must not stand in for a
                // destination 100 m away). Later legs keep their start: the vehicle arrives there.
                // SUMO Helsinki seed 3 probe12 (a destination beside a junction no route entered: never guided),
                // seed 1 probe11 and seed 3 probe23 (no route from the first fix: guidance only at the retry).
                let starts = index == 1
                    ? nextNearestRoads(to: waypoints[0], after: sources, within: configuration.nextOriginRoadRadiusMeters, model)
                    : [(0, sources)]
                let ends = nextNearestRoads(to: waypoints[index], after: targets, within: configuration.snapRadiusMeters, model)
                var pairs: [(meters: Double, start: Int, end: Int)] = []
                for (i, start) in starts.enumerated() {
                    for (j, end) in ends.enumerated() where i > 0 || j > 0 { pairs.append((start.0 + end.0, i, j)) }
                }
                pairs.sort { ($0.meters, $0.start, $0.end) < ($1.meters, $1.start, $1.end) }
                // At most twice the candidate limit of searches: one that fails may settle the whole network, and a
                // navigator retries a failed route every few seconds.
                for pair in pairs.prefix(2 * configuration.nextRoadCandidateLimit) {
                    if let path = connect(search, algorithm, starts[pair.start].1, ends[pair.end].1, closedStretch) {
                        sources = starts[pair.start].1
                        targets = ends[pair.end].1
                        candidates[index] = targets
                        found = path
                        break
                    }
                }
            }
            guard let path = found else {
                return RouteResponse(status: .noRouteFound, waypointIndex: index,
                                     message: "no \(request.travelMode.rawValue) route to waypoint \(index)")
            }
            let start = sources[path.sourceIndex], end = targets[path.targetIndex]
            legs.append(makeLeg(path: path, start: start, end: end, destination: waypoints[index], model: model,
                                closed: closedStretch))
            sources = [end]  // the next leg leaves in the direction this one arrived
        }
        return RouteResponse(status: .ok,
                             route: Route(legs: legs, travelMode: request.travelMode, strategy: request.strategy))
    }

    /// The road positions a waypoint may snap to for `mode` under `avoid` (both directions of the nearest road,
    /// or the direction chosen by heading / side of road), nearest first; empty when none is within the radius.
    public func snap(_ waypoint: Waypoint, mode: TravelMode, avoid: AvoidOptions = [.ferries], arriving: Bool = true)
        -> [RoadPosition]
    {
        let model = EdgeCostModel(graph: graph, mode: mode, strategy: .best, avoid: avoid, traffic: nil)
        return endpoints(for: waypoint, arriving: arriving, model: model).map { position(of: $0) }
    }

    // MARK: Validation

    private func validate(_ request: RouteRequest) -> RouteResponse? {
        if request.destinations.isEmpty {
            return RouteResponse(status: .noWaypointsError, message: "no destination")
        }
        if request.destinations.count > configuration.maximumDestinations {
            return RouteResponse(status: .waypointError,
                                 message: "\(request.destinations.count) destinations; at most "
                                    + "\(configuration.maximumDestinations)")
        }
        let waypoints = [request.origin] + request.destinations
        for (index, w) in waypoints.enumerated() {
            let c = w.coordinate
            let valid = c.latitude.isFinite && c.longitude.isFinite && abs(c.latitude) <= 90 && abs(c.longitude) <= 180
            if !valid {
                return RouteResponse(status: .waypointError, waypointIndex: index, message: "invalid coordinate \(c)")
            }
            if let heading = w.preferredHeadingDegrees {
                if !heading.isFinite {
                    return RouteResponse(status: .waypointError, waypointIndex: index, message: "invalid heading")
                }
                if w.preferSameSideOfRoad {
                    return RouteResponse(status: .waypointError, waypointIndex: index,
                                         message: "preferSameSideOfRoad cannot be combined with a preferred heading")
                }
            }
        }
        if !supportedModes.contains(ModeMask(request.travelMode)) {
            return RouteResponse(status: .travelModeUnsupported,
                                 message: "the map has no road for \(request.travelMode.rawValue)")
        }
        for index in 1..<waypoints.count
        where Geodesy.distanceMeters(waypoints[index - 1].coordinate, waypoints[index].coordinate)
            <= configuration.duplicateWaypointToleranceMeters
        {
            return RouteResponse(status: .duplicateWaypointsError, waypointIndex: index,
                                 message: "waypoint \(index) repeats waypoint \(index - 1)")
        }
        return nil
    }

    // MARK: Snapping

    private func endpoint(_ snap: EdgeSnap) -> PathEndpoint {
        let length = graph.lengthMeters(of: snap.edge)
        return PathEndpoint(edge: snap.edge, fraction: length > 0 ? min(1, max(0, snap.offsetMeters / length)) : 0)
    }

    private func position(of endpoint: PathEndpoint) -> RoadPosition {
        let shape = EdgeShape(graph: graph, edge: endpoint.edge)
        return RoadPosition(edge: endpoint.edge, offsetMeters: endpoint.fraction * graph.lengthMeters(of: endpoint.edge),
                            point: shape.point(at: endpoint.fraction))
    }

    /// Phantom endpoints for a waypoint (see `snap`).
    func endpoints(for waypoint: Waypoint, arriving: Bool, model: EdgeCostModel) -> [PathEndpoint] {
        openRoadEndpoints(for: waypoint, arriving: arriving, model: model).endpoints
    }

    /// `endpoints`, and how far the nearest usable road is, metres (infinity when none is within the snap radius).
    private func openRoadEndpoints(for waypoint: Waypoint, arriving: Bool, model: EdgeCostModel)
        -> (endpoints: [PathEndpoint], nearestMeters: Double)
    {
        func usableSnaps(within radiusMeters: Double) -> [EdgeSnap] {
            graph.nearestEdges(to: waypoint.coordinate, mode: model.mode, radiusMeters: radiusMeters,
                               limit: configuration.snapCandidateLimit)
                .filter { model.isUsable($0.edge) }
        }
        // Without a heading only the nearest usable road counts. Candidates come closest first, so one found within
        // the small radius is the one the full radius would give, at a fraction of the grid cells scanned.
        var snaps: [EdgeSnap] = []
        if waypoint.preferredHeadingDegrees == nil && configuration.nearSnapRadiusMeters < configuration.snapRadiusMeters {
            snaps = usableSnaps(within: configuration.nearSnapRadiusMeters)
        }
        if snaps.isEmpty { snaps = usableSnaps(within: configuration.snapRadiusMeters) }
        guard let nearest = snaps.first else { return ([], .infinity) }

        if let heading = waypoint.preferredHeadingDegrees {
            // Nearest directed edge (or its twin) whose direction at the snapped point matches the heading.
            for snap in snaps {
                if let option = bothDirections(of: snap, model).first(where: { agrees($0, heading: heading) }) {
                    return ([option], nearest.distanceMeters)
                }
            }
            // A preference, not a requirement: fall through to the nearest road.
        }

        let result = bothDirections(of: nearest, model)
        if result.count == 2 && arriving && waypoint.preferSameSideOfRoad
            && nearest.distanceMeters >= configuration.sameSideMinimumOffsetMeters,
            let isRight = sideOfRoad(waypoint.coordinate, snapped: nearest.point, edge: result[0])
        {
            // Right-hand traffic: arrive on the direction that has the waypoint on its right (left-hand: its left).
            let wantRight = configuration.rightHandTraffic ?? (graph.drivingSide == .right)
            return ([isRight == wantRight ? result[0] : result[1]], nearest.distanceMeters)
        }
        guard arriving && !waypoint.preferSameSideOfRoad && configuration.destinationTieMeters > 0 else {
            return (result, nearest.distanceMeters)
        }
        var all = result
        // Only roads through about the same place: a tie's own point within the tie distance of the nearest road's
        // (an overlapping or closely parallel way, a way meeting it at the node nearest the waypoint). A waypoint
        // far from every road (the middle of a square) has roads nearly as near tens of metres apart along the
        // kerb; ending the leg on one of those moves the arrival point away from where the vehicle stops.
        for snap in snaps.dropFirst()
        where snap.distanceMeters <= nearest.distanceMeters + configuration.destinationTieMeters
            && Geodesy.distanceMeters(snap.point, nearest.point) <= configuration.destinationTieMeters
        {
            for option in bothDirections(of: snap, model) where !all.contains(option) { all.append(option) }
        }
        return (all, nearest.distanceMeters)
    }

    /// Where a waypoint lies on a road closed to the (motor) mode by its tags, when such a road passes within
    /// `configuration.closedRoadSnapRadiusMeters` and nearer than the nearest open road (`openMeters` away; with a
    /// heading `endpoints` may choose a farther one) by `configuration.closedRoadSnapMarginMeters`
    /// (`closedRoadOriginMarginMeters` for the origin): both directions of it, or the one matching a preferred
    /// heading. Empty otherwise.
    func closedRoadEndpoints(
        for waypoint: Waypoint, arriving: Bool, nearestOpenMeters openMeters: Double, model: EdgeCostModel
    ) -> [PathEndpoint] {
        let margin = arriving ? configuration.closedRoadSnapMarginMeters : configuration.closedRoadOriginMarginMeters
        guard ModeMask.motorized.contains(model.modeMask), configuration.closedRoadSnapMarginMeters.isFinite,
            margin.isFinite, margin >= 0
        else { return [] }
        let closed = ClosedRoadStretch(graph: graph, model: model, configuration: configuration)
        let radius = min(configuration.closedRoadSnapRadiusMeters, openMeters - margin)
        guard radius >= 0 else { return [] }
        // Footways and cycleways are listed too (open to some mode): ask for enough that a closed road among a
        // pedestrian zone's paths is not crowded out.
        let snaps = graph.nearestEdges(to: waypoint.coordinate, openToAnyOf: .all, radiusMeters: radius,
                                       limit: max(configuration.snapCandidateLimit, 32), includingClosedToAll: true)
            .filter { closed.isClosed($0.edge) }
            .filter { !arriving || configuration.closedRoadDestinationsOnPedestrianStreets
                || graph.highwayClass(of: $0.edge) != .pedestrian }
        guard let nearest = snaps.first else { return [] }
        func directions(_ snap: EdgeSnap) -> [PathEndpoint] {
            let forward = endpoint(snap)
            guard let twin = graph.reverseEdge(of: snap.edge), closed.isClosed(twin) else { return [forward] }
            return [forward, PathEndpoint(edge: twin, fraction: 1 - forward.fraction)]
        }
        if let heading = waypoint.preferredHeadingDegrees {
            // The vehicle's direction along the nearest closed road, when it has one there.
            for snap in snaps where snap.distanceMeters <= nearest.distanceMeters + configuration.destinationTieMeters {
                if let option = directions(snap).first(where: { agrees($0, heading: heading) }) { return [option] }
            }
        }
        return directions(nearest)
    }

    /// Whether the direction of `option`'s edge at its position is within `headingToleranceDegrees` of `heading`.
    private func agrees(_ option: PathEndpoint, heading: Double) -> Bool {
        let bearing = EdgeShape(graph: graph, edge: option.edge).bearingDegrees(at: option.fraction)
        return Geodesy.bearingDifferenceDegrees(bearing, heading) <= configuration.headingToleranceDegrees
    }

    /// The snapped position on the snapped edge, then on its twin when the mode may use it.
    /// `current` (0 m) and then both directions of each of the next `configuration.nextRoadCandidateLimit` nearest
    /// usable roads within `radiusMeters` of `waypoint`, with their distance from it, metres.
    private func nextNearestRoads(
        to waypoint: Waypoint, after current: [PathEndpoint], within radiusMeters: Double, _ model: EdgeCostModel
    ) -> [(Double, [PathEndpoint])] {
        var out: [(Double, [PathEndpoint])] = [(0, current)]
        var tried = Set(current.map(\.edge))
        for snap in graph.nearestEdges(to: waypoint.coordinate, mode: model.mode, radiusMeters: radiusMeters,
                                       limit: configuration.nextRoadCandidateLimit)
        where model.isUsable(snap.edge) && !tried.contains(snap.edge) {
            let next = bothDirections(of: snap, model)
            tried.formUnion(next.map(\.edge))
            out.append((snap.distanceMeters, next))
        }
        return out
    }

    private func bothDirections(of snap: EdgeSnap, _ model: EdgeCostModel) -> [PathEndpoint] {
        let forward = endpoint(snap)
        guard let twin = graph.reverseEdge(of: snap.edge), model.isUsable(twin) else { return [forward] }
        return [forward, PathEndpoint(edge: twin, fraction: 1 - forward.fraction)]
    }

    /// When `endpoints` lie off the main network (not on a strongly connected component of at least
    /// `configuration.islandNodeLimit` nodes), both directions of the nearest road on it within
    /// `configuration.islandSnapRadiusMeters`; nil when the endpoints are on it already or no such road is near.
    private func mainNetworkReplacement(
        for endpoints: [PathEndpoint], near waypoint: Waypoint, _ model: EdgeCostModel
    ) -> [PathEndpoint]? {
        let components = components(for: model.mode)
        let limit = configuration.islandNodeLimit
        guard endpoints.contains(where: { !components.isOnLargeComponent($0.edge, graph: graph, minimumNodes: limit) })
        else { return nil }
        let snaps = graph.nearestEdges(to: waypoint.coordinate, mode: model.mode,
                                       radiusMeters: configuration.islandSnapRadiusMeters,
                                       limit: configuration.islandSnapCandidateLimit)
        guard let nearest = snaps.first(where: {
            model.isUsable($0.edge) && components.isOnLargeComponent($0.edge, graph: graph, minimumNodes: limit)
        }) else { return nil }
        return bothDirections(of: nearest, model)
    }

    private func components(for mode: TravelMode) -> RoadComponents {
        if let found = componentsByMode[mode] { return found }
        let built = RoadComponents(graph: graph, mode: mode)
        componentsByMode[mode] = built
        return built
    }

    /// Which side of the travel direction of `edge` (at the snapped point) the waypoint lies on.
    private func sideOfRoad(_ point: Coordinate, snapped: Coordinate, edge: PathEndpoint) -> Bool? {
        let bearing = EdgeShape(graph: graph, edge: edge.edge).bearingDegrees(at: edge.fraction) * .pi / 180
        let projection = LocalProjection(origin: snapped)
        let (wx, wy) = projection.project(point)
        let (dx, dy) = (sin(bearing), cos(bearing))  // east, north
        let cross = dx * wy - dy * wx
        if cross == 0 { return nil }
        return cross < 0  // clockwise from the direction: the right-hand side
    }

    // MARK: Search and legs

    private func shortestPath(
        _ search: EdgeSearch, _ algorithm: SearchAlgorithm, _ sources: [PathEndpoint], _ targets: [PathEndpoint],
        _ model: EdgeCostModel
    ) -> EdgePath? {
        switch algorithm {
        case .dijkstra:
            return search.unidirectional(from: sources, to: targets)
        case .bidirectionalDijkstra:
            return search.bidirectional(from: sources, to: targets)
        case .alt, .unidirectionalAlt:
            let key = LandmarkIndex.Key(mode: model.mode, strategy: model.strategy)
            guard let table = landmarks?.tables[key], !table.landmarks.isEmpty else {
                return search.bidirectional(from: sources, to: targets)
            }
            // The forward search leaves a source from its edge's target node, having paid the rest of the edge; a
            // target is reached from its edge's source node plus the part of the edge up to it.
            let sourceEnds = sources.map {
                LandmarkPotential.Endpoint(node: graph.target(of: $0.edge), offset: $0.exitWeight(model.weight($0.edge)))
            }
            let targetEnds = targets.map {
                LandmarkPotential.Endpoint(node: graph.source(of: $0.edge), offset: $0.entryWeight(model.weight($0.edge)))
            }
            let chosen = LandmarkPotential.bestLandmarks(table: table, sources: sourceEnds, targets: targetEnds,
                                                         count: max(1, configuration.activeLandmarkCount))
            let towardTargets = LandmarkPotential(table: table, endpoints: targetEnds, landmarks: chosen, reversed: false,
                                                  scale: model.heuristicScale)
            if algorithm == .unidirectionalAlt {
                return search.unidirectional(from: sources, to: targets, potential: towardTargets)
            }
            let fromSources = LandmarkPotential(table: table, endpoints: sourceEnds, landmarks: chosen, reversed: true,
                                                scale: model.heuristicScale)
            return search.bidirectional(
                from: sources, to: targets,
                potential: AveragePotential(towardTargets: towardTargets, fromSources: fromSources))
        }
    }

    /// The best path between the snapped `sources` and `targets`, those on closed roads joined to the open network
    /// by their closed stretches (`ClosedRoadStretch`): `edges` run from a source's edge to a target's edge, and the
    /// indices are into `sources` and `targets`.
    private func connect(
        _ search: EdgeSearch, _ algorithm: SearchAlgorithm, _ sources: [PathEndpoint], _ targets: [PathEndpoint],
        _ closed: ClosedRoadStretch
    ) -> EdgePath? {
        let model = closed.model
        guard sources.contains(where: { !model.isUsable($0.edge) }) || targets.contains(where: { !model.isUsable($0.edge) })
        else { return shortestPath(search, algorithm, sources, targets, model) }
        // Search endpoints: open ones as they are, closed ones replaced by the ends of their stretches.
        func expand(_ endpoints: [PathEndpoint], departing: Bool)
            -> (search: [(endpoint: PathEndpoint, stretch: [EdgeID], owner: Int)],
                explored: [(owner: Int, labels: [EdgeID: ClosedRoadStretch.Label])])
        {
            var search: [(endpoint: PathEndpoint, stretch: [EdgeID], owner: Int)] = []
            var explored: [(owner: Int, labels: [EdgeID: ClosedRoadStretch.Label])] = []
            for (owner, endpoint) in endpoints.enumerated() {
                guard !model.isUsable(endpoint.edge) else {
                    search.append((endpoint, [], owner))
                    continue
                }
                let labels = closed.explore(from: endpoint, departing: departing)
                explored.append((owner, labels))
                search += closed.junctions(labels, departing: departing).map { ($0.endpoint, $0.edges, owner) }
            }
            return (search, explored)
        }
        let (searchSources, departures) = expand(sources, departing: true)
        let (searchTargets, arrivals) = expand(targets, departing: false)
        var best: EdgePath?
        if !searchSources.isEmpty && !searchTargets.isEmpty,
            let path = shortestPath(search, algorithm, searchSources.map(\.endpoint), searchTargets.map(\.endpoint), model)
        {
            let from = searchSources[path.sourceIndex], to = searchTargets[path.targetIndex]
            var edges = path.edges
            if !from.stretch.isEmpty { edges = from.stretch + edges.dropFirst() }
            if !to.stretch.isEmpty { edges = edges.dropLast() + to.stretch }
            best = EdgePath(weight: path.weight, edges: edges, sourceIndex: from.owner, targetIndex: to.owner)
        }
        // Both ends on closed roads joined by closed roads: that way too (it never touches the open network).
        for departure in departures {
            for arrival in arrivals {
                guard let direct = closed.directPath(from: sources[departure.owner], departure.labels,
                                                     to: targets[arrival.owner], arrival.labels),
                    direct.weight < best?.weight ?? .infinity
                else { continue }
                best = EdgePath(weight: direct.weight, edges: direct.edges, sourceIndex: departure.owner,
                                targetIndex: arrival.owner)
            }
        }
        return best
    }

    private func makeLeg(
        path: EdgePath, start: PathEndpoint, end: PathEndpoint, destination: Waypoint, model: EdgeCostModel,
        closed: ClosedRoadStretch
    ) -> RouteLeg {
        var distance = 0.0, duration = 0.0, weight = 0.0
        var geometry: [Coordinate] = []
        geometry.reserveCapacity(path.edges.count * 3)
        var wayIDs: [Int64] = []
        let last = path.edges.count - 1
        for (i, e) in path.edges.enumerated() {
            let from = i == 0 ? start.fraction : 0
            let to = i == last ? end.fraction : 1
            let portion = max(0, to - from)
            distance += graph.lengthMeters(of: e) * portion
            // Only a closed stretch puts an edge the mode may not use on a path.
            let usable = model.isUsable(e)
            duration += (usable ? model.durationSeconds(e) : closed.durationSeconds(e)) * portion
            weight += (usable ? model.weight(e) : closed.weight(e)) * portion
            if from == 0 && to == 1 {
                // A whole edge: its vertices as stored, without measuring the shape (zero-length steps dropped, as
                // `EdgeShape.slice` drops them).
                for point in graph.geometry(of: e) where geometry.last != point { geometry.append(point) }
            } else {
                let piece = EdgeShape(graph: graph, edge: e).slice(from: from, to: to)
                geometry.append(contentsOf: geometry.last == piece.first ? piece.dropFirst() : piece[...])
            }
            let way = graph.osmWayID(of: e)
            if wayIDs.last != way { wayIDs.append(way) }
        }
        return RouteLeg(destination: destination, start: position(of: start), end: position(of: end),
                        distanceMeters: distance, durationSeconds: duration, weight: weight, geometry: geometry,
                        edges: path.edges, osmWayIDs: wayIDs)
    }
}
