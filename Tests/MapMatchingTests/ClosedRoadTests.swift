import Geo
import RoadGraph
import Testing
import TraceSimulation

@testable import MapMatching

/// Roads closed to cars by their tags (motor_vehicle=no, access=no, pedestrian streets): a vehicle really on one
/// (a delivery van in a pedestrian zone, a traffic simulator that ignores the tag) is matched there, at a cost
/// (`MapMatchingConfiguration.closedRoadPenalty`), and an open road that fits always wins.
@Suite struct ClosedRoadTests {
    static let closedAccess: ModeMask = [.walking, .cycling]

    /// Simulated drives along `letters` with seeds 1–6, at 1 s and at 5 s fixes.
    static func drives(_ f: MatchingFixture, _ letters: String, margin: Double) -> [SimulatedDrive] {
        (1...6).flatMap { (seed: UInt64) in
            [1.0, 5.0].map { interval in
                f.drive(letters, margin: margin) {
                    $0.seed = seed
                    $0.fixIntervalSeconds = interval
                }
            }
        }
    }

    /// Main runs west–east along the bottom; the Lane (motor_vehicle=no) leaves it at B and runs north, 40–200 m
    /// from any open road, to C and D. Grid 10 m.
    static func laneFixture() throws -> MatchingFixture {
        try MatchingFixture(
            """
                                      D
                                      |
                                      |
                                      |
                                      |
                                      |
                                      C
                                      |
                                      |
                                      |
                                      |
                                      |
                                      |
            A-------------------------B-------------------------E
            """,
            roads: [FixtureRoad(nodes: "ABE", name: "Main"),
                    FixtureRoad(nodes: "BCD", name: "Lane", access: closedAccess)])
    }

    @Test func aVehicleOnARoadClosedToCarsIsMatchedThere() throws {
        let f = try Self.laneFixture()
        var closedRoadsOff = MapMatchingConfiguration()
        closedRoadsOff.closedRoadPenalty = .infinity
        var onLane = 0, onLaneWithout = 0, laneFixes = 0, flagged = 0
        for drive in Self.drives(f, "ABCD", margin: 5) {
            let out = matchAll(f, drive.fixes)
            let without = matchAll(f, drive.fixes, configuration: closedRoadsOff)
            #expect(out.count == drive.fixes.count)
            for (i, t) in drive.truth.enumerated() where t.osmWayID == f.way("Lane") && t.offsetMeters > 30 {
                laneFixes += 1
                if out[i].osmWayID == f.way("Lane") { onLane += 1 }
                if out[i].isOnClosedRoad { flagged += 1 }
                if without[i].osmWayID == f.way("Lane") { onLaneWithout += 1 }
            }
            // Main stays Main.
            for (i, t) in drive.truth.enumerated() where t.osmWayID == f.way("Main") && t.offsetMeters < 200 {
                #expect(!out[i].isOnClosedRoad)
            }
        }
        #expect(laneFixes > 40, "\(laneFixes) fixes on the lane")
        #expect(Double(onLane) >= 0.9 * Double(laneFixes), "\(onLane) of \(laneFixes) on the lane")
        #expect(flagged == onLane)
        // Control: without closed roads as candidates the lane's fixes go unmatched or onto Main.
        #expect(onLaneWithout == 0)
    }

    /// Street runs west–east to a bollard at X (cars may not pass, walkers and cyclists may), where Lane goes on
    /// east; Detour leaves Street at B and joins Lane at C, 30 m north. Grid 10 m.
    static func bollardFixture() throws -> MatchingFixture {
        try MatchingFixture(
            """
                      D---------------------E
                      |                     |
                      |                     |
                      |                     |
            A---------B----------X----------C---------F
            """,
            roads: [FixtureRoad(nodes: "ABX", name: "Street"), FixtureRoad(nodes: "XCF", name: "Lane"),
                    FixtureRoad(nodes: "BDEC", name: "Detour")],
            barriers: ["X": [.walking, .cycling]])
    }

