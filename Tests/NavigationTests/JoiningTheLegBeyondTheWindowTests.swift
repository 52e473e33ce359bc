import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph
import Testing

/// A vehicle that drives through a bollard its route goes round, onto the last stretch of that route. A traffic
/// simulator does this (SUMO ignores barrier nodes: Liechtenstein seed 17 probe4 drove through one onto the last
/// 140 m of a 1.3 km leg planned round the block); so may a driver whose map is out of date. The matcher holds the
/// vehicle on the leg, but the navigator's search window around its progress estimate (600 m ahead) does not reach
/// that stretch: each fix was off the leg there, the matcher's odds for the route vetoed every reroute, and nothing
/// moved until the trace ended: no progress, no remaining time, no arrival. Now the snapper projects such a fix onto
/// the pass the matcher holds it on (`MapMatcherSnapper.followsMatcherOntoLegBeyondWindow`).
@Suite struct JoiningTheLegBeyondTheWindowTests {
    /// Grid 20 m. The street A–V–X–B–W–Z has a bollard at X. The vehicle is at V driving east at 10 m/s when the
    /// destination W (240 m east of B) is set: the leg runs east to the bollard, turns there,
    /// goes west to A, round the long block A–P–Q–S–R and up to B, then east to W (2.1 km, B at 1.9 km). The vehicle
    /// drives on east through X, past W and to Z, a fix every second with its speed and course. Returns the leg's
    /// length when set, where the arrivals came (metres from W) and how many times it was rerouted.
    private func trip(followsMatcher: Bool) throws -> (routeMeters: Double, arrivals: [Double], reroutes: Int) {
        let roads = try DrawnRoads(
            """
            P---------------------------------------Q
            |                                       |
            |                                       |
            |                                       |
            A---V-XB-----------W--------Z           |
                   |                                |
                   |                                |
                   R--------------------------------S
            """, gridMeters: 20,
            ways: [.init("AVXBWZ"), .init("AP"), .init("PQ"), .init("QS"), .init("SR"), .init("RB")],
            barriers: ["X": [.walking, .cycling]])
        let snapper = MapMatcherSnapper(index: RoadGeometryIndex(graph: roads.graph))
        snapper.followsMatcherOntoLegBeyondWindow = followsMatcher
        let nav = NavigatorCore(graph: roads.graph, snapper: snapper)
        _ = nav.process(RawFix(coordinate: roads["V"], timestamp: t0, courseDegrees: 90, speedMetersPerSecond: 10))
        let (status, events) = nav.setDestinations([NavigationWaypoint(coordinate: roads["W"], title: "W")], at: t0)
        #expect(status == .ok)
        let routeMeters = events.routeChanges.first?.legs.first?.distanceMeters ?? 0
        var arrivals: [Double] = []
        var reroutes = 0
        for fix in drive(roads.path("VXBWZ"), speed: 10, interval: 1, from: t0.addingTimeInterval(1), startOffset: 10) {
            let out = nav.process(fix)
            reroutes += out.routeChanges.filter { $0.reason == .offRoute }.count
            if !out.arrivals.isEmpty { arrivals.append(Geodesy.distanceMeters(roads["W"], fix.coordinate)) }
        }
        return (routeMeters, arrivals, reroutes)
    }

    @Test func theVehicleIsFollowedOntoTheLegsLastStretchAndArrives() throws {
        let r = try trip(followsMatcher: true)
        #expect(r.routeMeters > 1500, "\(r)")  // round the block
        #expect(r.arrivals.count == 1 && r.arrivals[0] <= 30, "\(r)")
        #expect(r.reroutes == 0, "\(r)")  // it is on its route
    }

    /// Control: projected in the window only, the vehicle is off the leg at every fix past the bollard, the matcher's
    /// odds veto the reroute, and it passes W unannounced.
    @Test func withoutFollowingTheMatcherTheArrivalIsLost() throws {
        let r = try trip(followsMatcher: false)
        #expect(r.arrivals.isEmpty, "\(r)")
    }
}
