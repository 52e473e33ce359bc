import Foundation
import MQTT
import Testing

@testable import Agent

/// The bounded inbox between the network thread and the agent's queue; the clock is driven by the test.
@Suite struct InputInboxTests {
    static let second: UInt64 = 1_000_000_000

    func fix(_ vehicle: String, _ n: Int, at time: UInt64) -> InboxEntry {
        InboxEntry(target: .vehicle(vehicle, .location),
                   message: MQTTMessage(topic: "fleet/\(vehicle)/location/raw", payload: Array("fix \(n)".utf8), retain: false),
                   receivedAtNanoseconds: time)
    }

    func command(_ vehicle: String, _ n: Int, at time: UInt64) -> InboxEntry {
        InboxEntry(target: .vehicle(vehicle, .command),
                   message: MQTTMessage(topic: "fleet/\(vehicle)/nav/command", payload: Array("cmd \(n)".utf8), retain: false),
                   receivedAtNanoseconds: time)
    }

    func texts(_ entries: [InboxEntry]) -> [String] { entries.map { String(decoding: $0.message.payload, as: UTF8.self) } }

    func limits(rate: Double = 1000, burst: Int = 1000, fixes: Int = 8, control: Int = 64, fleet: Int = 100) -> InboxLimits {
        var limits = InboxLimits()
        limits.maximumFixArrivalsPerSecond = rate
        limits.fixArrivalBurst = burst
        limits.maximumQueuedFixesPerVehicle = fixes
        limits.maximumQueuedControlInputsPerVehicle = control
        limits.maximumQueuedFleetInputs = fleet
        return limits
    }

    @Test func theFirstPutSchedulesOneDrainAndAnEmptyTakeEndsIt() {
        let inbox = InputInbox(limits: limits())
        #expect(inbox.put(fix("a", 1, at: 1)))
        #expect(!inbox.put(fix("a", 2, at: 2)), "a drain is already scheduled")
        #expect(texts(inbox.take(maximum: 10).entries) == ["fix 1", "fix 2"])
        #expect(!inbox.put(fix("a", 3, at: 3)), "the drain has not seen an empty inbox yet")
        #expect(texts(inbox.take(maximum: 10).entries) == ["fix 3"])
        #expect(inbox.take(maximum: 10).isEmpty)
        #expect(inbox.put(fix("a", 4, at: 4)), "after an empty take the next put schedules again")
    }

