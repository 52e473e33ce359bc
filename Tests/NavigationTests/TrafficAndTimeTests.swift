import Foundation
import Geo
import Navigation
import RoadGraph
import Routing
import Testing

@Suite struct TrafficAndTimeTests {
    private func start(
        _ roads: DrawnRoads, to destination: Character, at time: Date = t0,
        configuration: NavigatorConfiguration = NavigatorConfiguration()
    ) -> (NavigatorCore, [NavigationEvent]) {
        let nav = roads.navigator(configuration: configuration)
        nav.timeUpdateThresholdSeconds = 1000
        nav.distanceUpdateThresholdMeters = 1000
        _ = nav.process(RawFix(coordinate: roads["A"], timestamp: time, speedMetersPerSecond: 0))
        let events = nav.setDestinations([NavigationWaypoint(coordinate: roads[destination])], at: time).events
        return (nav, events)
    }

    @Test func signalAndTurnDelaysAreInTheDuration() throws {
        // A–B–C straight with a signal at B; C is a T junction: right to D (south), left to E (north).
        let roads = try DrawnRoads(
            """
                            E
                            |
            A-------B-------C
                            |
                            D
            """, gridMeters: 25, ways: [.init("AB"), .init("BC"), .init("ECD")], signals: ["B"])
        let free = 400 / (50 / 3.6)
        // B joins only A–B and B–C and no junction lies within 25 m after it: a pedestrian crossing's signal, 1 s;
        // then a right turn (kerb side) 3 s, a left turn (across the oncoming lane) 4 s.
        let (_, toC) = start(roads, to: "C")
        let straight = try #require(toC.routeChanges.first?.durationSeconds)
        #expect(abs(straight - (free + 1)) < 0.01)
        let (_, toD) = start(roads, to: "D")
        let right = try #require(toD.routeChanges.first?.durationSeconds)
        #expect(abs(right - (free + 50 / (50 / 3.6) + 1 + 3)) < 0.01)
        let (_, toE) = start(roads, to: "E")
        let left = try #require(toE.routeChanges.first?.durationSeconds)
        #expect(abs(left - (free + 50 / (50 / 3.6) + 1 + 4)) < 0.01)
    }

    @Test func theSignalNodesOfOneJunctionAreChargedOnce() throws {
        // A dual carriageway F–H / G–I crossed at C and D, a signal on each carriageway. 20 m apart (one junction:
        // one wait), the vehicle is charged 18 s; 100 m apart (two junctions) 2 × 18 s. Straight on at a signal
        // adds no crossing delay.
        let drawing = """
                    F   G
                    |   |
            A---B---C---D---E
                    |   |
                    H   I
            """
        let ways: [DrawnRoads.Way] = [.init("ABCDE"), .init("FCH"), .init("GDI")]
        let near = try DrawnRoads(drawing, gridMeters: 5, ways: ways, signals: ["C", "D"])
        let (_, nearEvents) = start(near, to: "E")
        let metersPerSecond: Double = 50 / 3.6
        let nearSeconds: Double = try #require(nearEvents.routeChanges.first?.durationSeconds)
        #expect(abs(nearSeconds - (80 / metersPerSecond + 18)) < 0.01)
        let far = try DrawnRoads(drawing, gridMeters: 25, ways: ways, signals: ["C", "D"])
        let (_, farEvents) = start(far, to: "E")
        let farSeconds: Double = try #require(farEvents.routeChanges.first?.durationSeconds)
        #expect(abs(farSeconds - (400 / metersPerSecond + 36)) < 0.01)
    }

    @Test func aSignalAtTheStopLineIsTheJunctionsSignal() throws {
        // The signal is mapped on B, 5 m before the junction C (as many cities map stop lines): the junction's
        // wait, 18 s, and C itself, which the signal controls, adds no crossing delay of its own.
        let roads = try DrawnRoads(
            """
                         E
                         |
            A-----------BC---D
                         |
                         F
            """, gridMeters: 5, ways: [.init("ABCD"), .init("ECF")], signals: ["B"])
        let (_, events) = start(roads, to: "D")
        let seconds: Double = try #require(events.routeChanges.first?.durationSeconds)
        let metersPerSecond: Double = 50 / 3.6
        #expect(abs(seconds - (85 / metersPerSecond + 18)) < 0.01)
    }

