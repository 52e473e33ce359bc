import Foundation
import Geo
import MapMatching
import Navigation
import Testing

/// SUMO Liechtenstein seed 15 probe30 at 5 s without speed and course (the white noise of the benchmarks), its last
/// 34 fixes: at 23 m/s the vehicle passed its midpoint on a bend of Landstrasse between a fix 40 m before it and one
/// 65 m past it. The line between the matched positions ran 25 m wide of the waypoint (no passing through), and the
/// step between them, a chord across the bend, ran more than 60° from the road's direction at the second fix, so the
/// rule for a vehicle found on the next leg after a sparse interval did not take it either: the vehicle was sent back
/// to the midpoint six times and neither arrival was announced (`arrivalAfterGapStepAlongRoadChord`).
@Suite(.enabled(if: LiechtensteinExtract.isPresent, "../shared/maps/liechtenstein.osm.pbf is not there"))
struct PositionsOnlyBendArrivalTests {
    /// Seconds after the first fix, latitude, longitude; reported accuracy 10 m, no speed, no course.
    private let fixes: [(Double, Double, Double)] = [
        (0, 47.2325686, 9.5347703),
        (5, 47.2314941, 9.5348150),
        (10, 47.2307377, 9.5337431),
        (15, 47.2300749, 9.5334441),
        (20, 47.2298280, 9.5326974),
        (25, 47.2287924, 9.5332888),
        (30, 47.2284377, 9.5341705),
        (35, 47.2283547, 9.5355737),
        (40, 47.2282435, 9.5363288),
        (45, 47.2285127, 9.5388883),
        (50, 47.2288429, 9.5391361),
        (55, 47.2278182, 9.5386828),
        (60, 47.2273818, 9.5391873),
        (65, 47.2276879, 9.5397043),
        (70, 47.2282976, 9.5409264),
        (75, 47.2289724, 9.5418856),
        (80, 47.2295044, 9.5433378),
        (85, 47.2299786, 9.5445382),
        (90, 47.2305839, 9.5456967),
        (95, 47.2309079, 9.5473196),
        (100, 47.2299347, 9.5468962),
        (105, 47.2292430, 9.5473762),
        (110, 47.2283044, 9.5483940),
        (115, 47.2274191, 9.5485815),
        (120, 47.2268032, 9.5474881),
        (125, 47.2261196, 9.5464266),
        (130, 47.2255765, 9.5454711),
        (135, 47.2248154, 9.5444927),
        (140, 47.2247315, 9.5450035),
        (145, 47.2249034, 9.5456856),
        (150, 47.2248440, 9.5452430),
        (155, 47.2247106, 9.5446337),
        (160, 47.2248996, 9.5447523),
        (165, 47.2254367, 9.5455899),
    ]

    /// The arrivals and every off-route reroute of the drive.
    private func drive(_ configuration: NavigatorConfiguration) throws -> (arrivals: [String], offRoute: Int) {
        let raw = recordedPositions(fixes, start: Date(timeIntervalSince1970: 1796026175))
        let waypoints = [
            NavigationWaypoint(coordinate: Coordinate(latitude: 47.228511, longitude: 9.533343), title: "midpoint"),
            NavigationWaypoint(coordinate: Coordinate(latitude: 47.225466, longitude: 9.54557), title: "end"),
        ]
        let r = driveRecorded(
            on: try #require(LiechtensteinExtract.graph), raw, to: waypoints, configuration: configuration)
        let offRoute = r.steps.reduce(0) { $0 + $1.events.routeChanges.filter { $0.reason == .offRoute }.count }
        return (r.arrivals, offRoute)
    }

    @Test func aMidpointPassedOnABendBetweenTwoPositionsOnlyFixesArrives() throws {
        let with = try drive(NavigatorConfiguration())
        #expect(with.arrivals == ["midpoint", "end"])
        #expect(with.offRoute == 0)
        var configuration = NavigatorConfiguration()
        configuration.arrivalAfterGapStepAlongRoadChord = false
        let without = try drive(configuration)
        #expect(without.arrivals.isEmpty, "control: \(without)")
        #expect(without.offRoute >= 3, "control: \(without)")
    }
}
