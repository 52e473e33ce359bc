import Testing

@testable import Agent

/// Which vehicle and input a topic is, decided on the network thread from the topic alone.
@Suite struct InputRouterTests {
    func router(fleet: Bool, locationTopic: String? = nil) throws -> InputRouter {
        let topics = try TopicTree(prefix: "fleet", vehicleID: fleet ? "agents" : "van-1")
        return InputRouter(isFleet: fleet, prefix: "fleet", vehicleID: fleet ? "agents" : "van-1", topics: topics,
                           locationTopic: locationTopic)
    }

    @Test func fleetTopicsNameTheVehicleAndTheInput() throws {
        let router = try router(fleet: true)
        #expect(router.target(of: "fleet/v7/location/raw") == .vehicle("v7", .location))
        #expect(router.target(of: "fleet/v7/nav/destinations") == .vehicle("v7", .destinations))
        #expect(router.target(of: "fleet/v7/nav/command") == .vehicle("v7", .command))
        #expect(router.target(of: "fleet/traffic") == .traffic)
        #expect(router.target(of: "fleet/places/depot") == .place("depot"))
    }

    @Test func fleetTopicsOfOtherShapesAreUnknown() throws {
        let router = try router(fleet: true)
        for topic in ["fleet/v7/location/raw/extra", "fleet/v7/location", "fleet/v7", "fleet/v7/nav/eta",
                      "other/v7/location/raw", "fleetx/v7/location/raw", "fleet/v7/location/rawx"] {
            #expect(router.target(of: topic) == .unknown, "\(topic)")
        }
    }

    @Test func oneVehicleReadsItsOwnTopicsOrTheGivenLocationTopic() throws {
        let router = try router(fleet: false)
        #expect(router.target(of: "fleet/van-1/location/raw") == .vehicle("van-1", .location))
        #expect(router.target(of: "fleet/van-1/nav/destinations") == .vehicle("van-1", .destinations))
        #expect(router.target(of: "fleet/van-2/location/raw") == .unknown)
        let owntracks = try self.router(fleet: false, locationTopic: "owntracks/alice/phone")
        #expect(owntracks.target(of: "owntracks/alice/phone") == .vehicle("van-1", .location))
        #expect(owntracks.target(of: "fleet/van-1/location/raw") == .unknown)
    }
}
