import Foundation
import Geo
import Navigation
import RoadGraph
import Routing
import Testing

@Suite struct CruiseSpeedTests {
    /// One straight 400 m way (no junction on it): the leg's duration is its length over the cruise speed.
    private func legSeconds(_ way: DrawnRoads.Way, configuration: NavigatorConfiguration = NavigatorConfiguration())
        throws -> Double
    {
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [way])
        let nav = roads.navigator(configuration: configuration)
        nav.timeUpdateThresholdSeconds = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
        return try #require(nav.currentRouteLeg).durationSeconds
    }

    private let noCruise: NavigatorConfiguration = {
        var c = NavigatorConfiguration()
        c.cruiseSpeeds.cruisesAtSpeedLimit = false
        return c
    }()

    @Test func aKnownLimitIsTheCruiseSpeedNotTheRoutersCappedSpeed() throws {
        // A residential street signed 50 km/h that the router takes at 39 km/h (1.3 × its class speed): the ETA
        // drives it at the limit. Control: without the cruise model it is the router's 39 km/h.
        let street = DrawnRoads.Way("AB", speedKph: 39, limitKph: 50)
        #expect(abs(try legSeconds(street) - 400 / (50 / 3.6)) < 0.01)
        #expect(abs(try legSeconds(street, configuration: noCruise) - 400 / (39 / 3.6)) < 0.01)
    }

    @Test func minorRoadsWithoutALimitCruiseAtTheUrbanDefault() throws {
        // Residential, no limit known, routed at 30 km/h: 50 km/h (`minorRoadWithoutLimitKph`).
        let residential = DrawnRoads.Way("AB", speedKph: 30, limitKph: nil)
        #expect(abs(try legSeconds(residential) - 400 / (50 / 3.6)) < 0.01)
        #expect(abs(try legSeconds(residential, configuration: noCruise) - 400 / (30 / 3.6)) < 0.01)
    }

    @Test func majorRoadsWithoutALimitCruiseAtTheRuralDefault() throws {
        // A primary road routed at 70 km/h with no limit known: 100 km/h, a tertiary one 80 km/h
        // (`majorRoadWithoutLimitKph`). Control: with the table emptied both keep the router's speed; a tagged
        // limit still wins over the table.
        let primary = DrawnRoads.Way("AB", speedKph: 70, limitKph: nil, highwayClass: .primary)
        let tertiary = DrawnRoads.Way("AB", speedKph: 50, limitKph: nil, highwayClass: .tertiary)
        #expect(abs(try legSeconds(primary) - 400 / (100 / 3.6)) < 0.01)
        #expect(abs(try legSeconds(tertiary) - 400 / (80 / 3.6)) < 0.01)
        var noTable = NavigatorConfiguration()
        noTable.cruiseSpeeds.majorRoadWithoutLimitKph = [:]
        #expect(abs(try legSeconds(primary, configuration: noTable) - 400 / (70 / 3.6)) < 0.01)
        #expect(abs(try legSeconds(tertiary, configuration: noTable) - 400 / (50 / 3.6)) < 0.01)
        let signed = DrawnRoads.Way("AB", speedKph: 50, limitKph: 60, highwayClass: .primary)
        #expect(abs(try legSeconds(signed) - 400 / (60 / 3.6)) < 0.01)
    }

    @Test func neverSlowerThanFreeFlowAndNotForWalking() throws {
        let roads = try DrawnRoads(
            "A-------B", gridMeters: 50, ways: [.init("AB", speedKph: 90, limitKph: 80, highwayClass: .primary)])
        let edge = try #require(roads.edges["AB"])
        let model = CruiseSpeedModel()
        // A limit below the stored free-flow speed (an imported way whose class speed was higher) never slows it.
        #expect(model.speedKph(of: edge, graph: roads.graph, mode: .driving) == 90)
        #expect(
            model.speedKph(of: edge, graph: roads.graph, mode: .walking)
                == roads.graph.freeFlowSpeedKph(of: edge, mode: .walking))
    }

    @Test func trafficIsComparedWithTheCruiseSpeed() throws {
        // A feed of 25 km/h on the 50 km/h street the router takes at 39 km/h: the leg takes 400 m at 25 km/h,
        // whatever the base speed (the multiplier is cruise ÷ observed, not router free flow ÷ observed).
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB", speedKph: 39, limitKph: 50)])
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
        _ = nav.updateTraffic([TrafficObservation(osmWayID: 1, speedKph: 25, observedAt: t0)], at: t0)
        #expect(abs(try #require(nav.currentRouteLeg).durationSeconds - 400 / (25 / 3.6)) < 0.01)
    }
}
