import Foundation
import Geo
import Navigation
import RoadGraph
import TestKit
import Testing

@testable import Agent

/// A straight two-way street drawn west to east: A (start), B (first stop, 300 m), C (second stop, 600 m).
/// A new fixture at every use: a `NavigationMap`'s router and search scratch may be used by one thread at a time
/// (the agent's state lock), and Swift Testing runs these tests in parallel (a shared map crashed in
/// `Router.costTable` once, two sessions routing at the same time).
private var street: StreetFixture { try! StreetFixture() }

struct StreetFixture {
    let map: NavigationMap
    let a: Coordinate, b: Coordinate, c: Coordinate

    init() throws {
        let drawing = "A" + String(repeating: "-", count: 29) + "B" + String(repeating: "-", count: 29) + "C"
        let ascii = ASCIIMap(drawing)
        var builder = RoadGraphBuilder()
        let nodes = [Character("A"), "B", "C"].map { builder.addNode(ascii[$0]) }
        for (x, y) in [(0, 1), (1, 2), (1, 0), (2, 1)] {
            _ = builder.addEdge(from: nodes[x], to: nodes[y], attributes: EdgeAttributes(
                access: .all, flags: [], freeFlowSpeedKph: 50, speedLimitKph: 30, osmWayID: 7, name: "Testikatu"))
        }
        map = NavigationMap(graph: try builder.build(), name: "street")
        a = ascii["A"]
        b = ascii["B"]
        c = ascii["C"]
    }

    /// Fixes every second at `speed` m/s from `from` to `to`, then `stopSeconds` standing.
    func drive(from: Coordinate, to: Coordinate, start: Date, speed: Double = 10, stopSeconds: Int = 4) -> [RawFix] {
        let length = Geodesy.distanceMeters(from, to)
        let course = Geodesy.initialBearingDegrees(from: from, to: to)
        var fixes: [RawFix] = []
        var t = 0.0
        while t * speed <= length {
            let f = t * speed / length
            let p = Coordinate(latitude: from.latitude + (to.latitude - from.latitude) * f,
                               longitude: from.longitude + (to.longitude - from.longitude) * f)
            fixes.append(RawFix(coordinate: p, timestamp: start.addingTimeInterval(t), horizontalAccuracyMeters: 5,
                                courseDegrees: course, speedMetersPerSecond: speed))
            t += 1
        }
        for s in 0..<stopSeconds {
            fixes.append(RawFix(coordinate: to, timestamp: start.addingTimeInterval(t + Double(s)), horizontalAccuracyMeters: 5,
                                speedMetersPerSecond: 0))
        }
        return fixes
    }
}

final class MemoryStore: TripStateStore {
    var saved: TripState?
    var saves = 0
    /// While set, `save` fails with this error (a full or read-only state directory).
    var failure: (any Error)?
    func save(_ state: TripState) throws {
        if let failure { throw failure }
        saved = state
        saves += 1
    }
}

private struct DiskFull: Error, CustomStringConvertible {
    var description: String { "No space left on device" }
}

private let t0 = Date(timeIntervalSince1970: 1_796_026_502)

private func json(_ message: OutboundMessage) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any]) ?? [:]
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

private func fixPayload(_ fix: RawFix) -> [UInt8] { bytes(OutputPayloads.rawFix(fix)) }

private let twoStops = bytes("""
    {"assignmentId":"job-1","waypoints":[{"lat":\(street.b.latitude),"lon":\(street.b.longitude),"title":"B"},
     {"lat":\(street.c.latitude),"lon":\(street.c.longitude),"title":"C"}]}
    """)

/// Feeds fixes as `location/raw` payloads received when measured; returns every output.
private func feed(_ session: VehicleSession, _ fixes: [RawFix]) -> [OutboundMessage] {
    fixes.flatMap { session.receiveLocation(fixPayload($0), now: $0.timestamp) }
}

