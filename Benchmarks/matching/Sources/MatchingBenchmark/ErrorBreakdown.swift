// Where the wrong-way fixes come from: every fix whose matched OSM way differs from the truth's is put in one
// primary class (first that applies, in this order) and counted in a few secondary tallies.
import Foundation
import Geo
import MapMatching
import RoadGraph
import TraceSimulation

/// Counts of wrong-way fixes by cause, for one engine on one set of drives.
struct ErrorBreakdown {
    var fixes = 0
    var wrong = 0
    /// Primary class → count.
    var primary: [String: Int] = [:]
    /// Secondary tallies (not exclusive) → count.
    var secondary: [String: Int] = [:]
    /// Stopped / moving fixes in total (for rates).
    var stoppedFixes = 0
    var movingFixes = 0
    /// |along-road error| of every fix matched on the driven route, metres, stopped and moving.
    var alongStopped: [Double] = []
    var alongMoving: [Double] = []
    /// Sums of the signed along-road error (positive: ahead of the truth), metres.
    var signedStopped = 0.0
    var signedMoving = 0.0
    /// Per fix: standing?, distance along the route back to the previous and on to the next way boundary, metres.
    var boundaryDistances: [(stopped: Bool, behind: Double, ahead: Double)] = []

    private mutating func bump(_ key: String, _ into: WritableKeyPath<ErrorBreakdown, [String: Int]>) {
        self[keyPath: into][key, default: 0] += 1
    }

