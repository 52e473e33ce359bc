import Foundation
import Geo
import RoadGraph
import Testing
import TestKit
@testable import OSMImport

/// One small drawn map per tagging rule, imported through the real libosmium path.
@Suite struct OnewayFixtureTests {
    static let line = "A---B---C"

    func imported(_ tags: [String: String]) throws -> ImportedFixture {
        try ImportedFixture(ASCIIMapFixture(Self.line, ways: ["ABC": tags]))
    }

    @Test func onewayYesIsForwardOnlyForVehiclesButNotWalkers() throws {
        for value in ["yes", "1", "true"] {
            let f = try imported(["highway": "residential", "oneway": value])
            #expect(f.access("A", "B") == .all, "oneway=\(value)")
            #expect(f.access("C", "B") == [.walking], "oneway=\(value)")
            #expect(f.graph.flags(of: f.edge("A", "B")!).contains(.oneway))
        }
    }

    @Test func onewayMinusOneIsBackwardOnly() throws {
        let f = try imported(["highway": "residential", "oneway": "-1"])
        #expect(f.access("A", "B") == [.walking])
        #expect(f.access("C", "B") == .all)
    }

    @Test func onewayNoIsTwoWay() throws {
        let f = try imported(["highway": "residential", "oneway": "no"])
        #expect(f.access("A", "B") == .all && f.access("C", "B") == .all)
        #expect(!f.graph.flags(of: f.edge("A", "B")!).contains(.oneway))
    }

    @Test func reversibleIsClosedToVehicles() throws {
        let f = try imported(["highway": "primary", "oneway": "reversible"])
        #expect(f.access("A", "B") == [.walking])
        #expect(f.access("C", "B") == [.walking])
    }

    @Test func onewayBicycleNoAndOppositeCyclewayOpenContraflowForBikes() throws {
        for extra in [["oneway:bicycle": "no"], ["cycleway": "opposite_lane"], ["cycleway": "opposite"],
                      ["cycleway:left": "opposite_track"], ["cycleway:left:oneway": "-1"]] {
            var tags = ["highway": "residential", "oneway": "yes"]
            tags.merge(extra) { $1 }
            let f = try imported(tags)
            #expect(f.access("C", "B") == [.walking, .cycling], "\(extra)")
            #expect(f.access("A", "B") == .all)
        }
    }

    @Test func onewayBicycleYesOnATwoWayStreet() throws {
        let f = try imported(["highway": "residential", "oneway:bicycle": "yes"])
        #expect(f.access("C", "B") == [.driving, .taxi, .twoWheeler, .walking])
    }

    @Test func roundaboutImpliesOnewayAndFlag() throws {
        let f = try ImportedFixture(ASCIIMapFixture("""
            A---B
            |   |
            D---C
            """, ways: ["ABCDA": ["highway": "primary", "junction": "roundabout"]]))
        let ab = try #require(f.edge("A", "B"))
        #expect(f.graph.flags(of: ab).contains(.roundabout))
        #expect(f.graph.access(of: ab).contains(.driving))
        // A closed way is one loop edge per direction from its only graph node A (B, C, D are shape points).
        #expect(f.graph.nodeCount == 1)
        #expect(f.access("A", "D") == [.walking])
    }

    @Test func motorwayImpliesOnewayAndHighwayFlagAndNoWalkers() throws {
        let f = try imported(["highway": "motorway", "ref": "E18"])
        let ab = try #require(f.edge("A", "B"))
        #expect(f.graph.access(of: ab) == [.driving, .taxi, .twoWheeler])
        #expect(f.edge("C", "B") == nil)
        #expect(f.graph.flags(of: ab).contains(.highway))
        #expect(f.graph.ref(of: ab) == "E18")
    }

    @Test func directionalAccessTags() throws {
        let f = try imported(["highway": "residential", "motor_vehicle:backward": "no"])
        #expect(f.access("A", "B") == .all)
        #expect(f.access("C", "B") == [.cycling, .walking])
        let g = try imported(["highway": "residential", "oneway": "yes", "bicycle:backward": "no", "oneway:bicycle": "no"])
        #expect(g.access("C", "B") == [.walking])
        let h = try imported(["highway": "busway", "psv:forward": "yes"])
        #expect(h.access("A", "B") == [.taxi])
        #expect(h.edge("C", "B") == nil)
    }