@Suite struct VehicleSessionTests {
    @Test func anAssignmentWaitsForTheFirstFixThenRoutes() throws {
        let session = VehicleSession(vehicleID: "van-7", map: street.map, now: t0)
        let waiting = session.receiveDestinations(twoStops, now: t0)
        #expect(waiting.map(\.topic) == [.arrival, .eta, .delay, .state])
        #expect(json(waiting.last!)["routeStatus"] as? String == "waitingForLocation")
        let out = feed(session, [RawFix(coordinate: street.a, timestamp: t0.addingTimeInterval(1), horizontalAccuracyMeters: 5)])
        let route = try #require(out.first { $0.topic == .route })
        let body = json(route)
        #expect(body["reason"] as? String == "destinationsSet")
        #expect(body["routeStatus"] as? String == "ok")
        #expect(body["assignmentId"] as? String == "job-1")
        #expect((body["legs"] as? [Any])?.count == 2)
        #expect(body["vehicleId"] as? String == "van-7")
        #expect(body["schemaVersion"] as? Int == 1)
        #expect(out.contains { $0.topic == .eta })
        #expect(json(out.last { $0.topic == .state }!)["guidanceActive"] as? Bool == true)
    }

    @Test func theTwoStopDriveArrivesTwiceContinuesAndEndsTheTrip() throws {
        let store = MemoryStore()
        let session = VehicleSession(vehicleID: "van-7", map: street.map, store: store, now: t0)
        var out = session.receiveDestinations(twoStops, now: t0)
        out += feed(session, street.drive(from: street.a, to: street.b, start: t0.addingTimeInterval(1)))
        out += feed(session, street.drive(from: street.b, to: street.c, start: t0.addingTimeInterval(40)))
        let arrivals = out.filter { $0.topic == .arrival && !$0.payload.isEmpty }.map(json)
        #expect(arrivals.count == 2)
        #expect((arrivals.first?["waypoint"] as? [String: Any])?["title"] as? String == "B")
        #expect((arrivals.last?["waypoint"] as? [String: Any])?["index"] as? Int == 1)
        #expect(arrivals.map { $0["remainingWaypoints"] as? Int } == [1, 0])
        let reasons = out.filter { $0.topic == .route }.map { json($0)["reason"] as? String }
        #expect(reasons == ["destinationsSet", "nextDestination"])
        // After the last arrival the retained ETA is removed and the state says the trip is complete.
        let lastArrival = try #require(out.lastIndex { $0.topic == .arrival })
        #expect(out[lastArrival...].contains(.clear(.eta)))
        #expect(!out[lastArrival...].contains { $0.topic == .eta && !$0.payload.isEmpty })
        #expect(json(out.last { $0.topic == .state }!)["tripComplete"] as? Bool == true)
        // Every message of the vehicle is numbered in order.
        let seqs = out.filter { !$0.payload.isEmpty }.compactMap { json($0)["seq"] as? Int }
        #expect(seqs == Array(1...seqs.count))
        #expect(store.saved?.announcedArrivals == [0, 1])
    }

    @Test func aFailingJournalIsReportedOnceAndItsRecoveryToo() throws {
        let store = MemoryStore()
        let session = VehicleSession(vehicleID: "van-7", map: street.map, store: store, now: t0)
        _ = session.receiveDestinations(twoStops, now: t0)
        #expect(session.takePersistenceChange() == nil)
        store.failure = DiskFull()
        // The first arrival is written to the journal: that write fails.
        var out = feed(session, street.drive(from: street.a, to: street.b, start: t0.addingTimeInterval(1)))
        #expect(out.filter { $0.topic == .arrival && !$0.payload.isEmpty }.count == 1)
        #expect(session.takePersistenceChange() == .failing("No space left on device"))
        #expect(session.takePersistenceChange() == nil)
        // Navigation goes on from memory; once the disk has room the next write succeeds and says so.
        store.failure = nil
        out = feed(session, street.drive(from: street.b, to: street.c, start: t0.addingTimeInterval(40)))
        #expect(out.filter { $0.topic == .arrival && !$0.payload.isEmpty }.count == 1)
        #expect(session.takePersistenceChange() == .recovered)
        #expect(store.saved?.announcedArrivals == [0, 1])
    }

