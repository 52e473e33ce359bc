import Foundation
import Geo
import RoadGraph
import Routing
import Testing
import TraceSimulation

@testable import MapMatching

/// The simulator's traffic-like options (`DriveSimulationConfiguration.lanes`, `.queueing`): the truth in a lane right
/// of the centre line, and stops spread before the stop line with creeping. Each has a control without the option.
@Suite struct DriveSimulatorTests {
    /// A two-way residential street A–B–C (B a junction with D), and a oneway primary road E–F.
    static let map = """
        A-----------------------------------B--------------C
                                            |
                                            D
        E--------------------------------------------------F
        """

    static func fixture(country: String? = nil) throws -> MatchingFixture {
        try MatchingFixture(Self.map, roads: [
            FixtureRoad(nodes: "AB", name: "West", flags: .trafficSignalsAtTarget),
            FixtureRoad(nodes: "BC", name: "East"),
            FixtureRoad(nodes: "BD", name: "South"),
            FixtureRoad(nodes: "EF", name: "Primary", oneway: true, speedLimitKph: 70, highwayClass: .primary),
        ], country: country)
    }

    /// Signed distance of `p` to the right of the edge's line at the truth's offset, metres.
    static func rightOffset(_ f: MatchingFixture, _ t: TruthSample) -> Double {
        let centre = f.index.point(on: t.edge, at: t.offsetMeters)
        let (x, y) = LocalProjection(origin: centre).project(t.coordinate)
        let theta = f.index.bearing(on: t.edge, at: t.offsetMeters) * .pi / 180
        return x * cos(theta) - y * sin(theta)
    }