    @Test func taxiMayUseContraflowPsvLane() throws {
        let f = try imported(["highway": "residential", "oneway": "yes", "oneway:psv": "no"])
        #expect(f.access("C", "B") == [.walking, .taxi])
    }
}

@Suite struct AccessFixtureTests {
    func access(_ tags: [String: String]) throws -> ModeMask {
        let f = try ImportedFixture(ASCIIMapFixture("A---B", ways: ["AB": tags]))
        return f.access("A", "B")
    }

    @Test func accessPerMode() throws {
        #expect(try access(["highway": "residential"]) == .all)
        #expect(try access(["highway": "residential", "access": "no", "foot": "yes"]) == [.walking])
        #expect(try access(["highway": "residential", "motor_vehicle": "no"]) == [.cycling, .walking])
        #expect(try access(["highway": "residential", "motorcar": "no"]) == [.cycling, .walking, .twoWheeler])
        #expect(try access(["highway": "residential", "motorcycle": "no"]) == [.driving, .taxi, .cycling, .walking])
        #expect(try access(["highway": "residential", "bicycle": "no"]) == [.driving, .taxi, .twoWheeler, .walking])
        #expect(try access(["highway": "residential", "bicycle": "use_sidepath"]) == [.driving, .taxi, .twoWheeler, .walking])
        #expect(try access(["highway": "residential", "vehicle": "no"]) == [.walking])
        #expect(try access(["highway": "residential", "access": "destination"]) == .all)
        #expect(try access(["highway": "service", "access": "private", "foot": "yes"]) == [.walking])
        #expect(try access(["highway": "footway"]) == [.walking])
        #expect(try access(["highway": "footway", "bicycle": "yes"]) == [.walking, .cycling])
        #expect(try access(["highway": "pedestrian"]) == [.walking])
        #expect(try access(["highway": "cycleway"]) == [.walking, .cycling])
        #expect(try access(["highway": "cycleway", "foot": "no"]) == [.cycling])
        #expect(try access(["highway": "path"]) == [.walking, .cycling])
        #expect(try access(["highway": "steps"]) == [.walking])
        #expect(try access(["highway": "track"]) == [.walking, .cycling])
        #expect(try access(["highway": "track", "motor_vehicle": "yes"]) == .all)
        #expect(try access(["highway": "trunk", "motorroad": "yes"]) == [.driving, .taxi, .twoWheeler])
        #expect(try access(["highway": "service", "service": "emergency_access"]) == [.cycling, .walking])
        // Destination-type access opens road classes, but never turns a cycleway or footway into a car route.
        #expect(try access(["highway": "residential", "motor_vehicle": "destination"]) == .all)
        #expect(try access(["highway": "cycleway", "motorcar": "destination"]) == [.cycling, .walking])
        #expect(try access(["highway": "track", "motor_vehicle": "delivery"]) == [.cycling, .walking])
        #expect(try access(["highway": "track", "motor_vehicle": "yes"]) == .all)
    }

    @Test func buswayIsForTaxisOnlyWhenTaggedForThem() throws {
        #expect(throws: OSMImportError.self) { _ = try access(["highway": "busway"]) }  // bus only: nothing we route
        #expect(try access(["highway": "busway", "taxi": "yes"]) == [.taxi])
        #expect(try access(["highway": "busway", "psv": "yes"]) == [.taxi])
        #expect(try access(["highway": "residential", "access": "no", "bus": "yes", "psv": "yes"]) == [.taxi])
        // A street for buses only is a road a car could drive: kept, closed to every mode we route (a closed road).
        #expect(try access(["highway": "residential", "access": "no", "bus": "yes"]) == [])
    }

    @Test func skippedWaysAreCountedByReason() throws {
        let f = try ImportedFixture(ASCIIMapFixture("""
            A---B---C
            D---E---F
            G---H---I
            J---K---L
            """, ways: ["ABC": ["highway": "residential"], "DEF": ["highway": "pedestrian", "area": "yes"],
                        "GHI": ["highway": "construction"], "JKL": ["highway": "footway", "access": "no"]]))
        #expect(f.summary.waysKept == 1)
        #expect(f.summary.closedRoadWays == 0)
        #expect(f.summary.waysSkipped == ["area": 1, "unsupported_highway": 1, "no_access": 1])
        #expect(f.node("D") == nil && f.node("G") == nil && f.node("J") == nil)
    }