    /// Adds one drive. `matched[i]` is the engine's answer for `drive.fixes[i]`.
    mutating func add(drive: SimulatedDrive, matched: [SnappedLocation], index: RoadGeometryIndex) {
        let graph = index.graph
        let edges = drive.edges
        guard !edges.isEmpty else { return }
        // Route position of every edge start, and the route positions where the OSM way changes.
        var starts: [Double] = []
        var total = 0.0
        var boundaries: [Double] = []
        var turns: [Double] = []
        for (i, e) in edges.enumerated() {
            starts.append(total)
            if i > 0 {
                if graph.osmWayID(of: e) != graph.osmWayID(of: edges[i - 1]) { boundaries.append(total) }
                let turn = Geodesy.bearingDifferenceDegrees(
                    index.bearing(on: edges[i - 1], at: index.length(of: edges[i - 1])), index.bearing(on: e, at: 0))
                if turn > 30 { turns.append(total) }
            }
            total += index.length(of: e)
        }
        func nearest(_ list: [Double], _ s: Double) -> Double {
            list.reduce(Double.infinity) { min($0, abs($1 - s)) }
        }
        // Route position of a truth sample: the edge occurrence whose start is nearest below its driven distance.
        let begin =
            drive.truth.first.map { t in
                (edges.firstIndex(of: t.edge).map { starts[$0] } ?? 0) + t.offsetMeters - t.distanceMeters
            } ?? 0
        var lastOutlierIndex = -100
        var stopRun = 0
        for (i, (t, r)) in zip(drive.truth, matched).enumerated() {
            fixes += 1
            do {
                let s = begin + t.distanceMeters
                let behind = boundaries.last(where: { $0 <= s }).map { s - $0 } ?? .infinity
                let ahead = boundaries.first(where: { $0 > s }).map { $0 - s } ?? .infinity
                boundaryDistances.append((t.isStopped, behind, ahead))
            }
            stopRun = t.isStopped ? stopRun + 1 : 0
            let runBucket =
                stopRun <= 2 ? "1-2" : stopRun <= 5 ? "3-5" : stopRun <= 10 ? "6-10" : stopRun <= 20 ? "11-20" : ">20"
            if t.isStopped {
                secondary["(all stopped) fix \(runBucket) of its stop", default: 0] += 1
                if matched[i].osmWayID != t.osmWayID {
                    secondary["(all stopped) fix \(runBucket) of its stop: wrong way", default: 0] += 1
                }
                stoppedFixes += 1
                if t.offsetMeters < 6 && index.isWaitingPoint(graph.source(of: t.edge)) {
                    let l = index.length(of: t.edge)
                    let b = l < 4 ? "<4" : l < 8 ? "4-8" : l < 15 ? "8-15" : ">=15"
                    secondary["(all stopped) truth < 6 m past a waiting node, edge \(b) m", default: 0] += 1
                    // Is the stop at a signal, and how far back is the previous edge boundary?
                    let signal = graph.flags(of: t.edge).contains(.trafficSignalsAtTarget)
                    var k = edges.firstIndex(of: t.edge) ?? 0
                    var back = t.offsetMeters
                    var junctionBack = -1.0
                    while k > 0 {
                        let node = graph.source(of: edges[k])
                        var nb = Set<NodeID>()
                        for e in graph.outgoingEdges(of: node) where graph.access(of: e).contains(.driving) {
                            nb.insert(graph.target(of: e))
                        }
                        for e in graph.incomingEdges(of: node) where graph.access(of: e).contains(.driving) {
                            nb.insert(graph.source(of: e))
                        }
                        if nb.count >= 3 { junctionBack = back; break }
                        k -= 1
                        back += index.length(of: edges[k])
                        if back > 30 { break }
                    }
                    let jb = junctionBack < 0 ? "none within 30 m" : junctionBack < 10 ? "<10 m" : "10-30 m"
                    secondary["(all stopped) … signal ahead \(signal), junction behind \(jb)", default: 0] += 1
                }
            } else {
                movingFixes += 1
            }
            if drive.isOutlier[i] { lastOutlierIndex = i }
            if let e = matched[i].edge {
                let s = begin + t.distanceMeters
                var best = Double.infinity
                for (k, edge) in edges.enumerated() where edge == e {
                    let d = starts[k] + matched[i].edgeOffsetMeters - s
                    if abs(d) < abs(best) { best = d }
                }
                if abs(best) < 60 && !t.isStopped {
                    let sNow = begin + t.distanceMeters
                    let turnNear = nearest(turns, sNow) < 20 ? "near turn" : "straight"
                    let fast = t.speedMetersPerSecond > 8 ? "fast" : "slow"
                    secondary["(moving on route) \(turnNear) \(fast)", default: 0] += 1
                    if abs(best) > 5 {
                        secondary["(moving on route) \(turnNear) \(fast): along > 5 m", default: 0] += 1
                    }
                    if abs(best) > 5 {
                        secondary["(moving on route) along > 5 m, \(best > 0 ? "ahead" : "behind")", default: 0] += 1
                    }
                }
                if abs(best) < 60 {
                    if t.isStopped { alongStopped.append(abs(best)) } else { alongMoving.append(abs(best)) }
                    if t.isStopped { signedStopped += best } else { signedMoving += best }
                }
            }
            guard r.osmWayID != t.osmWayID else { continue }
            wrong += 1
            let s = begin + t.distanceMeters
            let boundary = nearest(boundaries, s)
            let error = Geodesy.distanceMeters(r.coordinate, t.coordinate)
            // Is the matched edge on the driven route near the truth? Then the error is along the road.
            var alongError: Double?
            if let e = r.edge {
                for (k, edge) in edges.enumerated() where edge == e {
                    let d = starts[k] + r.edgeOffsetMeters - s
                    if alongError == nil || abs(d) < abs(alongError!) { alongError = d }
                }
            }
            let onRoute = alongError.map { abs($0) < 60 } ?? false
            let state = t.isStopped ? "stopped" : "moving"
            let cls: String
            if !r.matched {
                cls = "unmatched"
            } else if drive.isOutlier[i] {
                cls = "outlier fix itself"
            } else if i - lastOutlierIndex <= 3 {
                cls = "within 3 fixes after an outlier"
            } else if i < 5 {
                cls = "first 5 fixes of a trace"
            } else if onRoute, let a = alongError {
                let side = a > 0 ? "ahead" : "behind"
                let bucket = boundary < 3 ? "<3 m" : boundary < 10 ? "3-10 m" : boundary < 25 ? "10-25 m" : ">=25 m"
                cls = "\(state), on route \(side), truth \(bucket) from way boundary"
            } else {
                let gap = error < 10 ? "<10 m" : error < 25 ? "10-25 m" : ">=25 m"
                let turn = nearest(turns, s) < 30 ? " near turn" : ""
                cls = "\(state), off route (other road\(turn)), error \(gap)"
            }
            primary[cls, default: 0] += 1
            if !onRoute, let e = r.edge {
                let te = t.edge
                let touches = [graph.source(of: e), graph.target(of: e)].contains { n in
                    n == graph.source(of: te) || n == graph.target(of: te)
                }
                let diff = Geodesy.bearingDifferenceDegrees(
                    index.bearing(on: e, at: r.edgeOffsetMeters), t.courseDegrees)
                let relation =
                    touches
                    ? "shares a node with the true edge"
                    : diff > 150 ? "opposite-direction road" : diff < 30 ? "same-direction road" : "crossing road"
                secondary["off route: \(relation)", default: 0] += 1
            }
            if let e = r.edge, graph.highwayClass(of: e) == .service {
                secondary["matched a service road", default: 0] += 1
            }
            if nearest(turns, s) < 20 { secondary["truth within 20 m of a turn", default: 0] += 1 }
            if boundary < 3 { secondary["truth < 3 m from way boundary", default: 0] += 1 }
            let truthWayLength = wayRunLength(edges: edges, starts: starts, at: s, graph: graph, index: index)
            if truthWayLength < 15 { secondary["true way run shorter than 15 m", default: 0] += 1 }
            if let a = alongError, abs(a) < 60 {
                let b = abs(a) < 3 ? "<3" : abs(a) < 6 ? "3-6" : abs(a) < 12 ? "6-12" : ">=12"
                secondary["on-route along error \(b) m", default: 0] += 1
            }
        }
    }

