import RoadGraph
import Routing

/// The route the vehicle is asked to follow, flattened to directed edges with the distance along the route at
/// which each edge portion starts. Built once per route; lookups are O(occurrences of the edge).
public struct ActiveRoute: Sendable {
    struct Piece: Sendable {
        var edge: EdgeID
        /// Portion of the edge on the route, metres from its source.
        var startOffset: Double
        var endOffset: Double
        /// Along the route at `startOffset`, metres.
        var routeStart: Double
    }

    let pieces: [Piece]
    let piecesOfEdge: [EdgeID: [Int32]]
    /// Total length, metres.
    public let lengthMeters: Double

    /// Flattens `route`'s legs. Offsets use the matcher's edge lengths (`RoadGeometryIndex`).
    public init(route: Route, index: RoadGeometryIndex) {
        var pieces: [Piece] = []
        var total = 0.0
        for leg in route.legs {
            for (i, e) in leg.edges.enumerated() {
                let len = index.length(of: e)
                let scale = len / max(index.graph.lengthMeters(of: e), 1e-9)
                let start = i == 0 ? leg.start.offsetMeters * scale : 0
                let end = i == leg.edges.count - 1 ? leg.end.offsetMeters * scale : len
                if let last = pieces.last, last.edge == e, abs(last.endOffset - start) < 1e-6 {
                    pieces[pieces.count - 1].endOffset = end
                } else {
                    pieces.append(Piece(edge: e, startOffset: start, endOffset: max(start, end), routeStart: total))
                }
                total += max(0, end - start)
            }
        }
        self.init(pieces: pieces, length: total)
    }

    /// A route along whole edges in order (for tests and simulated drives).
    public init(edges: [EdgeID], index: RoadGeometryIndex) {
        var pieces: [Piece] = []
        var total = 0.0
        for e in edges {
            let len = index.length(of: e)
            pieces.append(Piece(edge: e, startOffset: 0, endOffset: len, routeStart: total))
            total += len
        }
        self.init(pieces: pieces, length: total)
    }

    private init(pieces: [Piece], length: Double) {
        self.pieces = pieces
        var map: [EdgeID: [Int32]] = [:]
        for (i, p) in pieces.enumerated() { map[p.edge, default: []].append(Int32(i)) }
        piecesOfEdge = map
        lengthMeters = length
    }

    /// True when some portion of the route covers `edge` at `offset` (within `tolerance` metres).
    @inline(__always) func contains(edge: EdgeID, offset: Double, tolerance: Double) -> Bool {
        guard let list = piecesOfEdge[edge] else { return false }
        for i in list {
            let p = pieces[Int(i)]
            if offset >= p.startOffset - tolerance && offset <= p.endOffset + tolerance { return true }
        }
        return false
    }

    /// Distance along the route to (`edge`, `offset`), choosing among repeated passes the first one not behind
    /// `after` (metres along the route, minus `tolerance`); nil when the position is not on the route.
    func routeDistance(edge: EdgeID, offset: Double, after: Double, tolerance: Double) -> Double? {
        guard let list = piecesOfEdge[edge] else { return nil }
        var fallback: Double?
        for i in list {
            let p = pieces[Int(i)]
            guard offset >= p.startOffset - tolerance && offset <= p.endOffset + tolerance else { continue }
            let d = p.routeStart + min(max(offset, p.startOffset), p.endOffset) - p.startOffset
            if d >= after - tolerance { return d }
            fallback = d
        }
        return fallback
    }

    /// The route's edge after `edge` at the pass nearest to `routeDistance`, for dead reckoning.
    func nextEdge(after edge: EdgeID, near routeDistance: Double?) -> EdgeID? {
        guard let list = piecesOfEdge[edge] else { return nil }
        var best: Int?
        for i in list {
            let p = pieces[Int(i)]
            if let d = routeDistance {
                if best == nil || abs(p.routeStart - d) < abs(pieces[best!].routeStart - d) { best = Int(i) }
            } else if best == nil { best = Int(i) }
        }
        guard let b = best, b + 1 < pieces.count else { return nil }
        return pieces[b + 1].edge
    }
}
