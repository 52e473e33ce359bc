import Foundation
import Geo
import MQTT
import Testing

@testable import Agent

/// How much of the network thread's time may go to handling fixes inline.
@Suite struct InlineBudgetTests {
    static let millisecond: UInt64 = 1_000_000

    @Test func admitsUntilTheWindowsShareIsSpentThenAgainInTheNextWindow() {
        var limits = InboxLimits()
        limits.inlineShare = 0.5
        limits.inlineWindowSeconds = 0.01
        var budget = InlineBudget()
        let start: UInt64 = 1_000 * Self.millisecond
        let first = budget.admits(now: start, limits: limits)
        #expect(first)
        budget.charge(3 * Self.millisecond)
        let partlySpent = budget.admits(now: start + Self.millisecond, limits: limits)
        #expect(partlySpent, "3 of 5 ms spent")
        budget.charge(2 * Self.millisecond)
        let spent = budget.admits(now: start + 6 * Self.millisecond, limits: limits)
        #expect(!spent, "5 of 5 ms spent")
        let nextWindow = budget.admits(now: start + 10 * Self.millisecond, limits: limits)
        #expect(nextWindow, "a new window")
    }

    @Test func aZeroShareNeverAdmits() {
        var limits = InboxLimits()
        limits.inlineShare = 0
        var budget = InlineBudget()
        let admitted = budget.admits(now: 5 * Self.millisecond, limits: limits)
        #expect(!admitted)
    }

    @Test func aShareOutsideZeroToOneIsRefused() {
        var limits = InboxLimits()
        limits.inlineShare = 1.5
        #expect(throws: AgentConfigurationError.self) { try limits.validate() }
        limits.inlineShare = 1
        limits.inlineWindowSeconds = 0
        #expect(throws: AgentConfigurationError.self) { try limits.validate() }
    }
}

/// A fix that finds the inbox idle is handled on the network thread at once; anything else waits for the queue.
@Suite struct InlineHandlingTests {
    func runtime(_ directory: String) throws -> AgentRuntime {
        // Port 1 on loopback: nothing listens; the client is never started, so outputs stay in the outbox. Without a
        // map every vehicle input is answered with `noMap` on agent/error: an output to look for.
        let configuration = AgentConfiguration(brokerURL: "mqtt://127.0.0.1:1", vehicleID: "van-1", stateDirectory: directory)
        return try AgentRuntime(configuration: configuration, logger: Logger(minimumLevel: .error, sink: { _ in }))
    }

    func errors(_ runtime: AgentRuntime) -> Int {
        runtime.client.outbox.snapshot().filter { $0.topic == "fleet/van-1/agent/error" }.count
    }