    /// Length of the run of consecutive route edges with the same way id that contains route position `s`.
    private func wayRunLength(
        edges: [EdgeID], starts: [Double], at s: Double, graph: RoadGraph,
        index: RoadGeometryIndex
    ) -> Double {
        var k = 0
        while k + 1 < edges.count && starts[k + 1] <= s { k += 1 }
        let way = graph.osmWayID(of: edges[k])
        var a = k, b = k
        while a > 0 && graph.osmWayID(of: edges[a - 1]) == way { a -= 1 }
        while b + 1 < edges.count && graph.osmWayID(of: edges[b + 1]) == way { b += 1 }
        return starts[b] + index.length(of: edges[b]) - starts[a]
    }

    func report(title: String) -> String {
        var out =
            "\(title): \(wrong) of \(fixes) fixes on a wrong way "
            + String(format: "(%.1f %%)", 100 * Double(wrong) / Double(max(1, fixes)))
            + "; stopped fixes \(stoppedFixes), moving \(movingFixes)\n"
        for (k, v) in primary.sorted(by: { $0.value > $1.value }) {
            out += String(format: "  %6d  %5.1f %%  ", v, 100 * Double(v) / Double(max(1, wrong))) + k + "\n"
        }
        func q(_ v: [Double], _ p: Double) -> Double {
            let s = v.sorted()
            return s.isEmpty ? .nan : s[min(s.count - 1, Int(p * Double(s.count - 1)))]
        }
        out += String(
            format:
                "  along-road |error| on route: stopped p50 %.2f p90 %.2f m (mean signed %+.2f m), "
                    + "moving p50 %.2f p90 %.2f m (mean signed %+.2f m)\n",
            q(alongStopped, 0.5), q(alongStopped, 0.9), signedStopped / Double(max(1, alongStopped.count)),
            q(alongMoving, 0.5), q(alongMoving, 0.9), signedMoving / Double(max(1, alongMoving.count)))
        // Floor: an ideal matcher that always finds the true road and places fixes along it with a Gaussian error
        // of the σ measured here (p50 of |error| / 0.6745) still puts this share on a neighbouring way.
        let sigmaStopped = q(alongStopped, 0.5) / 0.6745, sigmaMoving = q(alongMoving, 0.5) / 0.6745
        func tail(_ z: Double) -> Double { 0.5 * erfc(z / 2.0.squareRoot()) }
        func floor(_ sigmaStopped: Double, _ sigmaMoving: Double) -> Double {
            var expected = 0.0
            for b in boundaryDistances {
                let sigma = b.stopped ? sigmaStopped : sigmaMoving
                expected += tail(b.behind / sigma) + tail(b.ahead / sigma)
            }
            return 100 * expected / Double(max(1, boundaryDistances.count))
        }
        out += String(
            format:
                "  floor at this along-road precision (σ stopped %.2f m, moving %.2f m): %.1f %% of fixes on a "
                    + "neighbouring way; at σ 1.0/1.5 m: %.1f %%; at σ 0.5/1.0 m: %.1f %%\n",
            sigmaStopped, sigmaMoving, floor(sigmaStopped, sigmaMoving), floor(1, 1.5), floor(0.5, 1))
        out += "  secondary:\n"
        for (k, v) in secondary.sorted(by: { $0.key < $1.key }) {
            out += String(format: "  %6d  %5.1f %%  ", v, 100 * Double(v) / Double(max(1, wrong))) + k + "\n"
        }
        return out
    }
}