    /// A vehicle that drives round the bollard stays on the detour: passing the bollard costs as a closed road does
    /// (the map-matching search passes a barrier closed to the mode only so that a vehicle seen driving through one
    /// is followed: `RealMapTests.aDriveThroughBarrierBlocksIsMatchedThrough`).
    @Test func aVehicleDrivingRoundTheBollardStaysOnTheDetour() throws {
        let f = try Self.bollardFixture()
        var fixes = 0, onDetour = 0
        for drive in Self.drives(f, "ABDECF", margin: 5) {
            let out = matchAll(f, drive.fixes)
            for (i, t) in drive.truth.enumerated() where t.osmWayID == f.way("Detour") && t.offsetMeters > 10
                && t.offsetMeters < 270 {
                fixes += 1
                if out[i].osmWayID == f.way("Detour") { onDetour += 1 }
            }
        }
        #expect(fixes > 100, "\(fixes) fixes on the detour")
        #expect(Double(onDetour) >= 0.95 * Double(fixes), "\(onDetour) of \(fixes) on the detour")
    }

    /// Main and the pedestrian Promenade (a closed street) run side by side 10 m apart for 500 m, joined at both
    /// ends, as an esplanade's carriageway and its pedestrian street. Grid 5 m.
    static func promenadeFixture() throws -> MatchingFixture {
        try MatchingFixture(
            """
            P---------------------------------------------------------------------------------------------------Q
            |                                                                                                   |
            A---------------------------------------------------------------------------------------------------B
            """, gridMeters: 5,
            roads: [FixtureRoad(nodes: "AB", name: "Main"),
                    FixtureRoad(nodes: "APQB", name: "Promenade", highwayClass: .pedestrian,
                                access: [.walking])])
    }

    @Test func anOpenRoadThatFitsWinsOverAClosedOneBesideIt() throws {
        let f = try Self.promenadeFixture()
        var noCost = MapMatchingConfiguration()
        noCost.closedRoadPenalty = 0
        noCost.closedRoadLengthFactor = 1
        noCost.minorRoadPenalty = 0
        var closedRoadsOff = MapMatchingConfiguration()
        closedRoadsOff.closedRoadPenalty = .infinity
        var fixes = 0, onMain = 0, onMainWithout = 0, onPromenade = 0, onPromenadeWithoutCost = 0
        for drive in Self.drives(f, "AB", margin: 10) {
            let out = matchAll(f, drive.fixes)
            let without = matchAll(f, drive.fixes, configuration: closedRoadsOff)
            let free = matchAll(f, drive.fixes, configuration: noCost)
            fixes += out.count
            onMain += out.filter { $0.osmWayID == f.way("Main") }.count
            onMainWithout += without.filter { $0.osmWayID == f.way("Main") }.count
            onPromenade += out.filter { $0.osmWayID == f.way("Promenade") }.count
            onPromenadeWithoutCost += free.filter { $0.osmWayID == f.way("Promenade") }.count
        }
        // With the closed street offered, the vehicle stays on Main as when it is not offered at all.
        #expect(onPromenade == 0, "\(onPromenade) of \(fixes) on the promenade")
        #expect(onMain >= onMainWithout - 1, "\(onMain) vs \(onMainWithout) of \(fixes)")
        // Control: the cost is what keeps it there (a closed street offered for free attracts noisy fixes).
        #expect(onPromenadeWithoutCost > onPromenade, "\(onPromenadeWithoutCost) without the cost")
    }

    /// One-way Main (west to east) with a contraflow cycle lane (the reverse edge open to bicycles only), a
    /// footway beside it and a closed residential street: only the street counts as closed to cars.
    @Test func onlyRoadsClosedByTagCountAsClosedRoads() throws {
        let f = try MatchingFixture(
            """
            A---------B---------C
                                |
            F---------G         D
            """,
            roads: [FixtureRoad(nodes: "AB", name: "Main", access: [.driving, .taxi, .twoWheeler, .cycling],
                                backwardAccess: [.cycling]),
                    FixtureRoad(nodes: "FG", name: "Footway", highwayClass: .footway, access: [.walking, .cycling]),
                    FixtureRoad(nodes: "BCD", name: "Closed", access: Self.closedAccess)])
        let index = f.index
        #expect(!index.isClosedRoad(f.edges["AB"]!, for: .driving))
        #expect(index.graph.reverseEdge(of: f.edges["AB"]!) == f.edges["BA"]!)
        #expect(!index.isClosedRoad(f.edges["BA"]!, for: .driving))  // the contraflow: Main is open, one way
        #expect(!index.isClosedRoad(f.edges["FG"]!, for: .driving))
        #expect(!index.isClosedRoad(f.edges["GF"]!, for: .driving))
        #expect(index.isClosedRoad(f.edges["BC"]!, for: .driving))
        #expect(index.isClosedRoad(f.edges["DC"]!, for: .taxi))
        #expect(!index.isClosedRoad(f.edges["BC"]!, for: .walking))
    }
}