    func message(_ topic: String) -> MQTTMessage {
        MQTTMessage(topic: "fleet/van-1/" + topic, payload: Array(#"{"lat":60.1,"lon":24.9,"timestamp":1}"#.utf8),
                    retain: false)
    }

    @Test func aFixOnAnIdleInboxIsHandledBeforeDeliverReturns() throws {
        let directory = NSTemporaryDirectory() + "edgenav-inline-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runtime = try runtime(directory)
        runtime.messageInbox.deliver(message("location/raw"))
        #expect(errors(runtime) == 1, "answered at once, on the caller's thread")
        #expect(runtime.metrics.fixesInline == 1)
        #expect(runtime.inbox.counters.depth == 0)
        // The inbox's drain ended: the next fix is inline again.
        runtime.messageInbox.deliver(message("location/raw"))
        #expect(runtime.metrics.fixesInline == 2)
    }

    @Test func whileTheQueueHoldsTheStateAFixWaitsForIt() throws {
        let directory = NSTemporaryDirectory() + "edgenav-inline-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runtime = try runtime(directory)
        runtime.stateLock.lock()
        runtime.messageInbox.deliver(message("location/raw"))
        #expect(runtime.metrics.fixesInline == 0)
        #expect(runtime.inbox.counters.depth == 1, "queued for the agent's queue")
        runtime.stateLock.unlock()
        _ = runtime.vehicleCount  // runs after the scheduled drain on the queue
        #expect(errors(runtime) == 1)
        #expect(runtime.inbox.counters.depth == 0)
        #expect(runtime.metrics.fixesInline == 0)
    }

    @Test func assignmentsAndCommandsAlwaysGoThroughTheQueue() throws {
        let directory = NSTemporaryDirectory() + "edgenav-inline-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runtime = try runtime(directory)
        runtime.messageInbox.deliver(message("nav/command"))
        _ = runtime.vehicleCount
        #expect(errors(runtime) == 1)
        #expect(runtime.metrics.fixesInline == 0)
    }
}

/// Output topic names are built once per vehicle; they must be the names topics.md gives.
@Suite struct TopicTreeOutputTests {
    @Test func everyOutputTopicIsPrefixVehicleAndTheTopicsPath() throws {
        let tree = try TopicTree(prefix: "depot/7", vehicleID: "van-1")
        for topic in OutputTopic.allCases {
            #expect(tree.output(topic) == "depot/7/van-1/" + topic.rawValue)
        }
        #expect(tree.output(.snappedLocation) == tree.snappedLocation)
        #expect(tree.output(.error) == tree.error)
    }
}

/// The fix that starts a trip's route is left to the agent's queue: a route search must not hold up the network thread.
@Suite struct InlineRoutingTests {
    @Test func theFixThatStartsTheRouteGoesToTheQueueAndTheNextIsInline() throws {
        let street = try StreetFixture()
        let directory = NSTemporaryDirectory() + "edgenav-inline-route-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = AgentConfiguration(brokerURL: "mqtt://127.0.0.1:1", vehicleID: "van-1", stateDirectory: directory)
        let runtime = try AgentRuntime(configuration: configuration, logger: Logger(minimumLevel: .error, sink: { _ in }),
                                       map: street.map)
        func deliver(_ topic: String, _ payload: String) {
            runtime.messageInbox.deliver(MQTTMessage(topic: "fleet/van-1/" + topic, payload: Array(payload.utf8), retain: false))
        }
        func routes() -> Int { runtime.client.outbox.snapshot().filter { $0.topic == "fleet/van-1/nav/route" }.count }
        deliver("nav/destinations", #"{"assignmentId":"t1","waypoints":[{"lat":\#(street.c.latitude),"lon":\#(street.c.longitude),"title":"C"}]}"#)
        _ = runtime.vehicleCount  // after the queue handled it
        #expect(routes() == 0, "waiting for the vehicle's position")

        let now = Date().timeIntervalSince1970
        deliver("location/raw", #"{"lat":\#(street.a.latitude),"lon":\#(street.a.longitude),"timestamp":\#(now - 1)}"#)
        #expect(runtime.metrics.fixesInline == 0, "this fix routes: left to the queue")
        _ = runtime.vehicleCount  // the drain that handled it
        _ = runtime.vehicleCount  // the drain that found the inbox empty and ended
        #expect(routes() == 1)

        func snapped() -> [OutboxMessage] {
            runtime.client.outbox.snapshot().filter { $0.topic == "fleet/van-1/location/snapped" }
        }
        let first = snapped()
        #expect(first.count == 1)
        let next = Coordinate(latitude: street.a.latitude, longitude: street.a.longitude + 0.0001)
        deliver("location/raw", #"{"lat":\#(next.latitude),"lon":\#(next.longitude),"timestamp":\#(now)}"#)
        #expect(runtime.metrics.fixesInline == 1, "the route exists: handled at once")
        #expect(snapped() == first, "its outputs wait for the end of the read that delivered the fix")
        runtime.messageInbox.deliveriesEnded()
        let second = snapped()
        #expect(second.count == 1, "coalesced in the outbox to the newest (a state topic)")
        #expect(second.first?.sequence ?? 0 > first.first?.sequence ?? 0)
    }

    @Test func theOutputsOfSeveralInlineFixesInOneReadAreStoredTogetherInOrder() throws {
        let street = try StreetFixture()
        let directory = NSTemporaryDirectory() + "edgenav-inline-read-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = AgentConfiguration(brokerURL: "mqtt://127.0.0.1:1", vehicleID: "+", stateDirectory: directory)
        configuration.inbox.minimumFixSpacingSeconds = 0
        // Every fix inline however slow the machine (the budget is tested above): a debug build on a loaded machine
        // can spend the default 5 ms of a 10 ms window on the first fixes alone.
        configuration.inbox.inlineShare = 1
        configuration.inbox.inlineWindowSeconds = 3600
        let runtime = try AgentRuntime(configuration: configuration, logger: Logger(minimumLevel: .error, sink: { _ in }),
                                       map: street.map)
        let now = Date().timeIntervalSince1970
        let vehicles = ["v1", "v2", "v3"]
        for vehicle in vehicles {  // sessions and navigators exist before the read
            runtime.messageInbox.deliver(MQTTMessage(topic: "fleet/\(vehicle)/location/raw", payload: Array(
                #"{"lat":\#(street.a.latitude),"lon":\#(street.a.longitude),"timestamp":\#(now - 2)}"#.utf8), retain: false))
        }
        runtime.messageInbox.deliveriesEnded()
        let stored = runtime.client.outbox.count
        let journalBefore = runtime.client.outbox.journalBytes
        for vehicle in vehicles {
            runtime.messageInbox.deliver(MQTTMessage(topic: "fleet/\(vehicle)/location/raw", payload: Array(
                #"{"lat":\#(street.a.latitude),"lon":\#(street.a.longitude + 0.0001),"timestamp":\#(now - 1)}"#.utf8),
                retain: false))
        }
        #expect(runtime.metrics.fixesInline == 6)
        #expect(runtime.client.outbox.journalBytes == journalBefore, "nothing written before the read ends")
        runtime.messageInbox.deliveriesEnded()
        #expect(runtime.client.outbox.journalBytes > journalBefore)
        let snapped = runtime.client.outbox.snapshot().filter { $0.topic.hasSuffix("/location/snapped") }
        #expect(snapped.map(\.topic) == vehicles.map { "fleet/\($0)/location/snapped" }, "in the order of the fixes")
        #expect(runtime.client.outbox.count == stored, "each vehicle's newer states replaced its older ones")
        runtime.messageInbox.deliveriesEnded()  // nothing handled since: nothing to do
    }
}
