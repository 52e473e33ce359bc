import Foundation
import Geo
import Navigation
import RoadGraph
import Routing
import TestKit
import Testing

/// A 400 m street, A to B.
private func straight() throws -> DrawnRoads {
    try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
}

/// Two stops on one 800 m street.
private func twoStops() throws -> DrawnRoads {
    try DrawnRoads("A-------B-------C", gridMeters: 50, ways: [.init("ABC")])
}

private func only(_ kinds: Set<String>, _ lines: [String]) -> [String] {
    lines.filter { line in kinds.contains(where: { line.hasPrefix($0 + "(") }) }
}

@Suite struct GuidanceTranscriptTests {
    @Test func driveToOneDestination() throws {
        let roads = try straight()
        let nav = roads.navigator()
        nav.timeUpdateThresholdSeconds = 10
        nav.distanceUpdateThresholdMeters = 100
        var events = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        events += nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0).events
        events += nav.process(drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 5))
        #expect(
            transcript(events) == [
                "speeding(0% notSpeeding)", "lighting(normal)",
                // Free flow 50 km/h at the start; the own 10 m/s (smoothed, so ramping up) takes over on the way,
                // and the trip's pace (10 m/s where the model says 13.9) lengthens the rest.
                "route(destinationsSet ok leg=0 legs=1)", "time(29)", "distance(400)",
                // Standing at A at 0 m/s, then at A again at 10 m/s: the progress filter takes it to have pulled
                // away (the mean of both speeds over the second, 5 m), runs a little ahead of the fixes and catches
                // up, so each 100 m step is reported one fix later (190, 80).
                "time(43)", "time(33)", "distance(300)", "time(23)", "distance(190)", "time(12)", "distance(80)",
                "time(2)", "arrival(0 'B' left=0)",
            ])
        #expect(!nav.isGuidanceActive)
        // Every event carries the time of the fix that caused it.
        let arrival = try #require(events.arrivals.first)
        // At 390 m: at the fix 380 m along, 20 m to go is outside the 15 m arrival radius.
        #expect(arrival.timestamp == t0.addingTimeInterval(1 + 39))
        #expect(Geodesy.distanceMeters(arrival.vehicleCoordinate, roads["B"]) <= 15)
    }

    @Test func eventsCarryRouteData() throws {
        let roads = try straight()
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0))
        let result = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "Depot")], at: t0)
        #expect(result.status == .ok)
        let route = try #require(result.events.routeChanges.first)
        #expect(route.reason == .destinationsSet && route.currentLegIndex == 0 && route.timestamp == t0)
        #expect(abs(route.distanceMeters - 400) < 1)
        #expect(abs(route.durationSeconds - 400 / (50 / 3.6)) < 0.1)
        #expect(route.legs[0].destination.title == "Depot")
        #expect(Geodesy.distanceMeters(route.legs[0].geometry.last!, roads["B"]) < 1)
        #expect(nav.routeLegs.count == 1 && abs(nav.distanceToNextDestination - 400) < 1)
        let eta = try #require(result.events.remainingTimes.first)
        #expect(eta.eta == t0.addingTimeInterval(eta.remainingSeconds) && eta.waypointIndex == 0)
    }

    @Test func thresholdBoundaries() throws {
        // Exact positions at constant speed: progress advances exactly 10 m per fix. (Already moving at A: the
        // progress filter carries the vehicle forward at the mean of its speed and the fix's, so a vehicle standing
        // at A that reports 10 m/s a second later is taken to have pulled away, 5 m on.)
        let roads = try straight()
        let nav = roads.navigator()
        nav.distanceUpdateThresholdMeters = 30
        nav.timeUpdateThresholdSeconds = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 10))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
        let events = nav.process(
            Array(drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1), startOffset: 10).prefix(13)))
        // 400 reported at setDestinations; then a change of 30 m (not 20, not 29.9) triggers the next.
        #expect(events.remainingDistances.map { Int($0.remainingMeters.rounded()) } == [370, 340, 310, 280])
        #expect(events.remainingTimes.isEmpty)
        nav.distanceUpdateThresholdMeters = 10.5
        let more = nav.process(
            Array(drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(14), startOffset: 140).prefix(4)))
        #expect(more.remainingDistances.map { Int($0.remainingMeters.rounded()) } == [260, 240])
    }

    @Test func noEventsWhileGuidanceIsOff() throws {
        let roads = try straight()
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0))
        let set = nav.setDestinations(
            [NavigationWaypoint(coordinate: roads["B"])], options: DestinationOptions(startsGuidance: false),
            at: t0)
        #expect(
            only(["route", "time", "distance"], transcript(set.events)) == ["route(destinationsSet ok leg=0 legs=1)"])
        let events = nav.process(Array(drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1)).prefix(5)))
        #expect(events.remainingTimes.isEmpty && events.remainingDistances.isEmpty)
        let on = nav.setGuidanceActive(true, at: t0.addingTimeInterval(6))
        #expect(transcript(on) == ["time(31)", "distance(360)"])
    }

    @Test func arrivalExactlyOnceWhileNoisyFixesHover() throws {
        let roads = try straight()
        let nav = roads.navigator()
        nav.stopGuidanceAtArrival = false
        nav.timeUpdateThresholdSeconds = 5
        nav.distanceUpdateThresholdMeters = 50
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0)
        var events = nav.process(drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1)))
        var rng = SeededGenerator(seed: 7)
        for i in 0..<300 {
            let c = offset(roads["B"], east: 10 * rng.gaussian(), north: 10 * rng.gaussian())
            events += nav.process(
                RawFix(
                    coordinate: c, timestamp: t0.addingTimeInterval(50 + Double(i)), horizontalAccuracyMeters: 10,
                    speedMetersPerSecond: 0.3))
        }
        #expect(events.arrivals.count == 1)
        #expect(nav.isGuidanceActive)
        // With guidance kept on, remaining time and distance come down to 0 and stay there.
        #expect(events.remainingDistances.last?.remainingMeters == 0)
        #expect(events.remainingTimes.last?.remainingSeconds == 0)
        #expect(events.routeChanges.isEmpty)
    }

    @Test func noEarlyArrivalWhenStoppedShortOfTheDestination() throws {
        let roads = try straight()
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
        var events = nav.process(
            drive(Array(roads.path("AB")), speed: 10, from: t0.addingTimeInterval(1)).filter {
                Geodesy.distanceMeters($0.coordinate, roads["A"]) <= 355
            })
        // Parked 45 m short of B for ten minutes with σ = 8 m noise and 2 % outliers.
        var rng = SeededGenerator(seed: 11)
        let parked = PolylineGeometry.point(along: roads.path("AB"), offsetMeters: 355)!
        for i in 0..<600 {
            let outlier = Double.random(in: 0..<1, using: &rng) < 0.02
            let r = outlier ? Double.random(in: 50...150, using: &rng) : 0
            let angle = Double.random(in: 0..<(2 * .pi), using: &rng)
            let c = offset(
                parked, east: 8 * rng.gaussian() + r * cos(angle), north: 8 * rng.gaussian() + r * sin(angle))
            events += nav.process(
                RawFix(
                    coordinate: c, timestamp: t0.addingTimeInterval(40 + Double(i)), horizontalAccuracyMeters: 10,
                    speedMetersPerSecond: 0))
        }
        #expect(events.arrivals.isEmpty)
        #expect(events.routeChanges.isEmpty)
    }

    @Test func continueToNextDestination() throws {
        let roads = try twoStops()
        let nav = roads.navigator()
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        let set = nav.setDestinations(
            [
                NavigationWaypoint(coordinate: roads["B"], title: "B"),
                NavigationWaypoint(coordinate: roads["C"], title: "C"),
            ], at: t0)
        #expect(transcript(set.events) == ["route(destinationsSet ok leg=0 legs=2)", "time(29)", "distance(400)"])
        var events = nav.process(drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 10))
        #expect(only(["arrival", "route"], transcript(events)) == ["arrival(0 'B' left=1)"])
        #expect(!nav.isGuidanceActive)
        #expect(nav.routeLegs.map(\.destination.title) == ["B", "C"])
        let next = nav.continueToNextDestination(at: t0.addingTimeInterval(60))
        #expect(next.waypoint?.title == "C")
        // 29 s of free flow, lengthened by the pace of the first leg (10 m/s where the model says 13.9 m/s).
        #expect(transcript(next.events) == ["route(nextDestination ok leg=1 legs=1)", "time(32)", "distance(400)"])
        // The reached destination is gone.
        #expect(nav.routeLegs.map(\.destination.title) == ["C"])
        #expect(nav.isGuidanceActive)
        events = nav.process(drive(roads.path("BC"), speed: 10, from: t0.addingTimeInterval(61), stopSeconds: 10))
        #expect(only(["arrival", "route"], transcript(events)) == ["arrival(1 'C' left=0)"])
        // Nothing after the last destination.
        let none = nav.continueToNextDestination(at: t0.addingTimeInterval(200))
        #expect(none.waypoint == nil && none.events.isEmpty)
    }

    @Test func clearDuringGuidance() throws {
        let roads = try straight()
        let nav = roads.navigator()
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
        let fixes = drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1))
        _ = nav.process(Array(fixes.prefix(10)))
        let cleared = nav.clearDestinations(at: t0.addingTimeInterval(10.5))
        #expect(transcript(cleared) == ["route(cleared ok leg=- legs=0)"])
        #expect(cleared.first?.timestamp == t0.addingTimeInterval(10.5))
        #expect(!nav.isGuidanceActive && nav.routeLegs.isEmpty && nav.timeToNextDestination == .infinity)
        let after = nav.process(Array(fixes.dropFirst(10)))
        #expect(only(["route", "arrival", "time", "distance"], transcript(after)).isEmpty)
        #expect(nav.clearDestinations(at: t0.addingTimeInterval(100)).isEmpty)
    }

    @Test func gpsGapInATunnel() throws {
        let roads = try DrawnRoads("A---------B", gridMeters: 100, ways: [.init("AB")])
        let nav = roads.navigator()
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 50
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
        _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
        // 15 m/s; no fixes between 150 m and 750 m (40 s in the tunnel).
        let fixes = drive(roads.path("AB"), speed: 15, from: t0.addingTimeInterval(1), stopSeconds: 5).filter {
            let d = Geodesy.distanceMeters($0.coordinate, roads["A"])
            return d <= 150 || d >= 750
        }
        let events = nav.process(fixes)
        #expect(events.routeChanges.isEmpty)
        #expect(events.arrivals.count == 1)
        let distances = events.remainingDistances.map(\.remainingMeters)
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 > $1 })
        // One event bridges the gap.
        #expect(distances.contains { $0 < 900 - 150 && $0 > 900 - 760 - 20 })
    }

    @Test func placeIDsAndValidation() throws {
        struct Book: PlaceResolving {
            let places: [String: Coordinate]
            func coordinate(forPlaceID placeID: String) -> Coordinate? { places[placeID] }
        }
        let roads = try straight()
        let nav = roads.navigator(placeResolver: Book(places: ["depot": roads["B"]]))
        #expect(
            nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0).status == .locationUnavailable)
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0))
        #expect(nav.setDestinations([], at: t0).status == .noWaypointsError)
        let many = (0..<26).map {
            NavigationWaypoint(coordinate: offset(roads["A"], east: Double($0 * 10 + 20), north: 0))
        }
        #expect(nav.setDestinations(many, at: t0).status == .waypointError)
        #expect(nav.setDestinations([NavigationWaypoint(placeID: "")], at: t0).status == .waypointError)
        #expect(nav.setDestinations([NavigationWaypoint(placeID: "nowhere")], at: t0).status == .waypointError)
        #expect(
            nav.setDestinations(
                [
                    NavigationWaypoint(
                        coordinate: roads["B"], preferSameSideOfRoad: true,
                        preferredHeadingDegrees: 90)
                ], at: t0
            ).status == .waypointError)
        #expect(
            nav.setDestinations([NavigationWaypoint(coordinate: roads["B"], preferredHeadingDegrees: 400)], at: t0)
                .status
                == .waypointError)
        #expect(
            nav.setDestinations([NavigationWaypoint(coordinate: Coordinate(latitude: 91, longitude: 0))], at: t0).status
                == .waypointError)
        let failed = nav.setDestinations(
            [NavigationWaypoint(coordinate: roads["B"]), NavigationWaypoint(coordinate: roads["B"])],
            at: t0)
        #expect(failed.status == .duplicateWaypointsError)
        #expect(transcript(failed.events) == ["route(destinationsSet duplicateWaypointsError leg=- legs=0)"])
        let byPlace = nav.setDestinations([NavigationWaypoint(placeID: "depot", title: "Depot")], at: t0)
        #expect(byPlace.status == .ok)
        let leg = try #require(nav.currentRouteLeg)
        #expect(leg.destination.placeID == "depot" && leg.destination.coordinate == roads["B"])
        // 25 destinations are fine.
        #expect(nav.setDestinations(Array(many.prefix(25)), at: t0).status == .ok)
        #expect(nav.routeLegs.count == 25)
    }

    @Test func listenerReceivesEventsAndDefaultsAreOptional() throws {
        final class ArrivalsOnly: NavigatorListener {
            var arrivals: [String] = []
            var routes: [RouteChangeReason] = []
            func navigator(_ navigator: Navigator, didArriveAt event: ArrivalEvent) {
                arrivals.append(event.waypoint.title)
            }
            func navigator(_ navigator: Navigator, didChangeRoute event: RouteChangedEvent) {
                routes.append(event.reason)
            }
        }
        let roads = try straight()
        let navigator = Navigator(graph: roads.graph)
        let listener = ArrivalsOnly()
        navigator.add(listener: listener)
        navigator.process(RawFix(coordinate: roads["A"], timestamp: t0))
        #expect(navigator.setDestinations([NavigationWaypoint(coordinate: roads["B"], title: "B")], at: t0) == .ok)
        for fix in drive(roads.path("AB"), speed: 10, from: t0.addingTimeInterval(1), stopSeconds: 3) {
            navigator.process(fix)
        }
        navigator.clearDestinations(at: t0.addingTimeInterval(100))
        #expect(listener.arrivals == ["B"])
        #expect(listener.routes == [.destinationsSet, .cleared])
    }

    @Test func replayIsDeterministic() throws {
        let roads = try twoStops()
        var inputs: [NavigationInput] = [.fix(RawFix(coordinate: roads["A"], timestamp: t0))]
        inputs.append(
            .setDestinations(
                [NavigationWaypoint(coordinate: roads["B"]), NavigationWaypoint(coordinate: roads["C"])],
                DestinationOptions(), at: t0))
        inputs += drive(roads.path("AB"), speed: 12, from: t0.addingTimeInterval(1), stopSeconds: 3).map { .fix($0) }
        inputs.append(.continueToNextDestination(at: t0.addingTimeInterval(40)))
        inputs += drive(roads.path("BC"), speed: 12, from: t0.addingTimeInterval(41), stopSeconds: 3).map { .fix($0) }
        let first = roads.navigator().replay(inputs)
        let second = roads.navigator().replay(inputs)
        #expect(first == second)
        #expect(first.arrivals.map(\.waypoint.index) == [0, 1])
        // Events come in time order.
        #expect(zip(first, first.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }
}