    @Test func onATwoWayStreetTheTruthDrivesRightOfTheCentreLine() throws {
        let f = try Self.fixture()
        let plain = f.drive("ABC", margin: 5) { $0.positionSigmaMeters = 0; $0.outlierProbability = 0 }
        let lanes = f.drive("ABC", margin: 5) {
            $0.positionSigmaMeters = 0
            $0.outlierProbability = 0
            $0.lanes = LaneModel()
        }
        #expect(!plain.truth.isEmpty && !lanes.truth.isEmpty)
        for t in plain.truth { #expect(abs(Self.rightOffset(f, t)) < 0.05) }
        // One lane each way: 1.6 m right of the centre line (after the first fix, whatever the direction).
        for t in lanes.truth {
            #expect(abs(Self.rightOffset(f, t) - 1.6) < 0.05)
            #expect(abs(t.laneOffsetMeters - 1.6) < 1e-9)
        }
        // Driven back, the truth is on the other side of the drawn line.
        let back = f.drive("CBA", margin: 5) { $0.positionSigmaMeters = 0; $0.lanes = LaneModel() }
        let y0 = f["A"].latitude
        #expect(back.truth.allSatisfy { $0.coordinate.latitude > y0 })
        #expect(lanes.truth.allSatisfy { $0.coordinate.latitude < y0 })
    }

    @Test func whereTrafficKeepsLeftTheTruthDrivesLeftOfTheCentreLine() throws {
        let f = try Self.fixture(country: "GB")
        let lanes = f.drive("ABC", margin: 5) {
            $0.positionSigmaMeters = 0
            $0.outlierProbability = 0
            $0.lanes = LaneModel()
        }
        #expect(!lanes.truth.isEmpty)
        for t in lanes.truth {
            #expect(abs(Self.rightOffset(f, t) + 1.6) < 0.05)
            #expect(abs(t.laneOffsetMeters + 1.6) < 1e-9)
        }
    }

    @Test func onAOnewayPrimaryTheLanesAreCentredOnTheLine() throws {
        let f = try Self.fixture()
        var laneModel = LaneModel()
        laneModel.laneChangeProbabilityPerEdge = 1
        let drive = f.drive("EF", margin: 5) { $0.positionSigmaMeters = 0; $0.lanes = laneModel }
        let offsets = drive.truth.map { Self.rightOffset(f, $0) }
        // Two lanes: ±1.6 m.
        #expect(offsets.allSatisfy { abs(abs($0) - 1.6) < 0.05 })
        #expect(laneModel.lanesPerDirection(of: .primary, oneway: true) == 2)
        #expect(laneModel.lanesPerDirection(of: .motorway, oneway: false) == 2)
        #expect(abs(laneModel.offsetMeters(lane: 1, lanes: 2, oneway: false) - 4.8) < 1e-9)
    }

    /// Stops at the signal at B: without queueing at the stop line (2 m before B); with it spread up to 50 m before,
    /// with forward creeps during the stop.
    @Test func queuedStopsSpreadBeforeTheStopLineAndCreep() throws {
        let f = try Self.fixture()
        let signalAt = f.index.length(of: f.edges["AB"]!)
        var lineStops: [Double] = []
        var queueStops: [Double] = []
        var creeps = 0
        for seed: UInt64 in 1...20 {
            func configure(_ c: inout DriveSimulationConfiguration, queue: Bool) {
                c.seed = seed
                c.stopProbabilityAtSignals = 1
                c.stopDurationSeconds = 20...30
                if queue { c.queueing = QueueModel() }
            }
            let line = f.drive("ABC", margin: 5) { configure(&$0, queue: false) }
            let queued = f.drive("ABC", margin: 5) { configure(&$0, queue: true) }
            for t in line.truth where t.isStopped && t.distanceMeters > 1 && t.edge == f.edges["AB"]! { lineStops.append(signalAt - t.offsetMeters) }
            var standing: [Double] = []
            for t in queued.truth where t.isStopped && t.distanceMeters > 1 && t.distanceMeters < queued.truth.last!.distanceMeters - 1 {
                standing.append(signalAt - t.offsetMeters)
            }
            queueStops.append(contentsOf: standing)
            // A creep: standing again further on after moving.
            if let first = standing.first, let last = standing.last, first - last > 1 { creeps += 1 }
        }
        #expect(lineStops.allSatisfy { abs($0 - 2) < 0.6 }, "\(lineStops.filter { abs($0 - 2) >= 0.6 })")
        #expect(queueStops.allSatisfy { $0 >= 1.4 && $0 <= 52.6 })
        #expect(queueStops.contains { $0 > 20 })
        #expect(creeps >= 5)
    }

    @Test func theTrafficLikePresetTurnsBothOnAndDrivesSlower() {
        let t = DriveSimulationConfiguration.trafficLike
        #expect(t.lanes != nil && t.queueing != nil)
        #expect(t.cruiseFraction.upperBound < DriveSimulationConfiguration().cruiseFraction.upperBound)
        #expect(DriveSimulationConfiguration().lanes == nil && DriveSimulationConfiguration().queueing == nil)
    }
}

/// `DriveSimulationConfiguration.signalJunctions`: a vehicle waits once at a junction whose approaches OSM tags with
/// several signal nodes.
@Suite struct SignalStopTests {
    /// A dual carriageway E–G / F–H crossed at B and C, 30 m apart, a signal on each carriageway.
    static let map = """
                            E  F
                            |  |
        A-------------------B--C------------D
                            |  |
                            G  H
        """

    static func stops(_ signalJunctions: SignalJunctions?) throws -> Int {
        let f = try MatchingFixture(Self.map, roads: [
            FixtureRoad(nodes: "AB", name: "West", flags: .trafficSignalsAtTarget),
            FixtureRoad(nodes: "BC", name: "Between", flags: .trafficSignalsAtTarget),
            FixtureRoad(nodes: "CD", name: "East"),
            FixtureRoad(nodes: "EBG", name: "North carriageway"),
            FixtureRoad(nodes: "FCH", name: "South carriageway"),
        ])
        let drive = f.drive("ABCD", margin: 5) {
            $0.positionSigmaMeters = 0
            $0.outlierProbability = 0
            $0.stopProbabilityAtSignals = 1
            $0.stopProbabilityAtJunctions = 0
            $0.stopDurationSeconds = 10...10
            $0.signalJunctions = signalJunctions
        }
        // Runs of standing truth samples after the start (which is from standstill) and before the end.
        var runs = 0
        var standing = false
        for t in drive.truth.drop(while: { $0.isStopped }).dropLast(3) {
            if t.isStopped && !standing { runs += 1 }
            standing = t.isStopped
        }
        return runs
    }

    @Test func oneJunctionOneStop() throws {
        #expect(try Self.stops(SignalJunctions()) == 1)
        // Control: every signal node a junction of its own, as before.
        #expect(try Self.stops(nil) == 2)
    }
}
