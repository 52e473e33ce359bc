import Foundation
import Geo
import Navigation
import Testing

/// An off-route decision whose new route is the rest of the current leg, starting well ahead of the progress estimate,
/// announces nothing (`NavigatorConfiguration.offRouteKeepsUnchangedRoute`): a `nav/route` saying "offRoute" with the
/// route the vehicle is already on tells dispatch nothing true. The first 25 fixes of held-out SUMO Helsinki seed 15
/// probe26 at 1 s with speed and course left out (σ = 8 m noise as recorded): the route, set at the first fix, sets off
/// the other way and comes back past the vehicle about 500 m later; three fixes on, the vehicle was "rerouted" from
/// there onto the leg's own remainder: no new road, only the first 500 m cut out (1 333 m planned). Now the progress
/// estimate moves to that point of the leg instead.
@Suite(.enabled(if: HelsinkiExtract.isPresent, "Helsinki.osm.pbf missing: run scripts/fetch-maps"))
struct UnchangedRouteTests {
    /// Seconds from the first fix, latitude, longitude.
    static let fixes: [(Double, Double, Double)] = [
        (0, 60.1655109, 24.9434937),
        (1, 60.1653875, 24.9436998),
        (2, 60.1655477, 24.9440538),
        (3, 60.1656253, 24.9440318),
        (4, 60.1658298, 24.9438987),
        (5, 60.1657733, 24.9440557),
        (6, 60.1658774, 24.9439953),
        (7, 60.1658411, 24.9440638),
        (8, 60.1660341, 24.9440329),
        (9, 60.1660107, 24.9439354),
        (10, 60.1659858, 24.9437126),
        (11, 60.1661294, 24.9441131),
        (12, 60.1661672, 24.9440890),
        (13, 60.1662326, 24.9437830),
        (14, 60.1662172, 24.9439616),
        (15, 60.1663842, 24.9438423),
        (16, 60.1663011, 24.9440270),
        (17, 60.1664946, 24.9437522),
        (18, 60.1665227, 24.9435536),
        (19, 60.1665134, 24.9440647),
        (20, 60.1665714, 24.9435716),
        (21, 60.1666553, 24.9437837),
        (22, 60.1666546, 24.9439606),
        (23, 60.1666061, 24.9438393),
        (24, 60.1665910, 24.9440238)
    ]
    static let start = Date(timeIntervalSince1970: 1796025990)
    static let destination = Coordinate(latitude: 60.170599, longitude: 24.949192)

    /// The off-route route changes, the metres to go after the last fix, and the leg's length when set.
    private func run(keepsUnchanged: Bool) throws -> (offRoute: Int, toGo: Double, legMeters: Double) {
        var configuration = NavigatorConfiguration()
        configuration.offRouteKeepsUnchangedRoute = keepsUnchanged
        let r = replayToDestination(
            Self.fixes, start: Self.start, destination: Self.destination, graph: try #require(HelsinkiExtract.graph),
            configuration)
        return (r.offRoute, r.toGo, r.legMeters)
    }

    @Test func theVehicleStaysOnItsRouteAndItsProgressMovesOn() throws {
        let r = try run(keepsUnchanged: true)
        #expect(r.offRoute == 0, "\(r)")
        #expect(r.toGo < r.legMeters - 300, "\(r)")  // the first 500 m are behind it
    }

    /// Control: without the rule the same route is announced as a reroute.
    @Test func withoutTheRuleTheSameRouteIsAnnouncedAsAReroute() throws {
        #expect(try run(keepsUnchanged: false).offRoute == 1)
    }
}