    @Test func aRoadClosedToEveryModeIsKeptAsAClosedRoad() throws {
        // access=private or access=no on a road a car could drive: edges with no mode, in the one-way direction only
        // when it is one way (`RoadWay.closedRoadForward`); the same tags on a footway or a reversible road: skipped.
        let f = try ImportedFixture(ASCIIMapFixture("""
            A---B---C
            D---E---F
            G---H---I
            J---K---L
            """, ways: ["ABC": ["highway": "residential", "access": "private"],
                        "DEF": ["highway": "service", "access": "no", "oneway": "yes"],
                        "GHI": ["highway": "footway", "access": "private"],
                        "JKL": ["highway": "residential", "access": "private", "oneway": "reversible"]]))
        #expect(f.summary.waysKept == 2)
        #expect(f.summary.closedRoadWays == 2)
        #expect(f.summary.waysSkipped == ["no_access": 2])
        #expect(f.edge("A", "B") != nil && f.edge("C", "B") != nil && f.access("A", "B") == [] && f.access("C", "B") == [])
        #expect(f.edge("D", "E") != nil && f.edge("F", "E") == nil && f.access("D", "E") == [])
        #expect(f.node("G") == nil && f.node("J") == nil)
    }
}

@Suite struct NodeFixtureTests {
    func imported(barrier tags: [String: String]) throws -> ImportedFixture {
        try ImportedFixture(ASCIIMapFixture("A---B---C", ways: ["ABC": ["highway": "residential"]], nodes: ["B": tags]))
    }

    func passage(_ f: ImportedFixture) -> ModeMask {
        let ab = f.edge("A", "B")!, bc = f.edge("B", "C")!
        return ModeMask(TravelMode.allCases.filter { f.graph.isTurnAllowed(from: ab, to: bc, mode: $0) })
    }

    @Test func barriersSplitWaysAndBlockPerMode() throws {
        let bollard = try imported(barrier: ["barrier": "bollard"])
        #expect(bollard.node("B") != nil, "a barrier becomes a graph node")
        #expect(passage(bollard) == [.cycling, .walking])
        // The car may still reach the bollard and turn back.
        #expect(bollard.graph.isTurnAllowed(from: bollard.edge("A", "B")!, to: bollard.edge("B", "A")!, mode: .driving))
        #expect(passage(try imported(barrier: ["barrier": "gate"])) == .all)
        #expect(passage(try imported(barrier: ["barrier": "lift_gate", "access": "private", "foot": "yes"])) == [.walking])
        #expect(passage(try imported(barrier: ["barrier": "kissing_gate"])) == [.walking])
        #expect(passage(try imported(barrier: ["barrier": "cycle_barrier"])) == [.cycling, .walking])
        #expect(passage(try imported(barrier: ["barrier": "bollard", "motorcycle": "yes"])) == [.cycling, .walking, .twoWheeler])
        #expect(passage(try imported(barrier: ["barrier": "gate", "locked": "yes"])) == [])
        #expect(passage(try imported(barrier: ["barrier": "wall"])) == [])
        #expect(passage(try imported(barrier: ["barrier": "toll_booth"])) == .all)
    }

    @Test func trafficSignalsFlagEdgesIntoTheNode() throws {
        let f = try imported(barrier: ["highway": "traffic_signals"])
        #expect(f.graph.flags(of: f.edge("A", "B")!).contains(.trafficSignalsAtTarget))
        #expect(f.graph.flags(of: f.edge("C", "B")!).contains(.trafficSignalsAtTarget))
        #expect(!f.graph.flags(of: f.edge("B", "C")!).contains(.trafficSignalsAtTarget))
        #expect(f.summary.trafficSignalNodes == 1)
    }