    @Test func aBacklogKeepsOnlyTheNewestFixesPerVehicleAndCountsTheRest() {
        let inbox = InputInbox(limits: limits(fixes: 3))
        for n in 1...10 { _ = inbox.put(fix("a", n, at: UInt64(n))) }
        _ = inbox.put(command("a", 1, at: 11))
        #expect(inbox.counters.fixesDroppedBacklog == 7)
        #expect(inbox.counters.depth == 4)
        #expect(texts(inbox.take(maximum: 100).entries) == ["cmd 1", "fix 8", "fix 9", "fix 10"],
                "the command does not wait behind the fixes")
        #expect(inbox.counters.depth == 0)
    }

    @Test func commandsAreNeverCoalescedButRefusedBeyondTheirBoundAndReported() {
        let inbox = InputInbox(limits: limits(control: 2))
        for n in 1...5 { _ = inbox.put(command("a", n, at: UInt64(n))) }
        let batch = inbox.take(maximum: 100)
        #expect(texts(batch.entries) == ["cmd 1", "cmd 2"])
        #expect(batch.refusals == [InboxRefusal(target: .vehicle("a", .command), topic: "fleet/a/nav/command", count: 3,
                                                payloadExcerpt: Array("cmd 5".utf8))])
        #expect(inbox.counters.inputsRefused == 3)
        #expect(inbox.take(maximum: 100).refusals.isEmpty, "reported once")
    }

    @Test func fleetInputsShareOneBoundedQueueAndGoFirst() {
        let inbox = InputInbox(limits: limits(fleet: 2))
        _ = inbox.put(fix("a", 1, at: 1))
        for n in 1...3 {
            _ = inbox.put(InboxEntry(target: .place("p\(n)"), message: MQTTMessage(topic: "fleet/places/p\(n)",
                                     payload: Array("place \(n)".utf8), retain: true), receivedAtNanoseconds: 2))
        }
        let batch = inbox.take(maximum: 100)
        #expect(texts(batch.entries) == ["place 1", "place 2", "fix 1"])
        #expect(batch.refusals.map(\.topic) == ["fleet/places/p3"])
    }

    @Test func vehiclesTakeTurnsAndEachKeepsItsOrder() {
        let inbox = InputInbox(limits: limits())
        _ = inbox.put(fix("a", 1, at: 1))
        _ = inbox.put(fix("b", 1, at: 2))
        _ = inbox.put(command("a", 2, at: 3))
        let batch = inbox.take(maximum: 2)
        #expect(batch.entries.map(\.message.topic) == ["fleet/a/nav/command", "fleet/a/location/raw"])
        #expect(inbox.take(maximum: 2).entries.map(\.message.topic) == ["fleet/b/location/raw"])
    }

    @Test func overTheRateTheNewestFixIsHeldAndLetThroughWhenATokenComes() {
        let inbox = InputInbox(limits: limits(rate: 10, burst: 2, fixes: 16))
        let t0: UInt64 = 5 * Self.second
        // 100 fixes in 10 ms: the burst of 2 passes, the rest are coalesced into one held fix.
        for n in 1...100 { _ = inbox.put(fix("a", n, at: t0 + UInt64(n) * 100_000)) }
        #expect(texts(inbox.take(maximum: 100).entries) == ["fix 1", "fix 2"])
        #expect(inbox.counters.fixesCoalescedRate == 97)
        #expect(inbox.counters.depth == 1, "the held fix")
        #expect(inbox.take(maximum: 100).isEmpty, "held, not handed out yet")
        #expect(!inbox.releaseHeld(now: t0 + 50_000_000), "half a token after 50 ms at 10/s")
        #expect(inbox.releaseHeld(now: t0 + 120_000_000), "a token after 100 ms: released, a drain is due")
        #expect(texts(inbox.take(maximum: 100).entries) == ["fix 100"], "the newest one")
        // At the limit's pace every fix passes.
        for n in 0..<10 {
            let time = t0 + Self.second + UInt64(n) * 100_000_000
            _ = inbox.put(fix("a", 200 + n, at: time))
            _ = inbox.releaseHeld(now: time)
        }
        #expect(inbox.take(maximum: 100).entries.count == 10)
        #expect(inbox.counters.fixesCoalescedRate == 97)
    }

    @Test func aVehicleWithALongQueueTakesTurnsWithTheOthers() {
        let inbox = InputInbox(limits: limits(fixes: 100))
        for n in 1...40 { _ = inbox.put(fix("a", n, at: UInt64(n))) }
        _ = inbox.put(fix("b", 1, at: 41))
        let topics = inbox.take(maximum: 100).entries.map(\.message.topic)
        #expect(topics.count == 41)
        #expect(topics.firstIndex(of: "fleet/b/location/raw") == InputInbox.entriesPerTurn)
    }

    @Test func theTotalOfQueuedFixesIsBoundedToo() {
        var limits = limits(fixes: 100)
        limits.maximumQueuedFixes = 3
        let inbox = InputInbox(limits: limits)
        _ = inbox.put(fix("a", 1, at: 1))
        _ = inbox.put(fix("a", 2, at: 2))
        _ = inbox.put(fix("b", 1, at: 3))
        _ = inbox.put(fix("c", 1, at: 4))  // c has nothing queued to give up: its fix goes
        _ = inbox.put(fix("a", 3, at: 5))  // a gives up its oldest
        #expect(inbox.counters.fixesDroppedBacklog == 2)
        #expect(texts(inbox.take(maximum: 100).entries) == ["fix 2", "fix 3", "fix 1"])
    }

    @Test func aFixLetThroughByAFreshTokenReplacesTheOlderHeldOne() {
        let inbox = InputInbox(limits: limits(rate: 10, burst: 1))
        _ = inbox.put(fix("a", 1, at: 1))
        _ = inbox.put(fix("a", 2, at: 2))  // over the rate: held
        _ = inbox.put(fix("a", 3, at: 2 + 150_000_000))  // a token again: goes straight in, and fix 2 is stale now
        _ = inbox.releaseHeld(now: 2 + 400_000_000)  // nothing is held any more
        #expect(texts(inbox.take(maximum: 100).entries) == ["fix 1", "fix 3"], "never fix 2 after fix 3")
        #expect(inbox.counters.fixesCoalescedRate == 1)
        #expect(inbox.counters.depth == 0)
    }

    @Test func theRateIsPerVehicle() {
        let inbox = InputInbox(limits: limits(rate: 1, burst: 1))
        _ = inbox.put(fix("a", 1, at: 1))
        _ = inbox.put(fix("a", 2, at: 2))
        _ = inbox.put(fix("b", 1, at: 3))
        #expect(texts(inbox.take(maximum: 100).entries) == ["fix 1", "fix 1"])
    }
}