    /// A vehicle waiting at a red light stands on the signal's node, and its progress estimate lands a few metres
    /// either side of it fix by fix: the remaining time holds where the vehicle stopped
    /// (`standingEtaProgressMeters`) instead of dropping the signal's charge and taking it back (the README demo: 40,
    /// 26, 40, 26 s in consecutive `nav/eta` messages), and follows the vehicle again once it drives on.
    @Test func waitingAtTheSignalTheRemainingTimeHoldsWhereTheVehicleStopped() throws {
        let roads = try DrawnRoads(
            """
                        E
                        |
            A-----------C-----------D
                        |
                        F
            """, gridMeters: 10, ways: [.init("ACD"), .init("ECF")], signals: ["C"])
        /// Remaining seconds at each of 20 standing fixes alternating 3 m before and 3 m past C (after driving there
        /// from A at 10 m/s), then after three fixes driving on past C at 10 m/s.
        func remaining(_ configuration: NavigatorConfiguration) -> (standing: [Double], drivingOn: Double) {
            let (nav, _) = start(roads, to: "D", configuration: configuration)
            var t = t0
            for k in 1...11 {
                t += 1
                _ = nav.process(RawFix(coordinate: offset(roads["A"], east: 10 * Double(k), north: 0), timestamp: t,
                                       courseDegrees: 90, speedMetersPerSecond: k == 11 ? 2 : 10))
            }
            var standing: [Double] = []
            for k in 0..<20 {
                t += 1
                _ = nav.process(RawFix(coordinate: offset(roads["C"], east: k % 2 == 0 ? -3 : 3, north: 0), timestamp: t,
                                       courseDegrees: 90, speedMetersPerSecond: 0))
                standing.append(nav.timeToNextDestination)
            }
            for k in 1...3 {
                t += 1
                _ = nav.process(RawFix(coordinate: offset(roads["C"], east: 10 * Double(k), north: 0), timestamp: t,
                                       courseDegrees: 90, speedMetersPerSecond: 10))
            }
            return (standing, nav.timeToNextDestination)
        }
        let now = remaining(NavigatorConfiguration())
        let last = now.standing.suffix(10)
        #expect(last.max()! - last.min()! < 3, "standing: \(now.standing)")
        var unheld = NavigatorConfiguration()
        unheld.standingEtaProgressMeters = 0
        let before = remaining(unheld)
        #expect(before.standing.suffix(10).max()! - before.standing.suffix(10).min()! > 10,
                "without the hold: \(before.standing)")
        // Driving on past the node, the remaining time is the vehicle's own again.
        #expect(abs(now.drivingOn - before.drivingOn) < 0.01, "\(now.drivingOn) s against \(before.drivingOn) s")
    }

    @Test func straightOnAlongTheMainRoadSideStreetsAndFootwaysCostNothing() throws {
        // A–B–C straight on, a side street D–B–E crossing at B.
        let drawing = """
                    D
                    |
            A-------B-------C
                    |
                    E
            """
        let free = 400 / (50 / 3.6)
        func duration(main: HighwayClass, side: HighwayClass, sideAccess: ModeMask = .all) throws -> Double {
            let roads = try DrawnRoads(
                drawing, gridMeters: 25,
                ways: [.init("ABC", highwayClass: main), .init("DBE", highwayClass: side, access: sideAccess)])
            let (_, events) = start(roads, to: "C")
            return try #require(events.routeChanges.first?.durationSeconds)
        }
        // A primary road past a residential side street: the side street gives way.
        #expect(abs(try duration(main: .primary, side: .residential) - free) < 0.01)
        // Two residential streets: the vehicle yields or slows, 2 s.
        #expect(abs(try duration(main: .residential, side: .residential) - (free + 2)) < 0.01)
        // A footway across the street is no junction for a car.
        #expect(abs(try duration(main: .residential, side: .footway, sideAccess: [.walking, .cycling]) - free) < 0.01)
    }

    @Test func feedSpeedsAlreadyHoldTheWaitsAtSignals() throws {
        // As above but the signal at the junction C, where the route turns right to D. A feed speed is the way's
        // length ÷ its travel time, the wait at its signal and the slowing for the turn included: with the feed on
        // A–B and B–C (50 km/h: no slower than free flow) neither the signal's 18 s nor the turn's 3 s are
        // charged; C–D is not covered, nothing follows it.
        let roads = try DrawnRoads(
            """
                            E
                            |
            A-------B-------C
                            |
                            D
            """, gridMeters: 25, ways: [.init("AB"), .init("BC"), .init("ECD")], signals: ["C"])
        let free = 400 / (50 / 3.6) + 50 / (50 / 3.6)
        let (nav, _) = start(roads, to: "D")
        #expect(abs(try #require(nav.currentRouteLeg).durationSeconds - (free + 18 + 3)) < 0.01)
        _ = nav.updateTraffic(
            [1, 2].map { TrafficObservation(osmWayID: $0, speedKph: 50, observedAt: t0) }, at: t0)
        #expect(abs(try #require(nav.currentRouteLeg).durationSeconds - free) < 0.01)
        // B–C (200 m) at 25 km/h: 14.4 s more on it, the wait at C's signal among them, not on top.
        let (slow, _) = start(roads, to: "D")
        _ = slow.updateTraffic([TrafficObservation(osmWayID: 2, speedKph: 25, observedAt: t0)], at: t0)
        #expect(abs(try #require(slow.currentRouteLeg).durationSeconds - (free + 200 / (50 / 3.6))) < 0.01)
        // The delay category compares with the time without traffic, its signal wait included: 46.8 s against
        // 53.4 s is light (road times alone, 46.8 s against 32.4 s, would have said heavy). 5 km/h a second later
        // (averaged geometrically with the 25 km/h: 11.2 km/h, 64 s on B–C) is heavy.
        #expect(slow.delayCategoryToNextDestination == .light)
        _ = slow.updateTraffic(
            [TrafficObservation(osmWayID: 2, speedKph: 5, observedAt: t0.addingTimeInterval(1))],
            at: t0.addingTimeInterval(1))
        #expect(slow.delayCategoryToNextDestination == .heavy)
        // Traffic on the last way only (C–D) changes no junction: its delays come before it.
        let (other, _) = start(roads, to: "D")
        _ = other.updateTraffic([TrafficObservation(osmWayID: 3, speedKph: 50, observedAt: t0)], at: t0)
        #expect(abs(try #require(other.currentRouteLeg).durationSeconds - (free + 18 + 3)) < 0.01)
        // Charging the turns under a feed (the time inside the junction, which a simulator's edge speeds leave
        // out) adds the right turn's 3 s at C, never the signal's wait: that is the queue on B–C.
        var turns = NavigatorConfiguration()
        turns.junctions.turnDelayShareUnderFeed = 1
        let (charged, _) = start(roads, to: "D", configuration: turns)
        _ = charged.updateTraffic(
            [1, 2].map { TrafficObservation(osmWayID: $0, speedKph: 50, observedAt: t0) }, at: t0)
        #expect(abs(try #require(charged.currentRouteLeg).durationSeconds - (free + 3)) < 0.01)
    }

    @Test func aWaysFeedObservationsAreAveragedGeometrically() {
        // 50 then 10 km/h a minute later: weights exp(-60/300) and 1 on log(1/50) and log(1/10) h/km → 16.1 km/h,
        // 3.1 × the time at 50 km/h. Controls: the time-per-metre mean (15.6 km/h, 3.2 ×), the newest only (5 ×).
        let first = TrafficObservation(osmWayID: 7, speedKph: 50, observedAt: t0)
        let second = TrafficObservation(osmWayID: 7, speedKph: 10, observedAt: t0.addingTimeInterval(60))
        var averaged = TrafficModel()
        averaged.update([first])
        averaged.update([second])
        let w = exp(-60.0 / 300)
        let expected = 50 * exp((w * log(1.0 / 50) + log(1.0 / 10)) / (w + 1))
        let at = t0.addingTimeInterval(60)
        #expect(abs(averaged.wayTraffic(wayID: 7, freeFlowKph: 50, at: at).feedSlowdown - expected) < 1e-9)
        var timePerMetreConfiguration = TrafficModelConfiguration()
        timePerMetreConfiguration.feedAveragesGeometrically = false
        var timePerMetre = TrafficModel(configuration: timePerMetreConfiguration)
        timePerMetre.update([first])
        timePerMetre.update([second])
        let arithmetic = 50 * (w / 50 + 1 / 10) / (w + 1)
        #expect(abs(timePerMetre.wayTraffic(wayID: 7, freeFlowKph: 50, at: at).feedSlowdown - arithmetic) < 1e-9)
        // One minute in which the way's only vehicle stood at its light (3 km/h) among four free-flowing ones
        // (50 km/h): the time-per-metre mean says 4.0 × the free-flow time, the geometric mean 1.7 ×.
        var quiet = TrafficModel()
        var quietTimePerMetre = TrafficModel(configuration: timePerMetreConfiguration)
        for (k, kph) in [50.0, 50, 3, 50, 50].enumerated() {
            let o = TrafficObservation(osmWayID: 11, speedKph: kph, observedAt: t0.addingTimeInterval(60 * Double(k)))
            quiet.update([o])
            quietTimePerMetre.update([o])
        }
        let late = t0.addingTimeInterval(240)
        let geometricSlowdown = quiet.wayTraffic(wayID: 11, freeFlowKph: 50, at: late).feedSlowdown
        let timePerMetreSlowdown = quietTimePerMetre.wayTraffic(wayID: 11, freeFlowKph: 50, at: late).feedSlowdown
        #expect(geometricSlowdown > 1.5 && geometricSlowdown < 2, "\(geometricSlowdown)")
        #expect(timePerMetreSlowdown > 3, "\(timePerMetreSlowdown)")
        // In the other order (the older one received last) the same.
        var reversed = TrafficModel()
        reversed.update([second])
        reversed.update([first])
        #expect(abs(reversed.wayTraffic(wayID: 7, freeFlowKph: 50, at: at).feedSlowdown - expected) < 1e-9)
        var configuration = TrafficModelConfiguration()
        configuration.feedAveragingSeconds = 0
        var newest = TrafficModel(configuration: configuration)
        newest.update([first])
        newest.update([second])
        #expect(abs(newest.wayTraffic(wayID: 7, freeFlowKph: 50, at: at).feedSlowdown - 5) < 1e-9)
        // A payload received twice counts once.
        var twice = TrafficModel()
        twice.update([first])
        twice.update([second])
        twice.update([second])
        #expect(abs(twice.wayTraffic(wayID: 7, freeFlowKph: 50, at: at).feedSlowdown - expected) < 1e-9)
        // A way whose only vehicle stood the whole minute (0.2 km/h) counts as 3 km/h.
        var standing = TrafficModel()
        standing.update([TrafficObservation(osmWayID: 8, speedKph: 0.2, observedAt: t0)])
        #expect(abs(standing.wayTraffic(wayID: 8, freeFlowKph: 30, at: t0).feedSlowdown - 10) < 1e-9)
        // Faster than the cruise speed: the remaining time takes it, up to 1.3 × (65 km/h at 50); the router not.
        var fast = TrafficModel()
        fast.update([TrafficObservation(osmWayID: 9, speedKph: 100, observedAt: t0)])
        #expect(abs(fast.wayTraffic(wayID: 9, freeFlowKph: 50, at: t0).feedSlowdown - 1 / 1.3) < 1e-9)
        #expect(abs(fast.wayTraffic(wayID: 9, freeFlowKph: 90, at: t0).feedSlowdown - 0.9) < 1e-9)
        #expect(fast.durationMultiplier(wayID: 9, freeFlowKph: 50, at: t0) == (1, true))
        // The blend's confidence follows the newest observation's age: after 900 s it counts e^-1.
        let aged = averaged.wayTraffic(wayID: 7, freeFlowKph: 50, at: at.addingTimeInterval(900)).shares
        #expect(abs(aged.feed - exp(-1)) < 1e-9 && abs(aged.freeFlow - (1 - exp(-1))) < 1e-9 && aged.own == 0)
    }

    @Test func remainingTimeFollowsTheTripsOwnPace() throws {
        // 2 km at 5 m/s where the model says 50 km/h (13.9 m/s): half-way the vehicle took 2.8 times the model's
        // time (clamped to 1.8). The remaining time is the model's (own speed blended on the current edge) times
        // 1 + w × (1.8 − 1), w = m ÷ (m + 600 s) for the m = 72 model seconds driven.
        let roads = try DrawnRoads(
            "A---------C---------D---------E---------F---------B", gridMeters: 40, ways: [.init("ACDEFB")])
        func halfway(paceHalfWeight: Double) throws -> Double {
            var configuration = NavigatorConfiguration()
            configuration.paceHalfWeightSeconds = paceHalfWeight
            let nav = roads.navigator(configuration: configuration)
            _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
            _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
            let fixes = drive(roads.path("AB"), speed: 5, from: t0.addingTimeInterval(1))
            _ = nav.process(fixes.filter { Geodesy.distanceMeters($0.coordinate, roads["A"]) <= 1000 + 1e-6 })
            return nav.timeToNextDestination
        }
        let model = try halfway(paceHalfWeight: .infinity)
        let paced = try halfway(paceHalfWeight: 600)
        let modelSecondsDriven = 1000 / (50 / 3.6)
        let w = modelSecondsDriven / (modelSecondsDriven + 600)
        #expect(abs(paced / model - (1 + w * 0.8)) < 0.01, "paced \(paced) s, model \(model) s")
        // … and closer to the 200 s the vehicle will really take.
        #expect(abs(paced - 200) < abs(model - 200))
    }

    @Test func aVehicleAsSlowAsTheFeedIsNotCountedSlowTwice() throws {
        // 2 km whose limit is 50 km/h, a feed saying 25 km/h, and a vehicle doing 25 km/h: half-way, 144 s are
        // left (the control says 157 s). The split pace reads the vehicle as slow against the cruise speed and scales the cruise part up
        // while the feed's excess over cruise comes on top (the control); the whole pace against the feed's time
        // sees the vehicle on schedule. Without a feed the two agree.
        let roads = try DrawnRoads(
            "A---------C---------D---------E---------F---------B", gridMeters: 40, ways: [.init("ACDEFB")])
        func halfway(unsplitUnderFeed: Bool, feed: Bool) throws -> Double {
            var configuration = NavigatorConfiguration()
            configuration.paceUnsplitUnderFeed = unsplitUnderFeed
            let nav = roads.navigator(configuration: configuration)
            _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
            _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
            if feed { _ = nav.updateTraffic([TrafficObservation(osmWayID: 1, speedKph: 25, observedAt: t0)], at: t0) }
            let fixes = drive(roads.path("AB"), speed: 25 / 3.6, from: t0.addingTimeInterval(1))
            _ = nav.process(fixes.filter { Geodesy.distanceMeters($0.coordinate, roads["A"]) <= 1000 + 1e-6 })
            return nav.timeToNextDestination
        }
        let truth = 1000 / (25 / 3.6)
        let unsplit = try halfway(unsplitUnderFeed: true, feed: true)
        let split = try halfway(unsplitUnderFeed: false, feed: true)
        #expect(abs(unsplit - truth) < 0.05 * truth, "unsplit \(unsplit) s")
        #expect(split > 1.05 * truth, "split \(split) s")
        #expect(abs(unsplit - truth) < 0.5 * abs(split - truth), "unsplit \(unsplit) s, split \(split) s")
        let withoutFeed = try halfway(unsplitUnderFeed: true, feed: false)
        #expect(abs(withoutFeed - (try halfway(unsplitUnderFeed: false, feed: false))) < 1e-9)
    }

    @Test func aLongStopAtOneSignalIsNotTakenForASlowRoad() throws {
        // 2 km at exactly the model's 50 km/h, signals at C, D, E and F (every 400 m); the vehicle stands 60 s at
        // the first. Half-way, one pace for everything scales the 72 s of road ahead by the stop too; the split pace
        // leaves the road part alone (moving time = the model's road time) and scales only the junction delays
        // ahead, by the stops made so far shrunk towards the model (they are mostly the luck of the lights). With
        // both paces weighted half at 600 model seconds so early in a trip: +0.8 s against +0.2 s. (The road pace's
        // default weight, half at 60 s, lets the 1 % by which the filtered progress lags the fixes outweigh the
        // 0.2 s: this test is about where the stop goes, so both weights are fixed here.)
        let roads = try DrawnRoads(
            "A---------C---------D---------E---------F---------B", gridMeters: 40, ways: [.init("ACDEFB")],
            signals: ["C", "D", "E", "F"])
        func halfway(split: Bool, paced: Bool = true) throws -> Double {
            var configuration = NavigatorConfiguration()
            configuration.paceSplitsStops = split
            configuration.paceHalfWeightSeconds = 600
            configuration.paceStopHalfWeightSeconds = 600
            configuration.junctions.crossingSignalSeconds = 5  // the lights stand between junctions: crossings
            if !paced {
                configuration.paceHalfWeightSeconds = .infinity
                configuration.paceStopHalfWeightSeconds = .infinity
            }
            let nav = roads.navigator(configuration: configuration)
            _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
            _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
            let speed = 50 / 3.6
            let toLight = drive(roads.path("AC"), speed: speed, from: t0.addingTimeInterval(1))
            var t = toLight.last!.timestamp
            _ = nav.process(toLight)
            for _ in 0..<60 {
                t = t.addingTimeInterval(1)
                _ = nav.process(RawFix(coordinate: roads["C"], timestamp: t, speedMetersPerSecond: 0))
            }
            let on = drive(roads.path("CB"), speed: speed, from: t.addingTimeInterval(1), startOffset: speed)
            _ = nav.process(on.filter { Geodesy.distanceMeters($0.coordinate, roads["A"]) <= 1000 + 1e-6 })
            return nav.timeToNextDestination
        }
        let model = try halfway(split: true, paced: false)
        let one = try halfway(split: false)
        let split = try halfway(split: true)
        #expect(one > model + 0.5, "one pace \(one) s, model \(model) s")
        #expect(split > model, "split \(split) s, model \(model) s")
        #expect(split - model < 0.5 * (one - model), "split \(split) s, one pace \(one) s, model \(model) s")
    }

    @Test func greenLightsShortenTheSignalDelaysAhead() throws {
        // 2 km at the model's 50 km/h through signalised junctions at C, D, E and F (side streets), never stopping
        // (actuated signals, a green wave). Half-way the two junctions passed cost the model 2 × 18 s and the
        // vehicle nothing: the 36 s ahead scale by 1 − w × (1 − 0.3), w = 36 ÷ (36 + 200): 3.8 s less. Control:
        // the earlier weights (half at 600 s, ratio at least 0.6) took off 0.8 s.
        let roads = try DrawnRoads(
            """
                      G         H         I         J
                      |         |         |         |
            A---------C---------D---------E---------F---------B
            """, gridMeters: 40,
            ways: [.init("ACDEFB"), .init("GC"), .init("HD"), .init("IE"), .init("JF")],
            signals: ["C", "D", "E", "F"])
        func halfway(_ configure: (inout NavigatorConfiguration) -> Void) throws -> Double {
            var configuration = NavigatorConfiguration()
            configure(&configuration)
            let nav = roads.navigator(configuration: configuration)
            _ = nav.process(RawFix(coordinate: roads["A"], timestamp: t0, speedMetersPerSecond: 0))
            _ = nav.setDestinations([NavigationWaypoint(coordinate: roads["B"])], at: t0)
            let fixes = drive(roads.path("ACDEFB"), speed: 50 / 3.6, from: t0.addingTimeInterval(1))
            _ = nav.process(fixes.filter { Geodesy.distanceMeters($0.coordinate, roads["A"]) <= 1000 + 1e-6 })
            return nav.timeToNextDestination
        }
        let model = try halfway {
            $0.paceHalfWeightSeconds = .infinity
            $0.paceStopHalfWeightSeconds = .infinity
        }
        let paced = try halfway { _ in }
        let earlier = try halfway {
            $0.paceStopHalfWeightSeconds = 600
            $0.paceRatioRange = 0.6...1.8
        }
        #expect(model - paced > 3.3, "paced \(paced) s, model \(model) s")
        #expect(model - earlier < 1.5, "earlier weights \(earlier) s, model \(model) s")
    }

    @Test func delayCategoryBandsAndFading() throws {
        let roads = try DrawnRoads("A-------B", gridMeters: 50, ways: [.init("AB")])
        var newestOnly = NavigatorConfiguration()  // each feed replaces the last (averaging: the test above)
        newestOnly.traffic.feedAveragingSeconds = 0
        let (nav, events) = start(roads, to: "B", configuration: newestOnly)
        #expect(events.delays.isEmpty)  // noData, as before any route
        #expect(nav.delayCategoryToNextDestination == .noData)
        func feed(_ kph: Double, _ seconds: Double) -> [String] {
            transcript(
                nav.updateTraffic(
                    [TrafficObservation(osmWayID: 1, speedKph: kph, observedAt: t0.addingTimeInterval(seconds))],
                    at: t0.addingTimeInterval(seconds)))
        }
        #expect(feed(45, 1) == ["delay(light)"])  // ×1.11
        #expect(feed(40, 2) == ["delay(medium)"])  // ×1.25
        #expect(feed(30, 3) == ["delay(heavy)"])  // ×1.67
        #expect(feed(10, 4) == [])  // still heavy
        // Traffic makes the ETA longer: 400 m at 10 km/h.
        #expect(abs(nav.timeToNextDestination - 144) < 1)
        // An old observation fades towards free flow, and after an hour it is no data at all.
        let later = nav.process(
            RawFix(coordinate: roads["A"], timestamp: t0.addingTimeInterval(1800), speedMetersPerSecond: 0))
        #expect(transcript(later).contains("delay(heavy)") == false)
        #expect(nav.timeToNextDestination < 144 && nav.timeToNextDestination > 400 / (50 / 3.6))
        let stale = nav.process(
            RawFix(coordinate: roads["A"], timestamp: t0.addingTimeInterval(3700), speedMetersPerSecond: 0))
        #expect(transcript(stale).filter { $0.hasPrefix("delay(") } == ["delay(noData)"])
        #expect(abs(nav.timeToNextDestination - 400 / (50 / 3.6)) < 0.01)
    }

    @Test func trafficOnAnotherRoadIsNoData() throws {
        let roads = try DrawnRoads("A-------B-------C", gridMeters: 50, ways: [.init("AB"), .init("BC")])
        let (nav, _) = start(roads, to: "B")
        let out = nav.updateTraffic([TrafficObservation(osmWayID: 2, speedKph: 5, observedAt: t0)], at: t0)
        #expect(out.isEmpty && nav.delayCategoryToNextDestination == .noData)
    }

    @Test func fasterRouteWhenTrafficChanges() throws {
        let roads = try DrawnRoads(
            """
            A-------B-------C
            |               |
            D---------------E
            """, gridMeters: 50, ways: [.init("ABC"), .init("ADEC")])
        let (nav, _) = start(roads, to: "C")
        #expect(nav.routeLegs[0].geometry.contains { Geodesy.distanceMeters($0, roads["B"]) < 1 })
        let jam = nav.updateTraffic(
            [TrafficObservation(osmWayID: 1, speedKph: 5, observedAt: t0.addingTimeInterval(1))],
            at: t0.addingTimeInterval(1))
        #expect(transcript(jam) == ["delay(heavy)"])
        let events = nav.process(
            RawFix(coordinate: roads["A"], timestamp: t0.addingTimeInterval(2), speedMetersPerSecond: 0))
        #expect(
            transcript(events).filter { $0.hasPrefix("route(") || $0.hasPrefix("delay(") }
                == ["route(fasterRoute ok leg=0 legs=1)", "delay(noData)"])
        #expect(nav.routeLegs[0].geometry.contains { Geodesy.distanceMeters($0, roads["E"]) < 1 })
        // The check runs only after the feed changes, at most every 120 s.
        let quiet = nav.process(
            RawFix(coordinate: roads["A"], timestamp: t0.addingTimeInterval(3), speedMetersPerSecond: 0))
        #expect(quiet.routeChanges.isEmpty)
    }

    @Test func rerouteUsesTraffic() throws {
        // Off route at B towards D; from D the short way D–E is jammed, so the reroute goes round by F and G.
        let roads = try DrawnRoads(
            """
            A-------B-------C-------H
                    |               |
                    D---------------E
                    |               |
                    F---------------G
            """, gridMeters: 25, ways: [.init("ABCH"), .init("BDF"), .init("DE"), .init("HEG"), .init("FG")])
        let (nav, _) = start(roads, to: "H")
        _ = nav.updateTraffic([TrafficObservation(osmWayID: 3, speedKph: 2, observedAt: t0)], at: t0)
        let events = nav.process(drive(roads.path("ABD"), speed: 10, from: t0.addingTimeInterval(1)))
        let reroute = try #require(events.routeChanges.first)
        #expect(reroute.reason == .offRoute)
        #expect(reroute.legs[0].geometry.contains { Geodesy.distanceMeters($0, roads["G"]) < 1 })
    }
}