    @Test func plainShapeNodesDoNotBecomeGraphNodes() throws {
        let f = try ImportedFixture(ASCIIMapFixture("A---B---C", ways: ["ABC": ["highway": "residential", "name": "Iso Roobertinkatu"]]))
        #expect(f.graph.nodeCount == 2)
        #expect(f.graph.edgeCount == 2)
        let ac = try #require(f.edge("A", "B"))
        #expect(f.graph.geometry(of: ac).count == 3)
        #expect(abs(f.graph.lengthMeters(of: ac) - 80) < 0.1)
        #expect(f.graph.name(of: ac) == "Iso Roobertinkatu")
        #expect(f.graph.osmWayID(of: ac) == 1)
        #expect(f.graph.reverseEdge(of: ac) != nil)
    }
}

@Suite struct RestrictionFixtureTests {
    //      D
    //      |
    //  A---B---C
    //      |
    //      E
    static let cross = """
            D
            |
        A---B---C
            |
            E
        """
    static let ways: KeyValuePairs<String, [String: String]> = [
        "AB": ["highway": "residential"], "BC": ["highway": "residential"],
        "DB": ["highway": "residential"], "BE": ["highway": "residential"],
    ]

    func imported(_ relations: [ASCIIMapRelation]) throws -> ImportedFixture {
        try ImportedFixture(ASCIIMapFixture(Self.cross, ways: Self.ways, relations: relations))
    }

    func allowed(_ f: ImportedFixture, _ from: (Character, Character), _ to: (Character, Character), _ mode: TravelMode = .driving) -> Bool {
        f.graph.isTurnAllowed(from: f.edge(from.0, from.1)!, to: f.edge(to.0, to.1)!, mode: mode)
    }

    @Test func noLeftTurn() throws {
        // Travelling east A→B, north (towards D) is a left turn.
        let f = try imported([.restriction("no_left_turn", from: "AB", via: "B", to: "DB")])
        #expect(f.summary.restrictionsApplied == 1)
        #expect(!allowed(f, ("A", "B"), ("B", "D")))
        #expect(!allowed(f, ("A", "B"), ("B", "D"), .cycling))
        #expect(allowed(f, ("A", "B"), ("B", "D"), .walking))
        #expect(allowed(f, ("A", "B"), ("B", "C")))
        #expect(allowed(f, ("A", "B"), ("B", "E")))
        #expect(allowed(f, ("C", "B"), ("B", "D")))
    }

    @Test func onlyStraightOn() throws {
        let f = try imported([.restriction("only_straight_on", from: "AB", via: "B", to: "BC")])
        #expect(allowed(f, ("A", "B"), ("B", "C")))
        #expect(!allowed(f, ("A", "B"), ("B", "D")))
        #expect(!allowed(f, ("A", "B"), ("B", "E")))
        #expect(allowed(f, ("A", "B"), ("B", "E"), .walking))
    }

    @Test func exceptAndModeSpecificKeys() throws {
        let f = try imported([.restriction("no_right_turn", from: "AB", via: "B", to: "BE", extraTags: ["except": "bicycle;psv"])])
        #expect(!allowed(f, ("A", "B"), ("B", "E"), .driving))
        #expect(!allowed(f, ("A", "B"), ("B", "E"), .twoWheeler))
        #expect(allowed(f, ("A", "B"), ("B", "E"), .cycling))
        #expect(allowed(f, ("A", "B"), ("B", "E"), .taxi))
        let bikes = try imported([.restriction("no_right_turn", from: "AB", via: "B", to: "BE", key: "restriction:bicycle")])
        #expect(allowed(bikes, ("A", "B"), ("B", "E"), .driving))
        #expect(!allowed(bikes, ("A", "B"), ("B", "E"), .cycling))
        let cars = try imported([.restriction("no_right_turn", from: "AB", via: "B", to: "BE", key: "restriction:motorcar")])
        #expect(!allowed(cars, ("A", "B"), ("B", "E"), .driving))
        #expect(!allowed(cars, ("A", "B"), ("B", "E"), .taxi))
        #expect(allowed(cars, ("A", "B"), ("B", "E"), .twoWheeler))
    }

    @Test func noUTurnAndDeadEndUTurns() throws {
        let f = try imported([])
        #expect(!allowed(f, ("A", "B"), ("B", "A")), "no U-turn at a junction")
        // A is a dead end: turning back is allowed.
        let ba = f.edge("B", "A")!, ab = f.edge("A", "B")!
        #expect(f.graph.isTurnAllowed(from: ba, to: ab, mode: .driving))
    }

