import Foundation
import Geo
import Navigation
import Testing

@testable import Agent

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

private func code(_ body: () throws -> Void) -> AgentInputError.Code? {
    do {
        try body()
        return nil
    } catch {
        return (error as? AgentInputError)?.code
    }
}

@Suite struct DestinationsPayloadTests {
    @Test func readsAFullAssignmentWithDefaults() throws {
        let a = try #require(try DestinationsPayload.decode(bytes("""
            {"assignmentId":"job-1","waypoints":[{"lat":60.1,"lon":24.9,"title":"Depot","preferredHeading":90},
             {"placeId":"shop-7","title":"Shop","preferSameSideOfRoad":true}],"travelMode":"twoWheeler","avoidTolls":true}
            """)))
        #expect(a.assignmentID == "job-1")
        #expect(a.waypoints.count == 2)
        #expect(a.waypoints[0].latitude == 60.1 && a.waypoints[0].preferredHeadingDegrees == 90)
        #expect(a.waypoints[1].placeID == "shop-7" && a.waypoints[1].preferSameSideOfRoad)
        #expect(a.travelMode == .twoWheeler)
        #expect(a.avoidTolls && !a.avoidHighways && a.avoidFerries)
        #expect(a.startGuidance && a.autoContinue)
    }

    @Test func emptyPayloadClears() throws {
        #expect(try DestinationsPayload.decode([]) == nil)
    }

    @Test(arguments: [
        (#"{"waypoints":[]}"#, AgentInputError.Code.missingField),
        (#"{"assignmentId":"","waypoints":[]}"#, .invalidField),
        (#"{"assignmentId":"a","waypoints":[{"lat":91,"lon":0}]}"#, .outOfRange),
        (#"{"assignmentId":"a","waypoints":[{"lat":60,"lon":-181}]}"#, .outOfRange),
        (#"{"assignmentId":"a","waypoints":[{"lat":"60","lon":24}]}"#, .invalidField),
        (#"{"assignmentId":"a","waypoints":[{"lon":24}]}"#, .missingField),
        (#"{"assignmentId":"a","waypoints":[{"placeId":"p","lat":1,"lon":2}]}"#, .invalidField),
        (#"{"assignmentId":"a","waypoints":[{"lat":1,"lon":2,"preferredHeading":400}]}"#, .outOfRange),
        (#"{"assignmentId":"a","waypoints":[],"travelMode":"boat"}"#, .invalidField),
        (#"{"assignmentId":"a","waypoints":[],"avoidTolls":1}"#, .invalidField),
        (#"{"assignmentId":"a","waypoints":{}}"#, .invalidField),
        (#"[1,2]"#, .invalidJSON),
        (#"{"assignmentId":"a""#, .invalidJSON),
        (#"{"assignmentId":1e999,"waypoints":[]}"#, .invalidJSON),
    ])
    func rejectsWithAStableCode(payload: String, expected: AgentInputError.Code) {
        #expect(code { _ = try DestinationsPayload.decode(bytes(payload)) } == expected)
    }

    @Test func boundsPayloadSizeAndStringLength() {
        let long = String(repeating: "x", count: 300)
        #expect(code { _ = try DestinationsPayload.decode(bytes(#"{"assignmentId":"\#(long)","waypoints":[]}"#)) } == .tooLong)
        let huge = #"{"assignmentId":"a","waypoints":[],"pad":""# + String(repeating: "y", count: 70_000) + #""}"#
        #expect(code { _ = try DestinationsPayload.decode(bytes(huge)) } == .payloadTooLarge)
    }

    @Test func moreThanTwentyFiveWaypointsAreReadForTheNavigatorToRefuse() throws {
        let waypoints = (0..<30).map { #"{"lat":60.\#($0),"lon":24.9}"# }.joined(separator: ",")
        let a = try #require(try DestinationsPayload.decode(bytes(#"{"assignmentId":"a","waypoints":[\#(waypoints)]}"#)))
        #expect(a.waypoints.count == 30)
    }
}

@Suite struct LocationPayloadTests {
    @Test func nativeWithISOTimestamp() throws {
        let (fix, format) = try LocationPayload.decode(bytes("""
            {"lat":60.17,"lon":24.94,"timestamp":"2026-11-30T08:15:02.250Z","speed":12.5,"course":87,"altitude":12,
             "horizontalAccuracy":4}
            """))
        #expect(format == .native)
        #expect(fix.coordinate == Coordinate(latitude: 60.17, longitude: 24.94))
        #expect(ISO8601Timestamp.string(from: fix.timestamp) == "2026-11-30T08:15:02.250Z")
        #expect(fix.speedMetersPerSecond == 12.5 && fix.courseDegrees == 87 && fix.altitudeMeters == 12)
        #expect(fix.horizontalAccuracyMeters == 4)
    }

    @Test func nativeWithEpochSecondsAndUnknownsAsNegative() throws {
        let fix = try LocationPayload.decode(bytes(#"{"lat":60,"lon":24,"timestamp":1780000000.5,"speed":-1,"course":-1}"#)).fix
        #expect(fix.timestamp.timeIntervalSince1970 == 1_780_000_000.5)
        #expect(fix.speedMetersPerSecond == nil && fix.courseDegrees == nil)
    }

    /// Recorders and exporters write the time in more ways than one; each means the same instant here.
    @Test(arguments: [
        #""2026-11-30T08:15:02.250Z""#, #""2026-11-30 08:15:02.250""#, #""2026-11-30T08:15:02.250""#,
        "1796026502.25", #""1796026502.25""#, "1796026502250", #""1796026502250""#,
    ])
    func nativeTimestampWrittenAnyCommonWay(timestamp: String) throws {
        for scanning in [true, false] {
            let fix = try LocationPayload.decode(bytes(#"{"lat":60,"lon":24,"timestamp":\#(timestamp)}"#),
                                                 limits: InputLimits(), scanning: scanning).fix
            #expect(fix.timestamp.timeIntervalSince1970 == 1_796_026_502.25)
        }
    }

    @Test func ownTracksConvertsKilometresPerHour() throws {
        let (fix, format) = try LocationPayload.decode(bytes("""
            {"_type":"location","lat":60.2,"lon":24.9,"tst":1780000000,"vel":36,"cog":180,"acc":8,"alt":20,"tid":"al"}
            """))
        #expect(format == .ownTracks)
        #expect(abs((fix.speedMetersPerSecond ?? 0) - 10) < 1e-9)
        #expect(fix.courseDegrees == 180 && fix.horizontalAccuracyMeters == 8 && fix.altitudeMeters == 20)
    }

    @Test func gpsdTPVWithAFix() throws {
        let (fix, format) = try LocationPayload.decode(bytes("""
            {"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-11-30T08:15:02.000Z","lat":60.2,"lon":24.9,
             "altHAE":31.5,"alt":12,"track":270.5,"speed":3.2,"eph":6.1}
            """))
        #expect(format == .gpsd)
        #expect(fix.altitudeMeters == 31.5 && fix.courseDegrees == 270.5 && fix.speedMetersPerSecond == 3.2)
        #expect(fix.horizontalAccuracyMeters == 6.1)
    }

    @Test(arguments: [
        (#"{"class":"TPV","mode":1,"time":"2026-11-30T08:15:02Z"}"#, AgentInputError.Code.noFix),
        (#"{"class":"SKY","satellites":[]}"#, .unknownLocationFormat),
        (#"{"_type":"transition","lat":1,"lon":2,"tst":1780000000}"#, .unknownLocationFormat),
        (#"{"latitude":60,"longitude":24}"#, .unknownLocationFormat),
        (#"{"lat":90.5,"lon":24,"timestamp":1780000000}"#, .outOfRange),
        (#"{"lat":60,"lon":24}"#, .missingField),
        (#"{"lat":60,"lon":24,"timestamp":"yesterday"}"#, .invalidField),
        (#"{"lat":60,"lon":24,"timestamp":"2026-11-30"}"#, .invalidField),
        (#"{"lat":60,"lon":24,"timestamp":-5}"#, .outOfRange),
        (#"{"lat":60,"lon":24,"timestamp":"1e300"}"#, .outOfRange),
        (#"{"lat":60,"lon":24,"timestamp":1780000000,"speed":500}"#, .outOfRange),
        (#"{"lat":true,"lon":24,"timestamp":1780000000}"#, .invalidField),
        ("not json", .invalidJSON),
    ])
    func rejectsWithAStableCode(payload: String, expected: AgentInputError.Code) {
        #expect(code { _ = try LocationPayload.decode(bytes(payload)) } == expected)
    }
}

@Suite struct CommandPayloadTests {
    @Test func readsEveryCommand() throws {
        for name in ["continueToNextDestination", "clearDestinations", "startGuidance", "stopGuidance", "pauseSimulation",
                     "resumeSimulation", "stopSimulation", "simulate", "setOptions"] {
            let decoded = try CommandPayload.decode(bytes(#"{"command":"\#(name)","requestId":"r-\#(name)"}"#))
            #expect(decoded.command.name == name)
            #expect(decoded.requestID == "r-\(name)")
        }
    }

    @Test func simulateAndSetOptionsCarryTheirParameters() throws {
        let sim = try CommandPayload.decode(bytes(#"{"command":"simulate","speedMultiplier":4,"noiseMeters":5,"fixIntervalSeconds":0.5}"#))
        #expect(sim.command == .simulate(SimulationRequest(speedMultiplier: 4, noiseMeters: 5, fixIntervalSeconds: 0.5)))
        let options = try CommandPayload.decode(bytes("""
            {"command":"setOptions","timeUpdateThresholdSeconds":5,"stopGuidanceAtArrival":false,
             "speedAlert":{"minorPercent":5,"majorPercent":15,"severityUpgradeDurationSeconds":10}}
            """))
        guard case .setOptions(let u) = options.command else {
            Issue.record("not setOptions")
            return
        }
        #expect(u.timeUpdateThresholdSeconds == 5 && u.stopGuidanceAtArrival == false && u.distanceUpdateThresholdMeters == nil)
        #expect(u.speedAlertMinorPercent == 5 && u.speedAlertMajorPercent == 15 && u.severityUpgradeDurationSeconds == 10)
    }

    @Test(arguments: [
        (#"{"command":"selfDestruct"}"#, AgentInputError.Code.unknownCommand),
        (#"{"requestId":"x"}"#, .missingField),
        (#"{"command":"simulate","speedMultiplier":0}"#, .outOfRange),
        (#"{"command":"simulate","speedMultiplier":-2}"#, .outOfRange),
        (#"{"command":"setOptions","distanceUpdateThresholdMeters":-1}"#, .outOfRange),
        (#"{"command":"setOptions","stopGuidanceAtArrival":"no"}"#, .invalidField),
    ])
    func rejectsWithAStableCode(payload: String, expected: AgentInputError.Code) {
        #expect(code { _ = try CommandPayload.decode(bytes(payload)) } == expected)
    }
}

@Suite struct FleetPayloadTests {
    @Test func trafficSegments() throws {
        let observations = try TrafficPayload.decode(bytes("""
            {"segments":[{"osmWayId":123,"speedKph":12.5,"observedAt":"2026-11-30T08:00:00Z"}]}
            """))
        #expect(observations == [TrafficObservation(osmWayID: 123, speedKph: 12.5,
                                                    observedAt: ISO8601Timestamp.date(from: "2026-11-30T08:00:00Z")!)])
        #expect(code { _ = try TrafficPayload.decode(bytes(#"{"segments":[{"osmWayId":1,"speedKph":-3,"observedAt":1}]}"#)) }
            == .outOfRange)
    }

    @Test func placesAndTheirRemoval() throws {
        let place = try #require(try PlacePayload.decode(bytes(#"{"lat":60.1,"lon":24.9,"title":"Depot"}"#)))
        #expect(place.title == "Depot" && place.coordinate.latitude == 60.1)
        #expect(try PlacePayload.decode([]) == nil)
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-11-30T08:15:02.250Z", 1_796_026_502.25),
        ("2026-11-30T10:15:02.250+02:00", 1_796_026_502.25),
        ("2026-11-30T08:15:02Z", 1_796_026_502.0),
        ("2026-11-30T03:15:02-0500", 1_796_026_502.0),
        ("1970-01-01T00:00:00Z", 0),
        ("2026-11-30T08:15:02", 1_796_026_502.0),  // no zone: UTC
        ("2026-11-30 08:15:02.5", 1_796_026_502.5),
    ])
    func parsesISO8601(text: String, seconds: Double) throws {
        let date = try #require(ISO8601Timestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: ["2026-11-30T08:15", "2026-13-30T08:15:02Z", "2026-11-30 08:15Z", "", "2026-11-30T08:15:02.Z"])
    func refusesWhatIsNotAFullTimestamp(text: String) {
        #expect(ISO8601Timestamp.date(from: text) == nil)
    }

    @Test func roundTripsWithTheWriter() {
        let date = Date(timeIntervalSince1970: 1_796_026_502.25)
        #expect(ISO8601Timestamp.date(from: ISO8601Timestamp.string(from: date)) == date)
    }
}
