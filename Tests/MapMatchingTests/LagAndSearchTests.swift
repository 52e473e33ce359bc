import Foundation
import Geo
@testable import MapMatching
import RoadGraph
import Testing
import TraceSimulation

/// The lag in seconds, the provisional answer beside it, and the road searches that stop at their targets.
@Suite struct LagAndSearchTests {
    /// A longer lag lets the final answer use more of the fixes after it: on a noisy straight road the default lag
    /// (20 s, here 20 fixes) leaves a smaller along-road error than a lag of 4 fixes, and both beat the provisional
    /// answers (which see no later fix).
    @Test func longerLagSmoothsTheFinalAnswersMore() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        var short = MapMatchingConfiguration()
        short.lagFixes = 4
        short.lagSeconds = 0
        var errorsShort: [Double] = [], errorsDefault: [Double] = [], errorsProvisional: [Double] = []
        for seed: UInt64 in 1...4 {
            let drive = f.drive("AB") { $0.positionSigmaMeters = 8; $0.outlierProbability = 0; $0.seed = seed }
            #expect(drive.fixes.count > 40)
            let shortOut = matchAll(f, drive.fixes, configuration: short)
            let matcher = MapMatcher(index: f.index)
            var defaultOut: [SnappedLocation] = []
            for (fix, truth) in zip(drive.fixes, drive.truth) {
                let u = matcher.update(fix)
                defaultOut += u.finalized
                errorsProvisional.append(Geodesy.distanceMeters(u.provisional.coordinate, truth.coordinate))
            }
            defaultOut += matcher.finish()
            #expect(shortOut.count == drive.fixes.count && defaultOut.count == drive.fixes.count)
            errorsShort += zip(shortOut, drive.truth).map { Geodesy.distanceMeters($0.coordinate, $1.coordinate) }
            errorsDefault += zip(defaultOut, drive.truth).map { Geodesy.distanceMeters($0.coordinate, $1.coordinate) }
        }
        let mean = { (e: [Double]) in e.reduce(0, +) / Double(e.count) }
        #expect(mean(errorsDefault) < mean(errorsShort),
                "lag 20 s \(mean(errorsDefault)) m, lag 4 fixes \(mean(errorsShort)) m")
        #expect(mean(errorsShort) < mean(errorsProvisional),
                "lag 4 fixes \(mean(errorsShort)) m, provisional \(mean(errorsProvisional)) m")
    }

    /// At 5 s fixes `lagSeconds` (20 s) holds only 4 later fixes; the lag is at least `lagFixes` (8: 40 s), and
    /// the along-road smoother, given twice as many later fixes, leaves the final answers a smaller error than a lag
    /// of 4 fixes did (the default until session 22; simulated Helsinki drives at 5 s: on the true way 90.3 → 91.0 %
    /// on average over six samples).
    @Test func sparseFixesWaitForEightLaterFixes() throws {
        let f = try MatchingFixture("A" + String(repeating: "-", count: 150) + "B", gridMeters: 20,
                                    roads: [FixtureRoad(nodes: "AB", name: "Main")])
        #expect(MapMatchingConfiguration().lagFixes == 8)
        var four = MapMatchingConfiguration()
        four.lagFixes = 4
        var errorsFour: [Double] = [], errorsDefault: [Double] = []
        for seed: UInt64 in 1...8 {
            let drive = f.drive("AB") {
                $0.positionSigmaMeters = 8; $0.outlierProbability = 0; $0.seed = seed; $0.fixIntervalSeconds = 5
            }
            #expect(drive.fixes.count > 30)
            let a = matchAll(f, drive.fixes, configuration: four), b = matchAll(f, drive.fixes)
            errorsFour += zip(a, drive.truth).map { Geodesy.distanceMeters($0.coordinate, $1.coordinate) }
            errorsDefault += zip(b, drive.truth).map { Geodesy.distanceMeters($0.coordinate, $1.coordinate) }
        }
        let mean = { (e: [Double]) in e.reduce(0, +) / Double(e.count) }
        #expect(mean(errorsDefault) < mean(errorsFour), "lag 8 fixes \(mean(errorsDefault)) m, 4 fixes \(mean(errorsFour)) m")
    }

    /// The provisional answer looks back as far as it did with a lag of 4 fixes (`provisionalLookBackFixes`), whatever
    /// the lag says:
    /// on one road, where the best path cannot differ, a moving vehicle's provisional answers are the same with the
    /// default lag as with a lag of 4 fixes.
    @Test func provisionalAnswersLookBackAsWithTheShortLag() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        let drive = f.drive("AB") { $0.positionSigmaMeters = 8; $0.outlierProbability = 0; $0.seed = 5 }
        var short = MapMatchingConfiguration()
        short.lagFixes = 4
        short.lagSeconds = 0
        let a = MapMatcher(index: f.index, configuration: short)
        let b = MapMatcher(index: f.index)
        var compared = 0
        for (i, fix) in drive.fixes.enumerated() {
            let pa = a.update(fix).provisional, pb = b.update(fix).provisional
            // While the vehicle stands (its start) the short lag's decided history holds the whole stop; compare
            // moving fixes only.
            guard i >= 20, drive.truth[i].speedMetersPerSecond > 1, drive.truth[i - 20].speedMetersPerSecond > 1
            else { continue }
            compared += 1
            #expect(abs(pa.edgeOffsetMeters - pb.edgeOffsetMeters) < 1e-6 && pa.edge == pb.edge,
                    "fix \(i): \(pa.edgeOffsetMeters) against \(pb.edgeOffsetMeters)")
        }
        #expect(compared > 20)
    }

    /// The configuration for callers that read only provisional answers (the navigator) decides each fix 4 fixes
    /// later at 1 s fixes, not 20 s later, and gives the same provisional answers as the default.
    @Test func provisionalOnlyConfigurationKeepsTheShortLag() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        let drive = f.drive("AB") { $0.positionSigmaMeters = 8; $0.outlierProbability = 0; $0.seed = 3 }
        let short = MapMatcher(index: f.index, configuration: .provisionalOnly)
        let long = MapMatcher(index: f.index)
        for (i, fix) in drive.fixes.enumerated() {
            let a = short.update(fix), b = long.update(fix)
            #expect(a.finalized.count == (i >= 4 ? 1 : 0), "fix \(i)")
            #expect(b.finalized.count == (i >= 20 ? 1 : 0), "fix \(i)")
            guard i >= 20, drive.truth[i].speedMetersPerSecond > 1, drive.truth[i - 20].speedMetersPerSecond > 1
            else { continue }
            #expect(abs(a.provisional.edgeOffsetMeters - b.provisional.edgeOffsetMeters) < 1e-6)
        }
    }

    /// A search told which nodes it must answer stops early, but answers them exactly as a search to the full bound
    /// does, also from a cached tree asked again with other targets and bounds.
    @Test func targetedSearchesAnswerLikeFullSearches() throws {
        let (graph, index) = try gridCity(seed: 11)
        var rng = SplitMix64(seed: 12)
        let targeted = RoadDistanceCache(index: index, mode: .driving, capacity: 8)
        var earlyStops = 0
        for round in 0..<300 {
            let source = NodeID(Int.random(in: 0..<graph.nodeCount, using: &rng))
            let bound = Double.random(in: 50...900, using: &rng)
            var targets: [(node: NodeID, withinMeters: Double)] = []
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                targets.append((NodeID(Int.random(in: 0..<graph.nodeCount, using: &rng)),
                                Double.random(in: 0...bound, using: &rng)))
            }
            targeted.step = round
            let tree = targeted.tree(from: source, bound: bound, targets: targets)
            if tree.bound < bound { earlyStops += 1 }
            let full = RoadDistanceCache(index: index, mode: .driving).tree(from: source, bound: bound)
            for t in targets {
                let exact = full.distance(to: t.node)
                let answer = tree.distance(to: t.node)
                if exact <= t.withinMeters {
                    #expect(answer == exact, "round \(round): node \(t.node) at \(exact) m answered \(answer)")
                    #expect(tree.parentEdge(of: t.node) == full.parentEdge(of: t.node))
                } else {
                    // Beyond its limit a target may be answered (exactly: a cached tree may reach farther than
                    // this bound) or not at all.
                    #expect(answer == exact || answer == .infinity || (exact == .infinity && answer > bound),
                            "round \(round): node \(t.node) at \(exact) m answered \(answer), bound \(bound)")
                }
            }
        }
        #expect(earlyStops > 30)  // the early stop is exercised
    }

    /// A cached tree asked again for farther targets continues its stopped search: every node it then holds has the
    /// distance and the edge into it of one search over the whole graph (the same nodes settled in the same order,
    /// so even ties between equally short paths are broken alike).
    @Test func resumedSearchesAnswerLikeOneWholeSearch() throws {
        let (graph, index) = try gridCity(seed: 13)
        var rng = SplitMix64(seed: 14)
        let cache = RoadDistanceCache(index: index, mode: .driving, capacity: 4)
        var whole: [NodeID: DistanceTree] = [:]
        for round in 0..<300 {
            // A few sources only, so that the cache is asked from the same nodes again and again.
            let source = NodeID(Int.random(in: 0..<min(6, graph.nodeCount), using: &rng))
            let bound = Double.random(in: 50...900, using: &rng)
            var targets: [(node: NodeID, withinMeters: Double)] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                targets.append((NodeID(Int.random(in: 0..<graph.nodeCount, using: &rng)),
                                Double.random(in: 0...bound, using: &rng)))
            }
            cache.step = round
            let tree = cache.tree(from: source, bound: bound, targets: targets)
            let reference = whole[source] ?? RoadDistanceCache(index: index, mode: .driving)
                .tree(from: source, bound: .infinity)
            whole[source] = reference
            for v in 0..<graph.nodeCount {
                let node = NodeID(v)
                let exact = reference.distance(to: node)
                let answer = tree.distance(to: node)
                if answer.isFinite || exact <= tree.bound {
                    #expect(answer == exact, "round \(round): node \(node) at \(exact) m answered \(answer)")
                    #expect(tree.parentEdge(of: node) == reference.parentEdge(of: node), "round \(round): node \(node)")
                }
            }
            for t in targets where reference.distance(to: t.node) <= min(t.withinMeters, bound) {
                #expect(tree.distance(to: t.node) == reference.distance(to: t.node))
            }
        }
        #expect(cache.resumedSearchCount > 30)  // resuming is exercised
    }

    /// The cache's node-to-tree map answers as a dictionary does through random insertions, replacements and
    /// removals, with many keys in the same probe runs (removal moves later entries of a run back into the gap) and
    /// growth past its first capacity.
    @Test func nodeSlotMapAnswersLikeADictionary() {
        var rng = SplitMix64(seed: 21)
        var map = NodeSlotMap()
        var reference: [NodeID: Int] = [:]
        for round in 0..<20_000 {
            // Few distinct keys, some of them large: most operations hit present keys and crowded runs.
            let node = Bool.random(using: &rng) ? NodeID(Int.random(in: 0..<96, using: &rng))
                : NodeID.max - NodeID(Int.random(in: 1..<40, using: &rng))
            if Int.random(in: 0..<3, using: &rng) == 0 {
                map.remove(node)
                reference[node] = nil
            } else {
                let value = Int.random(in: 0..<1000, using: &rng)
                map.set(node, value)
                reference[node] = value
            }
            if round % 97 == 0 {
                for k in 0..<96 { #expect(map.value(of: NodeID(k)) == reference[NodeID(k)], "round \(round) key \(k)") }
                for k in 1..<40 { #expect(map.value(of: NodeID.max - NodeID(k)) == reference[NodeID.max - NodeID(k)]) }
                #expect(map.count == reference.count)
            }
        }
        map.removeAll()
        #expect(map.count == 0 && map.value(of: 5) == nil)
    }
}