    @Test func unsupportedRestrictionsAreCountedNotApplied() throws {
        let f = try imported([
            ASCIIMapRelation(tags: ["type": "restriction", "restriction": "no_left_turn"],
                             members: [.way("AB", role: "from"), .way("BC", role: "via"), .way("DB", role: "to")]),
            .restriction("no_left_turn", from: "AB", via: "B", to: "DB", key: "restriction:conditional"),
            .restriction("no_left_turn", from: "AB", via: "B", to: "DB", key: "restriction:hgv"),
            .restriction("give_way", from: "AB", via: "B", to: "DB"),
            .restriction("no_left_turn", from: "AB", via: "D", to: "BC"),
        ])
        #expect(f.summary.restrictionsApplied == 0)
        #expect(f.summary.restrictionsSkipped == ["via_way": 1, "conditional": 1, "not_for_our_modes": 1, "unknown_value": 1, "not_at_via": 1])
        #expect(allowed(f, ("A", "B"), ("B", "D")))
    }
}

@Suite struct SpeedFixtureTests {
    func edge(_ tags: [String: String], origin: Coordinate = ASCIIMap.defaultOrigin, backward: Bool = false) throws -> (RoadGraph, EdgeID) {
        let f = try ImportedFixture(ASCIIMapFixture("A---B", origin: origin, ways: ["AB": tags]))
        return (f.graph, try #require(backward ? f.edge("B", "A") : f.edge("A", "B")))
    }

    func limit(_ tags: [String: String], origin: Coordinate = ASCIIMap.defaultOrigin) throws -> Double? {
        let (g, e) = try edge(tags, origin: origin)
        return g.speedLimitKph(of: e)
    }

    @Test func everyMaxspeedForm() throws {
        #expect(try limit(["highway": "primary", "maxspeed": "50"]) == 50)
        #expect(try limit(["highway": "primary", "maxspeed": "60 km/h"]) == 60)
        #expect(try limit(["highway": "primary", "maxspeed": "30 mph"]) == 48.28)  // 48.28032, 0.01 km/h resolution
        #expect(try limit(["highway": "primary", "maxspeed": "FI:urban"]) == 50)
        #expect(try limit(["highway": "primary", "maxspeed": "FI:rural"]) == 80)
        #expect(try limit(["highway": "primary", "maxspeed": "DE:rural"]) == 100)
        #expect(try limit(["highway": "primary", "maxspeed": "RU:urban"]) == 60)
        #expect(try limit(["highway": "primary", "maxspeed": "DE:zone30"]) == 30)
        #expect(try limit(["highway": "living_street", "maxspeed": "walk"]) == 7)
        #expect(try limit(["highway": "primary", "maxspeed:type": "FI:rural"]) == 80)
        #expect(try limit(["highway": "primary", "source:maxspeed": "DE:urban"]) == 50)
        #expect(try limit(["highway": "primary", "maxspeed": "signals"]) == nil)
    }

    @Test func noneHasNoLimitButAFlag() throws {
        let (g, e) = try edge(["highway": "motorway", "maxspeed": "none"])
        #expect(g.speedLimitKph(of: e) == nil)
        #expect(g.flags(of: e).contains(.noSpeedLimit))
        #expect(g.freeFlowSpeedKph(of: e, mode: .driving) > 110)
    }

    @Test func forwardAndBackwardLimits() throws {
        let tags = ["highway": "secondary", "maxspeed:forward": "60", "maxspeed:backward": "40", "maxspeed": "50"]
        let (g, ab) = try edge(tags)
        let (g2, ba) = try edge(tags, backward: true)
        #expect(g.speedLimitKph(of: ab) == 60)
        #expect(g2.speedLimitKph(of: ba) == 40)
    }

    @Test func countryDefaultsAreInferredAndFlagged() throws {
        let (g, e) = try edge(["highway": "residential"])  // Helsinki origin → FI
        #expect(g.speedLimitKph(of: e) == 50)
        #expect(g.flags(of: e).contains(.speedLimitInferred))
        #expect(g.metadata.countryHint == "FI")
        let (tagged, te) = try edge(["highway": "residential", "maxspeed": "30"])
        #expect(!tagged.flags(of: te).contains(.speedLimitInferred))
        // A primary road could be urban or rural: unknown.
        #expect(try limit(["highway": "primary"]) == nil)
        // Baltimore → US: 25 mph residential.
        let baltimore = Coordinate(latitude: 39.29, longitude: -76.61)
        #expect(try limit(["highway": "residential"], origin: baltimore) == 40.23)
        // Germany: motorways have no general limit.
        let (de, deEdge) = try edge(["highway": "motorway"], origin: Coordinate(latitude: 50.1, longitude: 8.7))
        #expect(de.speedLimitKph(of: deEdge) == nil)
        #expect(de.flags(of: deEdge).isSuperset(of: [.noSpeedLimit, .speedLimitInferred]))
    }

    @Test func unreadableMaxspeedIsCountedAndUnknown() throws {
        let f = try ImportedFixture(ASCIIMapFixture("A---B", ways: ["AB": ["highway": "primary", "maxspeed": "fast"]]))
        #expect(f.summary.invalidMaxspeedWays == 1)
        #expect(f.graph.speedLimitKph(of: f.edge("A", "B")!) == nil)
    }

    @Test func freeFlowSpeedsFollowClassAndLimit() throws {
        let (g, e) = try edge(["highway": "primary", "maxspeed": "40"])
        #expect(g.freeFlowSpeedKph(of: e, mode: .driving) == 40)
        #expect(g.freeFlowSpeedKph(of: e, mode: .cycling) == 18)
        #expect(g.freeFlowSpeedKph(of: e, mode: .walking) == 5)
        let (g2, e2) = try edge(["highway": "primary"])
        #expect(g2.freeFlowSpeedKph(of: e2, mode: .driving) == 70)
        let (g3, e3) = try edge(["highway": "service", "service": "parking_aisle"])
        #expect(g3.freeFlowSpeedKph(of: e3, mode: .driving) == 10)
        let (g4, e4) = try edge(["highway": "steps"])
        #expect(g4.freeFlowSpeedKph(of: e4, mode: .walking) == 3)
        #expect(abs(g4.durationSeconds(of: e4, mode: .walking) - g4.lengthMeters(of: e4) / (3 / 3.6)) < 1e-6)
    }
}

@Suite struct FlagFixtureTests {
    @Test func tollTunnelBridge() throws {
        let f = try ImportedFixture(ASCIIMapFixture("A---B---C---D", ways: [
            "AB": ["highway": "primary", "toll": "yes"],
            "BC": ["highway": "primary", "tunnel": "yes"],
            "CD": ["highway": "primary", "bridge": "viaduct"],
        ]))
        #expect(f.graph.flags(of: f.edge("A", "B")!) == [.toll])
        #expect(f.graph.flags(of: f.edge("B", "C")!) == [.tunnel])
        #expect(f.graph.flags(of: f.edge("C", "D")!) == [.bridge])
    }

    @Test func ferryWithDurationGetsItsSpeedForEveryMode() throws {
        // 200 m in 1 minute = 12 km/h.
        let f = try ImportedFixture(ASCIIMapFixture("A-------------------B", ways: [
            "AB": ["route": "ferry", "duration": "00:01", "name": "Suomenlinna"],
        ]))
        let e = try #require(f.edge("A", "B"))
        #expect(f.graph.flags(of: e).contains(.ferry))
        #expect(f.graph.highwayClass(of: e) == .ferry)
        #expect(f.graph.access(of: e) == .all)
        #expect(abs(f.graph.freeFlowSpeedKph(of: e, mode: .driving) - 12) < 0.01)
        #expect(abs(f.graph.freeFlowSpeedKph(of: e, mode: .walking) - 12) < 0.01)
        let noCars = try ImportedFixture(ASCIIMapFixture("A---B", ways: ["AB": ["route": "ferry", "motor_vehicle": "no"]]))
        #expect(noCars.access("A", "B") == [.cycling, .walking])
        #expect(noCars.graph.freeFlowSpeedKph(of: noCars.edge("A", "B")!, mode: .cycling) == 20)
    }
}