    @Test func republishingGivesEachStateTopicsCurrentValueWithANewSeq() throws {
        let session = VehicleSession(vehicleID: "van-7", map: street.map, now: t0)
        var out = session.receiveDestinations(twoStops, now: t0)
        out += feed(session, street.drive(from: street.a, to: street.b, start: t0.addingTimeInterval(1), stopSeconds: 0))
        let lastSeq = try #require(out.filter { !$0.payload.isEmpty }.compactMap { json($0)["seq"] as? Int }.max())
        let topics: Set<OutputTopic> = [.snappedLocation, .eta, .lighting, .state]
        let again = session.republish(topics, now: t0.addingTimeInterval(100))
        #expect(Set(again.map(\.topic)) == topics)
        for message in again {
            let body = json(message), previous = json(try #require(out.last { $0.topic == message.topic }))
            #expect(body["seq"] as? Int ?? 0 > lastSeq)
            if message.topic != .state {
                // The same value, as of the same input; only the numbering is new.
                #expect(body["timestamp"] as? String == previous["timestamp"] as? String)
                #expect(NSDictionary(dictionary: body.filter { $0.key != "seq" })
                        == NSDictionary(dictionary: previous.filter { $0.key != "seq" }))
            }
        }
        // A topic never published has nothing to republish; a cleared one is cleared again.
        #expect(VehicleSession(vehicleID: "van-8", map: street.map, now: t0).republish([.eta, .snappedLocation], now: t0).isEmpty)
        out += feed(session, street.drive(from: street.b, to: street.c, start: t0.addingTimeInterval(40)))
        #expect(json(out.last { $0.topic == .state }!)["tripComplete"] as? Bool == true)
        #expect(session.republish([.eta, .delay], now: t0.addingTimeInterval(200)) == [.clear(.eta), .clear(.delay)])
    }

