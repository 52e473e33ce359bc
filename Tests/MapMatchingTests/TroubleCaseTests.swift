import Geo
@testable import MapMatching
import RoadGraph
import Testing
import TraceSimulation

/// Transcripts of the GPS trouble cases: an ASCII map, a trace, and what the matcher must answer.
@Suite struct TroubleCaseTests {
    @Test func noisyStraightRoadIsMatchedAndSmoothed() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        let drive = f.drive("AB") { $0.positionSigmaMeters = 8; $0.outlierProbability = 0; $0.seed = 7 }
        let out = matchAll(f, drive.fixes)
        #expect(out.count == drive.fixes.count)
        #expect(out.allSatisfy { $0.matched && $0.osmWayID == f.way("Main") })
        let errors = zip(out, drive.truth).map { Geodesy.distanceMeters($0.coordinate, $1.coordinate) }
        let raw = zip(drive.fixes, drive.truth).map { Geodesy.distanceMeters($0.coordinate, $1.coordinate) }
        // Snapping removes the across-road error; smoothing most of the along-road error.
        #expect(percentile(errors, 0.5) < percentile(raw, 0.5) / 2)
        #expect(percentile(errors, 0.5) < 4)
    }

    @Test func parallelServiceRoadDoesNotStealTheMainRoad() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            |                                                          |
            C----------------------------------------------------------D
            """, roads: [
                FixtureRoad(nodes: "AB", name: "Main", highwayClass: .primary),
                FixtureRoad(nodes: "CD", name: "Service", speedLimitKph: 20, highwayClass: .service),
                FixtureRoad(nodes: "AC", name: "West link"), FixtureRoad(nodes: "BD", name: "East link"),
            ])
        for seed: UInt64 in 1...3 {
            let main = f.drive("AB", margin: 30) { $0.positionSigmaMeters = 6; $0.outlierProbability = 0; $0.seed = seed }
            let outMain = matchAll(f, main.fixes)
            #expect(wayAccuracy(outMain, main) >= 0.95, "seed \(seed) main road")
            let service = f.drive("CD", margin: 30) { $0.positionSigmaMeters = 6; $0.outlierProbability = 0; $0.seed = seed }
            let outService = matchAll(f, service.fixes)
            #expect(wayAccuracy(outService, service) >= 0.95, "seed \(seed) service road")
        }
    }

    @Test func overpassAboveTheStreetIsNotTaken() throws {
        // The motorway E–F crosses the street A–B–C on a bridge: no shared node. A ramp F–R–B joins them.
        let f = try MatchingFixture("""
                                    E
                                    |
                                    |
            A-----------------------+-----------------------B------------C
                                    |                       |
                                    |                       |
                                    F-----------------------R
            """, gridMeters: 10, roads: [
                FixtureRoad(nodes: "ABC", name: "Street"),
                FixtureRoad(nodes: "EF", name: "Motorway", oneway: true, speedLimitKph: 100, highwayClass: .motorway,
                            flags: [.bridge, .highway]),
                FixtureRoad(nodes: "FRB", name: "Ramp"),
            ])
        for seed: UInt64 in 1...3 {
            let drive = f.drive("ABC") { $0.positionSigmaMeters = 6; $0.outlierProbability = 0; $0.seed = seed }
            let out = matchAll(f, drive.fixes)
            for (i, o) in out.enumerated() where o.osmWayID != f.way("Street") {
                Issue.record("seed \(seed): fix \(i) on way \(o.osmWayID), truth at \(drive.truth[i].offsetMeters) m")
            }
            // Without course and speed, the lack of a connection alone keeps it off the motorway.
            let bare = drive.fixes.map { LocationFix(coordinate: $0.coordinate, timestamp: $0.timestamp) }
            #expect(matchAll(f, bare).allSatisfy { $0.osmWayID != f.way("Motorway") }, "seed \(seed)")
        }
    }

    @Test func uTurnMidBlockFlipsTheDirection() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        var fixes: [LocationFix] = []
        // East at 10 m/s to 60 %, stop, then west back to 10 %.
        for i in 0...35 { fixes.append(fix(f.at("A", "B", Double(i) / 60, north: i % 2 == 0 ? 2 : -2), t: Double(i), speed: 10, course: 90)) }
        for i in 1...30 { fixes.append(fix(f.at("A", "B", (36 - Double(i)) / 60, north: i % 2 == 0 ? 2 : -2), t: 36 + Double(i), speed: 10, course: 270)) }
        let out = matchAll(f, fixes)
        #expect(out.count == fixes.count)
        #expect(out.allSatisfy { $0.osmWayID == f.way("Main") })
        #expect(out[5...30].allSatisfy { $0.edge == f.edges["AB"] && abs($0.courseDegrees - 90) < 5 })
        #expect(out[42...].allSatisfy { $0.edge == f.edges["BA"] && abs($0.courseDegrees - 270) < 5 })
    }

    @Test func roundaboutIsFollowedRoundAndLeftAtTheRightExit() throws {
        let f = try MatchingFixture("""
                      A
                      |
                      |
                      B
                    /   \\
            E------C     D------F
                    \\   /
                      G
                      |
                      H
            """, gridMeters: 10, roads: [
                FixtureRoad(nodes: "AB", name: "North"), FixtureRoad(nodes: "EC", name: "West"),
                FixtureRoad(nodes: "DF", name: "East"), FixtureRoad(nodes: "GH", name: "South"),
                FixtureRoad(nodes: "BCGDB", name: "Ring", oneway: true, speedLimitKph: 30, flags: .roundabout),
            ])
        for seed: UInt64 in 1...3 {
            let drive = f.drive("ABCGDF") {
                $0.positionSigmaMeters = 3; $0.outlierProbability = 0; $0.seed = seed; $0.stopProbabilityAtJunctions = 0
            }
            let out = matchAll(f, drive.fixes)
            #expect(wayAccuracy(out, drive) >= 0.9, "seed \(seed)")
            var sequence: [Int64] = []
            for o in out where sequence.last != o.osmWayID { sequence.append(o.osmWayID) }
            #expect(sequence == [f.way("North"), f.way("Ring"), f.way("East")], "seed \(seed)")
        }
    }

    @Test func loopRoundTheBlockIsFollowedTwice() throws {
        let f = try MatchingFixture("""
            A--------------------B
            |                    |
            |                    |
            |                    |
            |                    |
            |                    |
            |                    |
            |                    |
            D--------------------C
            """, roads: [
                FixtureRoad(nodes: "AB", name: "North"), FixtureRoad(nodes: "BC", name: "East"),
                FixtureRoad(nodes: "CD", name: "South"), FixtureRoad(nodes: "DA", name: "West"),
            ])
        for seed: UInt64 in 1...3 {
            let drive = f.drive("ABCDABCDA", margin: 10) {
                $0.positionSigmaMeters = 5; $0.outlierProbability = 0; $0.seed = seed; $0.stopProbabilityAtJunctions = 0
            }
            let out = matchAll(f, drive.fixes)
            #expect(wayAccuracy(out, drive) >= 0.95, "seed \(seed)")
            var sequence: [Int64] = []
            for o in out where sequence.last != o.osmWayID { sequence.append(o.osmWayID) }
            let names = ["North", "East", "South", "West", "North", "East", "South", "West"]
            #expect(sequence == names.map { f.way($0) }, "seed \(seed)")
            // Clockwise all the way: no output runs against the loop's direction.
            #expect(out.allSatisfy { o in ["AB", "BC", "CD", "DA"].contains { f.edges[$0] == o.edge } }, "seed \(seed)")
        }
    }

    @Test func singleOutlierNearAnotherRoadIsCoastedThrough() throws {
        let f = try MatchingFixture("""
            C----------------------------------------------------------D
            |                                                          |
            |                                                          |
            |                                                          |
            |                                                          |
            |                                                          |
            |                                                          |
            |                                                          |
            |                                                          |
            |                                                          |
            A----------------------------------------------------------B
            """, roads: [
                FixtureRoad(nodes: "AB", name: "South street"), FixtureRoad(nodes: "CD", name: "North street"),
                FixtureRoad(nodes: "AC", name: "West link"), FixtureRoad(nodes: "BD", name: "East link"),
            ])
        var fixes: [LocationFix] = []
        for i in 0..<40 {
            let fraction = Double(i) * 12 / 590
            // Fix 20 jumps 100 m north, right onto North street.
            fixes.append(fix(f.at("A", "B", fraction, north: i == 20 ? 100 : (i % 3 == 0 ? 3 : -2)), t: Double(i), speed: 12,
                             course: 90))
        }
        let out = matchAll(f, fixes)
        #expect(out.allSatisfy { $0.osmWayID == f.way("South street") })
        #expect(out[20].source == .deadReckoned)
        let before = out[19].edgeOffsetMeters, after = out[21].edgeOffsetMeters, at = out[20].edgeOffsetMeters
        #expect(at > before && at < after)
        #expect(out.filter { $0.source == .deadReckoned }.count == 1)

        // Without speed and course, at 5 s intervals, still rejected.
        var sparse: [LocationFix] = []
        for i in 0..<10 {
            sparse.append(fix(f.at("A", "B", Double(i) * 60 / 590, north: i == 5 ? 100 : 1), t: Double(i) * 5))
        }
        let outSparse = matchAll(f, sparse)
        #expect(outSparse.allSatisfy { $0.osmWayID == f.way("South street") })
    }

    @Test func tunnelGapIsBridgedWithoutAJump() throws {
        let f = try MatchingFixture("""
            A------------------B------------------------C--------------------D
                               |                        |
                               E                        G
            """, roads: [
                FixtureRoad(nodes: "AB", name: "Approach"), FixtureRoad(nodes: "BC", name: "Tunnel", flags: .tunnel),
                FixtureRoad(nodes: "CD", name: "Exit"), FixtureRoad(nodes: "BE", name: "Side 1"),
                FixtureRoad(nodes: "CG", name: "Side 2"),
            ])
        let drive = f.drive("ABCD") {
            $0.positionSigmaMeters = 5; $0.outlierProbability = 0; $0.seed = 11; $0.stopProbabilityAtJunctions = 0
        }
        #expect(!drive.droppedTruth.isEmpty, "the simulator drops fixes in the tunnel")
        let matcher = MapMatcher(index: f.index)
        var out: [SnappedLocation] = []
        var reckoned: SnappedLocation?
        for (i, fx) in drive.fixes.enumerated() {
            if i > 0, let gapStart = drive.droppedTruth.first, drive.fixes[i - 1].timestamp < gapStart.timestamp,
               fx.timestamp > gapStart.timestamp {
                // In the tunnel: dead reckoning keeps moving along the road.
                reckoned = matcher.deadReckonedLocation(at: gapStart.timestamp + 3)
            }
            out.append(contentsOf: matcher.update(fx).finalized)
        }
        out.append(contentsOf: matcher.finish())
        #expect(wayAccuracy(out, drive) >= 0.95)
        let r = try #require(reckoned)
        #expect(r.source == .deadReckoned && r.osmWayID == f.way("Tunnel"))
        // After the gap, consecutive positions move no more than the vehicle could.
        for i in 1..<out.count {
            let moved = Geodesy.distanceMeters(out[i - 1].coordinate, out[i].coordinate)
            let dt = out[i].timestamp - out[i - 1].timestamp
            #expect(moved <= 20 * dt + 10, "jump of \(moved) m in \(dt) s at fix \(i)")
        }
    }

    @Test func stoppedVehicleWithWanderingFixesStaysPut() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        let stop = f.at("A", "B", 0.5)
        let projection = LocalProjection(origin: stop)
        for withSpeed in [true, false] {
            var rng = SplitMix64(seed: 5)
            var fixes: [LocationFix] = []
            for i in 0..<60 {
                let p = projection.unproject(x: 6 * rng.normal(), y: 6 * rng.normal())
                fixes.append(fix(p, t: Double(i), speed: withSpeed ? 0 : nil))
            }
            let out = matchAll(f, fixes)
            let errors = out.map { Geodesy.distanceMeters($0.coordinate, stop) }
            let raw = fixes.map { Geodesy.distanceMeters($0.coordinate, stop) }
            #expect(percentile(errors, 0.5) < 3, "speed \(withSpeed)")
            #expect(errors.filter { $0 <= 10 }.count >= 57, "speed \(withSpeed)")
            #expect(percentile(errors, 0.5) < percentile(raw, 0.5) / 2)
            // No ratchet: the matched position does not creep forward.
            let lastTen = out.suffix(10).map(\.coordinate)
            #expect(lastTen.allSatisfy { Geodesy.distanceMeters($0, stop) < 6 })
        }
    }

    @Test func courseChoosesTheDirectionOfATwoWayRoad() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        let east = (0..<10).map { fix(f.at("A", "B", 0.3 + Double($0) / 60, north: 3), t: Double($0), speed: 10, course: 88) }
        #expect(matchAll(f, east).allSatisfy { $0.edge == f.edges["AB"] && abs($0.courseDegrees - 90) < 1 })
        let west = (0..<10).map { fix(f.at("A", "B", 0.7 - Double($0) / 60, north: 3), t: Double($0), speed: 10, course: 272) }
        #expect(matchAll(f, west).allSatisfy { $0.edge == f.edges["BA"] && abs($0.courseDegrees - 270) < 1 })
    }

    @Test func activeRouteIsPreferredButLeavingItIsSeen() throws {
        let f = try MatchingFixture("""
            A----------------------B---------------------------------C
                                     \\
                                       \\
                                         D-----------------------E
            """, roads: [
                FixtureRoad(nodes: "ABC", name: "Straight on"), FixtureRoad(nodes: "BDE", name: "Fork right"),
            ])
        let route = f.path("ABDE")
        // Following the route: on route throughout, progress grows.
        let onRoute = f.drive("ABDE") { $0.positionSigmaMeters = 5; $0.outlierProbability = 0; $0.seed = 2 }
        let out = matchAll(f, onRoute.fixes, routeEdges: route)
        #expect(wayAccuracy(out, onRoute) >= 0.95)
        #expect(Double(out.filter(\.isOnRoute).count) >= 0.95 * Double(out.count))
        let progress = out.compactMap(\.routeDistanceMeters)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $1 >= $0 - 15 })
        // Leaving it: straight on at B is matched to the road taken and reported off route.
        let off = f.drive("ABC") { $0.positionSigmaMeters = 5; $0.outlierProbability = 0; $0.seed = 2 }
        let outOff = matchAll(f, off.fixes, routeEdges: route)
        #expect(wayAccuracy(outOff, off) >= 0.9)
        #expect(outOff.suffix(10).allSatisfy { !$0.isOnRoute && $0.osmWayID == f.way("Straight on") })
    }

    @Test func walkingKeepsTheRawPositionButReportsTheRoad() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        let fixes = (0..<10).map { fix(f.at("A", "B", 0.2 + Double($0) / 300, north: 4), t: Double($0), speed: 1.4) }
        let out = matchAll(f, fixes, mode: .walking)
        #expect(out.count == 10)
        for (o, fx) in zip(out, fixes) {
            #expect(o.coordinate == fx.coordinate)
            #expect(o.matched && o.osmWayID == f.way("Main"))
        }
        let driving = matchAll(f, fixes, mode: .driving)
        #expect(driving.allSatisfy { Geodesy.distanceMeters($0.coordinate, f.at("A", "B", 0.2)) < 40 })
        #expect(zip(driving, fixes).allSatisfy { Geodesy.distanceMeters($0.coordinate, $1.coordinate) > 3 })
    }

    @Test func fixesFarFromAnyRoadAreUnmatchedAndTheTraceRestarts() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        var fixes = (0..<5).map { fix(f.at("A", "B", 0.1 + Double($0) / 60), t: Double($0), speed: 10) }
        fixes.append(contentsOf: (5..<12).map { fix(f.at("A", "B", 0.5, north: 2000), t: Double($0)) })
        fixes.append(contentsOf: (12..<20).map { fix(f.at("A", "B", 0.6 + Double($0 - 12) / 60), t: Double($0), speed: 10) })
        let out = matchAll(f, fixes)
        #expect(out.count == fixes.count)
        #expect(zip(out, fixes).allSatisfy { $0.timestamp == $1.timestamp })
        #expect(out[0..<5].allSatisfy { $0.matched })
        #expect(out[12...].allSatisfy { $0.matched && $0.osmWayID == f.way("Main") })
        // Coasted through at first (they might be outliers); once too many, unmatched.
        #expect(out[5..<12].contains { !$0.matched })
        #expect(out[5..<12].allSatisfy { !$0.matched || $0.source == .deadReckoned })
    }

    @Test func finalAnswersComeExactlyLagFixesLate() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        var configuration = MapMatchingConfiguration()
        configuration.lagFixes = 4
        configuration.lagSeconds = 0
        let matcher = MapMatcher(index: f.index, configuration: configuration)
        for i in 0..<20 {
            let u = matcher.update(fix(f.at("A", "B", Double(i) / 60), t: Double(i), speed: 10))
            #expect(u.provisional.matched && u.provisional.timestamp == 1_700_000_000 + Double(i))
            if i < 4 {
                #expect(u.finalized.isEmpty)
            } else {
                #expect(u.finalized.count == 1)
                #expect(u.firstFinalizedIndex == i - 4)
                #expect(u.finalized.first?.timestamp == 1_700_000_000 + Double(i - 4))
            }
        }
        #expect(matcher.finish().count == 4)
    }

    /// The default lag is 20 s of fixes, at least 8 fixes and at most 30: fix n is final when the first fix both 20 s
    /// newer and 8 fixes later arrives (20 fixes later at 1 s, 8 at 5 s, 30 at 10 Hz), whatever the interval does in
    /// between.
    @Test func finalAnswersComeLagSecondsLate() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main")])
        let configuration = MapMatchingConfiguration()
        #expect(configuration.lagSeconds == 20 && configuration.lagFixes == 8 && configuration.maximumLagFixes == 30)
        // Times: 40 fixes 1 s apart, then 10 fixes 5 s apart, then 60 fixes 0.1 s apart.
        var times: [Double] = (0..<40).map(Double.init)
        times += (1...10).map { 39 + 5 * Double($0) }
        times += (1...60).map { 89 + 0.1 * Double($0) }
        let matcher = MapMatcher(index: f.index, configuration: configuration)
        var finalIndices: [Int] = []
        var lateBy: [Int: Int] = [:]  // fix index -> index of the update that made it final
        for (i, t) in times.enumerated() {
            let u = matcher.update(fix(f.at("A", "B", min(1, t / 200)), t: t, speed: 10))
            #expect(u.provisional.matched && u.provisional.timestamp == 1_700_000_000 + t)
            for k in u.finalized.indices {
                finalIndices.append(u.firstFinalizedIndex + k)
                lateBy[u.firstFinalizedIndex + k] = i
            }
        }
        finalIndices += Array(finalIndices.count..<(finalIndices.count + matcher.finish().count))
        #expect(finalIndices == Array(times.indices))  // every fix once, in order
        for n in times.indices {
            guard let at = lateBy[n] else { continue }
            // Final at the first update that is both 8 fixes later and 20 s newer, or 30 fixes later.
            let due = times.indices.first { i in i - n >= 30 || (i - n >= 8 && times[i] - times[n] >= 20) }
            #expect(at == due, "fix \(n) at \(times[n]) s final at update \(at), expected \(String(describing: due))")
        }
        #expect(lateBy[0] == 20)  // 1 s fixes: 20 fixes
        #expect(lateBy[41] == 49)  // 5 s fixes: 8 fixes
        #expect(lateBy[60] == 90)  // 0.1 s fixes: capped at 30 fixes later
    }
}
