import Foundation
import Navigation
import TestKit
import Testing

@testable import Agent

/// The repository root (this file is Tests/AgentTests/TopicsExamplesTests.swift).
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// Dispatch systems are written from the examples in `topics.md`: each input example must be one the agent takes.
/// (The outputs are held to their examples by the integration tests, on what really crossed the broker.)
@Suite struct TopicsExamplesTests {
    let document: TopicsDocument

    init() throws {
        document = try TopicsDocument.load(repositoryRoot: repositoryRoot)
    }

    func examples(_ topic: String) throws -> [[UInt8]] {
        let texts = try #require(document.exampleTexts[topic], "topics.md has no JSON example for \(topic)")
        return texts.map { Array($0.utf8) }
    }

    @Test func everyTopicHasAnExample() {
        let topics = ["nav/destinations", "location/raw", "nav/command", "traffic", "places/{placeId}", "nav/route",
                      "nav/arrival", "nav/eta", "nav/delay", "nav/lighting", "nav/speeding", "location/snapped", "nav/state",
                      "agent/error", "agent/metrics", "agent/status"]
        let missing = topics.filter { document.exampleTexts[$0]?.isEmpty ?? true }
        #expect(missing.isEmpty, "topics without a JSON example: \(missing)")
    }

    @Test func theAssignmentExampleIsAccepted() throws {
        for example in try examples("nav/destinations") {
            let assignment = try #require(try DestinationsPayload.decode(example))
            #expect(!assignment.waypoints.isEmpty)
        }
    }

    /// The three formats' examples are the same fix: the agent must read the same values from each.
    @Test func theThreeLocationExamplesAreOneFix() throws {
        let decoded = try examples("location/raw").map { try LocationPayload.decode($0) }
        #expect(Set(decoded.map(\.format)) == [.native, .ownTracks, .gpsd])
        for (fix, format) in decoded {
            #expect(abs(fix.coordinate.latitude - 60.16991) < 1e-9 && abs(fix.coordinate.longitude - 24.93837) < 1e-9, "\(format)")
            #expect(abs((fix.speedMetersPerSecond ?? -1) - 8.33) < 0.01, "\(format): speed \(String(describing: fix.speedMetersPerSecond))")
            #expect(abs(fix.timestamp.timeIntervalSince1970 - 1_796_026_502) < 0.5, "\(format): \(fix.timestamp)")
            #expect(fix.horizontalAccuracyMeters == 5, "\(format)")
        }
    }

    @Test func theCommandExamplesAreAccepted() throws {
        let commands = try examples("nav/command").map { try CommandPayload.decode($0) }
        #expect(!commands.isEmpty)
        #expect(commands.allSatisfy { $0.requestID != nil })
    }

    @Test func theTrafficAndPlaceExamplesAreAccepted() throws {
        for example in try examples("traffic") {
            #expect(try !TrafficPayload.decode(example).isEmpty)
        }
        for example in try examples("places/{placeId}") {
            #expect(try PlacePayload.decode(example) != nil)
        }
    }
}