    @Test func theSameAssignmentAgainChangesNothingAndANewOneReplacesIt() throws {
        let session = VehicleSession(vehicleID: "v", map: street.map, now: t0)
        _ = session.receiveDestinations(twoStops, now: t0)
        _ = feed(session, [RawFix(coordinate: street.a, timestamp: t0.addingTimeInterval(1))])
        #expect(session.receiveDestinations(twoStops, now: t0.addingTimeInterval(2)).isEmpty)
        let replaced = session.receiveDestinations(bytes("""
            {"assignmentId":"job-2","waypoints":[{"lat":\(street.c.latitude),"lon":\(street.c.longitude)}]}
            """), now: t0.addingTimeInterval(3))
        #expect(replaced.prefix(3) == [.clear(.arrival), .clear(.eta), .clear(.delay)])
        let route = json(try #require(replaced.first { $0.topic == .route }))
        #expect(route["assignmentId"] as? String == "job-2")
        #expect((route["legs"] as? [Any])?.count == 1)
    }

    @Test func badFixesAreAnsweredWithAnErrorAndChangeNothing() throws {
        var limits = InputLimits()
        limits.maximumFixAgeSeconds = 60
        limits.maximumFixLeadSeconds = 5
        let session = VehicleSession(vehicleID: "v", map: street.map, limits: limits, now: t0)
        _ = session.receiveDestinations(twoStops, now: t0)
        _ = feed(session, street.drive(from: street.a, to: street.b, start: t0.addingTimeInterval(1), stopSeconds: 0).prefix(5).map { $0 })
        let seqBefore = session.seq
        let now = t0.addingTimeInterval(5)
        func errorCode(_ payload: String) -> String? {
            let out = session.receiveLocation(bytes(payload), topic: "fleet/v/location/raw", now: now)
            #expect(out.count == 1)
            return out.first.map(json)?["code"] as? String
        }
        func at(_ dt: Double) -> String { ISO8601Timestamp.string(from: t0.addingTimeInterval(dt)) }
        #expect(errorCode(#"{"lat":60.17,"lon":24.94,"timestamp":"\#(at(2))"}"#) == "outOfOrderFix")
        #expect(errorCode(#"{"lat":60.17,"lon":24.94,"timestamp":"\#(at(5))"}"#) == "duplicateFix")
        #expect(errorCode(#"{"lat":60.17,"lon":24.94,"timestamp":"\#(at(-100))"}"#) == "staleFix")
        #expect(errorCode(#"{"lat":60.17,"lon":24.94,"timestamp":"\#(at(60))"}"#) == "futureFix")
        #expect(errorCode(#"{"lat":-91,"lon":24.94,"timestamp":"\#(at(6))"}"#) == "outOfRange")
        #expect(errorCode("{\"lat\":") == "invalidJSON")
        let error = json(session.receiveLocation(bytes(#"{"nope":1}"#), topic: "fleet/v/location/raw", now: now)[0])
        #expect(error["topic"] as? String == "fleet/v/location/raw")
        #expect(error["payloadExcerpt"] as? String == #"{"nope":1}"#)
        // Only the error messages were numbered; the trip goes on as before.
        #expect(session.seq == seqBefore + 7)
        #expect(session.isGuidanceActive)
    }

    @Test func fixesWithNeitherSpeedNorCourseAreCounted() throws {
        let session = VehicleSession(vehicleID: "v", map: street.map, now: t0.addingTimeInterval(5))
        func fix(_ dt: Double, speed: Double? = nil, course: Double? = nil) -> [UInt8] {
            fixPayload(RawFix(coordinate: street.a, timestamp: t0.addingTimeInterval(dt), horizontalAccuracyMeters: 5,
                              courseDegrees: course, speedMetersPerSecond: speed))
        }
        _ = session.receiveLocation(fix(0), now: t0.addingTimeInterval(5))
        _ = session.receiveLocation(fix(1, speed: 0), now: t0.addingTimeInterval(5))
        _ = session.receiveLocation(fix(2, course: 90), now: t0.addingTimeInterval(5))
        _ = session.receiveLocation(fix(3, speed: 5, course: 90), now: t0.addingTimeInterval(5))
        _ = session.receiveLocation(fix(4), now: t0.addingTimeInterval(5))
        _ = session.receiveLocation(fix(4), now: t0.addingTimeInterval(5))  // a duplicate: rejected, not counted
        #expect(session.fixesWithoutSpeedOrCourse == 2)
    }

    @Test func fixesCloserThanTheSpacingInFixTimeAreSkippedAndCounted() throws {
        let session = VehicleSession(vehicleID: "v", map: street.map, minimumFixSpacingSeconds: 0.04, now: t0)
        func fix(_ dt: Double) -> [UInt8] {
            fixPayload(RawFix(coordinate: street.a, timestamp: t0.addingTimeInterval(dt), horizontalAccuracyMeters: 5))
        }
        #expect(!session.receiveLocation(fix(0), now: t0).isEmpty, "the first fix is handled")
        #expect(session.receiveLocation(fix(0.01), now: t0).isEmpty)
        #expect(session.receiveLocation(fix(0.039), now: t0).isEmpty)
        #expect(session.fixesThinned == 2)
        let handled = session.receiveLocation(fix(0.05), now: t0)
        #expect(handled.contains { $0.topic == .snappedLocation }, "40 ms after the last handled fix")
        #expect(session.fixesThinned == 2)
        // A device's backlog a second apart, delivered at once, is handled in full.
        for second in 1...5 {
            #expect(session.receiveLocation(fix(Double(second)), now: t0.addingTimeInterval(5)).contains {
                $0.topic == .snappedLocation })
        }
    }

    @Test func errorsBeyondTheLimitAreSummarisedWithTheirCount() throws {
        let session = VehicleSession(vehicleID: "v", map: street.map, errorIntervalSeconds: 1, now: t0)
        var published = 0
        for n in 0..<100 {
            published += session.receiveLocation(bytes("bad \(n)"), topic: "fleet/v/location/raw",
                                                 now: t0.addingTimeInterval(Double(n) / 1000)).count
        }
        #expect(published == 1)
        #expect(session.hasSuppressedErrors)
        #expect(session.suppressedErrorSummaries(now: t0.addingTimeInterval(0.5)).messages.isEmpty)
        let summary = session.suppressedErrorSummaries(now: t0.addingTimeInterval(1.01))
        #expect(summary.suppressed == 99)
        let body = try #require(summary.messages.first.map(json))
        #expect(body["code"] as? String == "invalidJSON")
        #expect(body["suppressedCount"] as? Int == 99)
        #expect(body["payloadExcerpt"] as? String == "bad 99")
        #expect(!session.hasSuppressedErrors)
    }

    @Test func commandsReportTheirOutcomeOnState() throws {
        let session = VehicleSession(vehicleID: "v", map: street.map, now: t0)
        let rejected = session.receiveCommand(bytes(#"{"command":"continueToNextDestination","requestId":"r1"}"#), now: t0)
        let outcome = try #require(json(rejected.last!)["lastCommand"] as? [String: Any])
        #expect(outcome["requestId"] as? String == "r1" && outcome["status"] as? String == "rejected")

        let options = session.receiveCommand(bytes("""
            {"command":"setOptions","requestId":"r2","distanceUpdateThresholdMeters":50,"speedAlert":{"minorPercent":30,"majorPercent":20}}
            """), now: t0)
        let state = json(options.last!)
        let inForce = try #require(state["options"] as? [String: Any])
        #expect(inForce["distanceUpdateThresholdMeters"] as? Double == 50)
        // As the SDK's rule: a minor threshold above the major raises the major to match.
        #expect((inForce["speedAlert"] as? [String: Any])?["majorPercent"] as? Double == 30)
        #expect((state["lastCommand"] as? [String: Any])?["status"] as? String == "ok")

        let unknown = session.receiveCommand(bytes(#"{"command":"fly","requestId":"r3"}"#), now: t0)
        #expect(unknown.map(\.topic) == [.error, .state])
        #expect(json(unknown[0])["code"] as? String == "unknownCommand")
        #expect((json(unknown[1])["lastCommand"] as? [String: Any])?["requestId"] as? String == "r3")
    }

    @Test func clearingRemovesTheRetainedTripTopics() throws {
        let session = VehicleSession(vehicleID: "v", map: street.map, now: t0)
        _ = session.receiveDestinations(twoStops, now: t0)
        _ = feed(session, [RawFix(coordinate: street.a, timestamp: t0.addingTimeInterval(1))])
        let out = session.receiveDestinations([], now: t0.addingTimeInterval(2))
        #expect(json(out.first { $0.topic == .route }!)["reason"] as? String == "cleared")
        #expect(out.contains(.clear(.arrival)) && out.contains(.clear(.eta)) && out.contains(.clear(.delay)))
        #expect(json(out.last!)["assignmentId"] is NSNull)
        #expect(!session.isGuidanceActive)
    }

    @Test func tooManyWaypointsAndUnknownPlacesGiveRouteStatuses() throws {
        let fixture = street  // one map: the place below is set on the session's own map
        let session = VehicleSession(vehicleID: "v", map: fixture.map, now: t0)
        _ = feed(session, [RawFix(coordinate: fixture.a, timestamp: t0)])
        let many = (0..<26).map { _ in #"{"lat":\#(fixture.c.latitude),"lon":\#(fixture.c.longitude)}"# }.joined(separator: ",")
        let tooMany = session.receiveDestinations(bytes(#"{"assignmentId":"m","waypoints":[\#(many)]}"#), now: t0)
        #expect(json(tooMany.first { $0.topic == .route }!)["routeStatus"] as? String == "waypointError")
        let unknown = session.receiveDestinations(bytes(#"{"assignmentId":"p","waypoints":[{"placeId":"nowhere"}]}"#), now: t0)
        #expect(json(unknown.first { $0.topic == .route }!)["routeStatus"] as? String == "waypointError")
        fixture.map.places.set("depot", Place(coordinate: fixture.c, title: "Depot"))
        let known = session.receiveDestinations(bytes(#"{"assignmentId":"q","waypoints":[{"placeId":"depot"}]}"#), now: t0)
        let leg = try #require((json(known.first { $0.topic == .route }!)["legs"] as? [[String: Any]])?.first)
        #expect((leg["destination"] as? [String: Any])?["placeId"] as? String == "depot")
    }

    @Test func aRestartedSessionResumesTheTripWithoutRepeatingAnArrival() throws {
        let store = MemoryStore()
        let first = VehicleSession(vehicleID: "v", map: street.map, store: store, now: t0)
        var out = first.receiveDestinations(twoStops, now: t0)
        out += feed(first, street.drive(from: street.a, to: street.b, start: t0.addingTimeInterval(1)))
        #expect(out.filter { $0.topic == .arrival && !$0.payload.isEmpty }.count == 1)
        let lastSeq = first.seq
        let saved = try #require(store.saved)
        #expect(saved.currentWaypointIndex == 1 && saved.announcedArrivals == [0])

        // kill -9: a new session from the journal; the retained assignment comes again.
        let second = VehicleSession(vehicleID: "v", map: street.map, restored: saved, store: store, now: t0.addingTimeInterval(60))
        #expect(second.seq > lastSeq)
        #expect(second.receiveDestinations(twoStops, now: t0.addingTimeInterval(60)).isEmpty)
        let resumed = feed(second, street.drive(from: street.b, to: street.c, start: t0.addingTimeInterval(61)))
        let arrivals = resumed.filter { $0.topic == .arrival && !$0.payload.isEmpty }.map(json)
        #expect(arrivals.count == 1)
        #expect((arrivals.first?["waypoint"] as? [String: Any])?["title"] as? String == "C")
        #expect((arrivals.first?["waypoint"] as? [String: Any])?["index"] as? Int == 1)
        let route = json(try #require(resumed.first { $0.topic == .route }))
        #expect(route["currentLegIndex"] as? Int == 1)
        let seqs = resumed.filter { !$0.payload.isEmpty }.compactMap { json($0)["seq"] as? Int }
        #expect(seqs.allSatisfy { $0 > Int(lastSeq) } && seqs == seqs.sorted())
    }

    @Test func theSimulatorFeedsFixesAlongTheRoute() throws {
        let session = VehicleSession(vehicleID: "v", map: street.map, now: t0)
        _ = session.receiveDestinations(twoStops, now: t0)
        _ = feed(session, [RawFix(coordinate: street.a, timestamp: t0)])
        _ = session.receiveCommand(bytes(#"{"command":"simulate","speedMultiplier":2,"fixIntervalSeconds":1}"#), now: t0)
        var arrivals = 0
        var clock = t0
        for _ in 0..<120 {
            clock = clock.addingTimeInterval(1)
            for fix in session.simulatedFixes(now: clock) {
                arrivals += session.receiveLocation(fixPayload(fix), now: clock)
                    .filter { $0.topic == .arrival && !$0.payload.isEmpty }.count
            }
        }
        #expect(arrivals == 2)
        #expect(session.trip.tripComplete)
    }
}

@Suite struct TripJournalTests {
    @Test func savesLoadsAndMovesACorruptFileAside() throws {
        let directory = NSTemporaryDirectory() + "edgenav-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try TripJournal(directory: directory, vehicleID: "v")
        guard case .empty = journal.load() else {
            Issue.record("expected no journal")
            return
        }
        var state = TripState()
        state.assignment = Assignment(assignmentID: "a", waypoints: [AssignmentWaypoint(latitude: 1, longitude: 2)])
        state.announcedArrivals = [0]
        try journal.save(state)
        guard case .restored(let loaded) = journal.load() else {
            Issue.record("expected the saved state")
            return
        }
        #expect(loaded == state)
        try Data("{\"assignment\": tru".utf8).write(to: URL(fileURLWithPath: journal.path))
        guard case .corrupt(let error, let aside) = journal.load() else {
            Issue.record("expected corruption")
            return
        }
        #expect(error.code == .corruptState)
        #expect(aside.map { FileManager.default.fileExists(atPath: $0) } == true)
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }
}