@Suite struct ErrorThrottleTests {
    let t0 = Date(timeIntervalSince1970: 2_000_000)

    @Test func oneErrorPerCodeAndTopicPerIntervalThenASummaryWithTheCount() {
        var throttle = ErrorThrottle(intervalSeconds: 1)
        let bad = AgentInputError(.outOfRange, "lat 95")
        var admitted = throttle.admit(bad, topic: "raw", payload: Array("p0".utf8), now: t0)
        #expect(admitted)
        var admittedLater = 0
        for n in 1...500 {
            if throttle.admit(AgentInputError(.outOfRange, "lat \(95 + n)"), topic: "raw", payload: Array("p\(n)".utf8),
                              now: t0.addingTimeInterval(Double(n) / 1000)) { admittedLater += 1 }
        }
        #expect(admittedLater == 0)
        admitted = throttle.admit(AgentInputError(.outOfRange, "on commands"), topic: "command", payload: nil, now: t0)
        #expect(admitted, "another topic has its own allowance")
        admitted = throttle.admit(AgentInputError(.invalidJSON, "x"), topic: "raw", payload: nil, now: t0)
        #expect(admitted, "another code has its own allowance")
        #expect(throttle.hasSuppressed)
        let early = throttle.dueSummaries(now: t0.addingTimeInterval(0.9))
        #expect(early.isEmpty, "not before the interval")
        let due = throttle.dueSummaries(now: t0.addingTimeInterval(1.01))
        #expect(due.count == 1)
        #expect(due.first?.count == 500)
        #expect(due.first?.error.message == "lat 595")
        #expect(due.first?.payload == Array("p500".utf8))
        #expect(due.first?.summary.code == .outOfRange)
        #expect(!throttle.hasSuppressed)
        admitted = throttle.admit(bad, topic: "raw", payload: nil, now: t0.addingTimeInterval(1.5))
        #expect(!admitted, "the summary counts as the interval's error")
        admitted = throttle.admit(bad, topic: "raw", payload: nil, now: t0.addingTimeInterval(2.6))
        #expect(!admitted, "one is held back: later ones join its summary rather than overtake it")
        let next = throttle.dueSummaries(now: t0.addingTimeInterval(2.6))
        #expect(next.first?.count == 2)
    }

    @Test func zeroIntervalAdmitsEverything() {
        var throttle = ErrorThrottle(intervalSeconds: 0)
        var admitted = 0
        for _ in 0..<10 where throttle.admit(AgentInputError(.invalidJSON, "x"), topic: nil, payload: nil, now: t0) {
            admitted += 1
        }
        #expect(admitted == 10)
        #expect(!throttle.hasSuppressed)
    }
}

/// The inbox and backlog counters reach `agent/metrics` under the names topics.md documents.
@Suite struct InboxMetricsTests {
    @Test func metricsCarryTheInboxBacklogAndErrorLimitCounters() throws {
        let metrics = AgentMetrics()
        metrics.fixesThinned = 3
        metrics.fixesWithoutSpeedOrCourse = 6
        metrics.errorsSuppressed = 7
        var counters = InboxCounters()
        counters.fixesDroppedBacklog = 1
        counters.fixesCoalescedRate = 2
        counters.inputsRefused = 4
        counters.depth = 5
        var backlog = PublishBacklog(maximumMessages: 1)
        _ = backlog.hold(PublishBacklog.Message(topic: "v/nav/arrival", payload: [], retain: true, kind: .event, isError: false))
        _ = backlog.hold(PublishBacklog.Message(topic: "v/nav/route", payload: [], retain: true, kind: .event, isError: false))
        let body = JSONValue.object(metrics.snapshot(now: Date(), outboxDepth: 0, vehicles: 1, inbox: counters, backlog: backlog))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.text.utf8)) as? [String: Any])
        #expect(json["fixesThinned"] as? Int == 3)
        #expect(json["fixesWithoutSpeedOrCourse"] as? Int == 6)
        #expect(json["errorsSuppressed"] as? Int == 7)
        let inbox = try #require(json["inbox"] as? [String: Any])
        #expect(inbox["depth"] as? Int == 5)
        #expect(inbox["fixesDroppedBacklog"] as? Int == 1)
        #expect(inbox["fixesCoalescedRate"] as? Int == 2)
        #expect(inbox["inputsRefused"] as? Int == 4)
        let held = try #require(json["backlog"] as? [String: Any])
        #expect(held["depth"] as? Int == 1)
        #expect(held["held"] as? Int == 2)
        #expect(held["eventsLost"] as? Int == 1)
        #expect(held["errorsDropped"] as? Int == 0)
    }
}
