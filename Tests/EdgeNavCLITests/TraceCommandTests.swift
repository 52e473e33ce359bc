import Agent
import Foundation
import Geo
import MapMatching
import OSMImport
import RoadGraph
import Testing
import TestKit

@testable import EdgeNavCLI

/// `edgenav match`, `edgenav replay` and `edgenav simulate --stdout` on one straight street (Westgatan, 200 m).
@Suite struct TraceCommandTests {
    static let a = Coordinate(latitude: 60.1700, longitude: 24.9400)
    static let b = Coordinate(latitude: 60.1700, longitude: 24.9436)

    static func graph() throws -> RoadGraph {
        var builder = RoadGraphBuilder()
        let x = builder.addNode(a), y = builder.addNode(b)
        let attributes = EdgeAttributes(access: .all, freeFlowSpeedKph: 36, speedLimitKph: 30, osmWayID: 100, name: "Westgatan")
        _ = builder.addEdge(from: x, to: y, attributes: attributes)
        _ = builder.addEdge(from: y, to: x, attributes: attributes)
        return try builder.build()
    }

    /// A fix every second along the street at 10 m/s, 3 m north of it, then standing at the end.
    static func trace(start: Double = 1_796_026_502) -> [String] {
        var lines: [String] = []
        for i in 0...24 {
            let f = min(1, Double(i) / 20)
            let lat = a.latitude + 0.000027, lon = a.longitude + (b.longitude - a.longitude) * f
            lines.append(#"{"lat":\#(lat),"lon":\#(lon),"timestamp":\#(start + Double(i)),"speed":\#(f < 1 ? 10 : 0)}"#)
        }
        return lines
    }

    @Test func matchPrintsOneSnappedLinePerInputLineInOrder() throws {
        var lines = Self.trace()
        lines.insert("this is not a fix", at: 3)
        let out = MatchCommand.match(lines, graph: try Self.graph(), mode: .driving)
        #expect(out.count == lines.count)
        let objects = out.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect((objects[3]?["error"] as? [String: Any])?["code"] as? String == "match.invalid_json")
        let matched = objects.enumerated().filter { $0.offset != 3 }.map { $0.element }
        #expect(matched.allSatisfy { $0?["osmWayId"] as? Int == 100 && $0?["roadName"] as? String == "Westgatan" })
        #expect(matched.allSatisfy { $0?["matched"] as? Bool == true })
        // Snapped onto the street: 3 m north of it becomes on it.
        #expect(matched.allSatisfy { abs(($0?["lat"] as? Double ?? 0) - Self.a.latitude) < 0.000005 })
        let times = matched.compactMap { $0?["timestamp"] as? Double }
        #expect(times == times.sorted() && times.count == lines.count - 1)
    }

    /// `--provisional`: each fix's answer as it came at once (what the navigator uses live), not the final one.
    @Test func matchProvisionalPrintsTheAnswerEachFixGotAtOnce() throws {
        // Along-road noise, so that the lag's later fixes move the final answers.
        let lines = (0...30).map { i -> String in
            let f = Double(i) / 40 + (i % 2 == 0 ? 0.02 : -0.02)
            let lon = Self.a.longitude + (Self.b.longitude - Self.a.longitude) * f
            return #"{"lat":\#(Self.a.latitude),"lon":\#(lon),"timestamp":\#(1_796_026_502 + i)}"#
        }
        let graph = try Self.graph()
        let provisional = MatchCommand.match(lines, graph: graph, mode: .driving, provisional: true)
        let final = MatchCommand.match(lines, graph: graph, mode: .driving)
        #expect(provisional.count == lines.count && final.count == lines.count)
        #expect(provisional != final)
        let matcher = MapMatcher(index: RoadGeometryIndex(graph: graph))
        let direct = try lines.map { MatchingJSON.encode(matcher.update(try MatchingJSON.decodeFix($0)).provisional) }
        #expect(provisional == direct)
    }

    @Test func replayPrintsEveryEventAsTheAgentWouldPublishIt() throws {
        let map = NavigationMap(graph: try Self.graph(), name: "street")
        let destinations = #"{"assignmentId":"r-1","waypoints":[{"lat":60.17,"lon":24.9436,"title":"End"}]}"#
        let out = try ReplayCommand.replay(Self.trace(), destinations: Array(destinations.utf8), map: map, vehicleID: "van-7",
                                           autoContinue: true)
        let objects = out.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == out.count)
        let topics = objects.compactMap { $0["topic"] as? String }
        #expect(topics.contains("nav/route") && topics.contains("nav/eta") && topics.contains("location/snapped"))
        let arrivals = objects.filter { $0["topic"] as? String == "nav/arrival" }.compactMap { $0["payload"] as? [String: Any] }
        #expect(arrivals.count == 1)
        #expect(arrivals.first?["assignmentId"] as? String == "r-1")
        #expect(arrivals.first?["vehicleId"] as? String == "van-7")
        #expect((arrivals.first?["waypoint"] as? [String: Any])?["title"] as? String == "End")
        // The payloads are the agent's own: same encoder, same envelope.
        let payloads = objects.compactMap { $0["payload"] as? [String: Any] }
        #expect(payloads.allSatisfy { $0["schemaVersion"] as? Int == 1 && $0["seq"] is Int })
    }

    /// `replay` streams: every fix's events come out when its line is pushed, the first fix's included; a line before
    /// the first fix waits for it (the first fix dates the start of the session).
    @Test func replayStreamsEachFixsEventsAsItsLineArrives() throws {
        let map = NavigationMap(graph: try Self.graph(), name: "street")
        let destinations = Array(#"{"assignmentId":"r-1","waypoints":[{"lat":60.17,"lon":24.9436,"title":"End"}]}"#.utf8)
        let lines = ["not a fix"] + Self.trace()
        var stream = try ReplayCommand.ReplayStream(destinations: destinations, map: map, vehicleID: "v",
                                                    autoContinue: true, traffic: [])
        #expect(stream.push(lines[0]).isEmpty, "waits for the first fix")
        var streamed: [String] = []
        for (index, line) in lines.dropFirst().enumerated() {
            let printed = stream.push(line)
            let fixTime = try #require(
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["timestamp"] as? Double)
            let snappedTimes = printed.compactMap { text -> String? in
                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                guard object?["topic"] as? String == "location/snapped" else { return nil }
                return (object?["payload"] as? [String: Any])?["timestamp"] as? String
            }
            #expect(snappedTimes == [ISO8601Timestamp.string(from: Date(timeIntervalSince1970: fixTime))],
                    "line \(index + 2): its own snapped location, at once")
            streamed += printed
        }
        streamed += stream.finish()
        #expect(streamed == (try ReplayCommand.replay(lines, destinations: destinations, map: map, vehicleID: "v",
                                                      autoContinue: true)))
        #expect(streamed.contains { $0.contains(#""topic":"agent/error""#) }, "the line that is not a fix is answered")
    }

    /// `replay --traffic`: each payload applied when the replay reaches its receivedAt (or its newest observedAt).
    @Test func replayAppliesTrafficPayloadsAtTheirTime() throws {
        let map = NavigationMap(graph: try Self.graph(), name: "street")
        let destinations = Array(#"{"assignmentId":"r-1","waypoints":[{"lat":60.17,"lon":24.9436,"title":"End"}]}"#.utf8)
        let start = 1_796_026_502.0
        func run(_ traffic: [String]) throws -> [String] {
            try ReplayCommand.replay(Self.trace(start: start), destinations: destinations, map: map, vehicleID: "v",
                                     autoContinue: true, traffic: traffic)
        }
        func payloads(_ lines: [String], _ topic: String) -> [[String: Any]] {
            lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["topic"] as? String == topic }.compactMap { $0["payload"] as? [String: Any] }
        }
        func slow(at seconds: Double, receivedAt: String?) -> String {
            let observed = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
            return #"{"#
                + (receivedAt.map { #""receivedAt":\#($0),"# } ?? "")
                + #""segments":[{"osmWayId":100,"speedKph":3.6,"observedAt":"\#(observed)"}]}"#
        }
        let none = try run([])
        let midway = try run([slow(at: start + 5, receivedAt: "\(start + 5)")])
        let etaAtReceipt = { (events: [String]) in
            payloads(events, "nav/eta").first { $0["timestamp"] as? String == "2026-11-30T08:15:07.000Z" }?[
                "remainingSeconds"] as? Double ?? 0
        }
        // Slow traffic on the street from 5 s on: a longer remaining time, and a heavy delay category.
        #expect(etaAtReceipt(midway) > etaAtReceipt(none) + 5)
        #expect(!payloads(none, "nav/delay").contains { $0["category"] as? String == "heavy" })
        #expect(payloads(midway, "nav/delay").contains { $0["category"] as? String == "heavy" })
        // Without receivedAt the newest observedAt is the time, and the outcome the same; and it is deterministic.
        let observedOnly = try run([slow(at: start + 5, receivedAt: nil)])
        #expect(observedOnly == midway)
        #expect(try run([slow(at: start + 5, receivedAt: "\(start + 5)")]) == midway)
        // Received after the last fix: never applied.
        #expect(try run([slow(at: start + 5, receivedAt: "\(start + 60)")]) == none)
        // Received before the first fix (ISO 8601 text): the route is planned with it.
        let before = try run([slow(at: start - 60, receivedAt: #""2026-11-30T08:14:00Z""#)])
        let plannedNone = payloads(none, "nav/route").first?["durationSeconds"] as? Double ?? 0
        let plannedBefore = payloads(before, "nav/route").first?["durationSeconds"] as? Double ?? 0
        #expect(plannedBefore > plannedNone + 60)
        #expect(throws: CommandFailure.self) { _ = try run(["{\"segments\":7}"]) }
        #expect(throws: CommandFailure.self) { _ = try run([slow(at: start, receivedAt: #""soon""#)]) }
    }

    @Test func replayRefusesAFileThatIsNotAnAssignment() throws {
        let map = NavigationMap(graph: try Self.graph(), name: "street")
        #expect(throws: CommandFailure.self) {
            _ = try ReplayCommand.replay(Self.trace(), destinations: Array("{}".utf8), map: map, vehicleID: "v", autoContinue: true)
        }
    }

    @Test func simulateToStdoutPrintsFixesForReplay() throws {
        let path = try TestTools.makeTemporaryDirectory(prefix: "edgenav-sim") + "/street.graph"
        try Self.graph().write(to: URL(fileURLWithPath: path))
        let captured = CapturedOutput()
        let status = EdgeNavCommandLine.main(
            ["simulate", "--map", path, "--stdout", "--start", "2026-11-30T08:15:02Z", "--linger-seconds", "2",
             "60.1700,24.9401", "60.1700,24.9435"], environment: [:], output: captured.output)
        #expect(status == ExitStatus.success, "\(captured.standardError)")
        let lines = captured.standardOutput.split(separator: "\n")
        #expect(lines.count > 10)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["timestamp"] as? String == "2026-11-30T08:15:02.000Z")
        #expect(try LocationPayload.decode(Array(lines.last!.utf8)).format == .native)
    }

    @Test func runHelpListsEveryFlagWithItsVariableAndDefault() {
        let captured = CapturedOutput()
        #expect(EdgeNavCommandLine.main(["run", "--help"], environment: [:], output: captured.output) == ExitStatus.success)
        for option in RunCommand.spec.options {
            #expect(captured.standardOutput.contains("--\(option.name)"))
            if let variable = option.environmentVariable { #expect(captured.standardOutput.contains(variable)) }
            if let value = option.defaultValue { #expect(captured.standardOutput.contains("default: \(value)")) }
        }
    }
}

/// `--map` of the batch tools takes an OSM extract as well as a graph file.
@Suite struct MapFileTests {
    static let fixture = ASCIIMapFixture("""
        A-------------B
        """, gridMeters: 10, ways: ["AB": ["highway": "residential", "name": "Westgatan", "maxspeed": "30"]])

    @Test func anOSMExtractIsImportedInMemoryAndMatchesLikeItsGraphFile() throws {
        let extract = try Self.fixture.writeTemporaryFile(name: "mapfile")
        defer { try? FileManager.default.removeItem(at: extract) }
        let graphFile = extract.deletingPathExtension().appendingPathExtension("graph")
        defer { try? FileManager.default.removeItem(at: graphFile) }
        _ = try GraphImporter.importFile(input: extract, output: graphFile)

        let fromExtract = try MapFile.load(extract.path)
        let fromGraphFile = try MapFile.load(graphFile.path)
        #expect(fromExtract.nodeCount == fromGraphFile.nodeCount && fromExtract.edgeCount == fromGraphFile.edgeCount)
        let a = Self.fixture.map["A"], b = Self.fixture.map["B"]
        let lines = (0...10).map { i in
            let f = Double(i) / 10
            return #"{"lat":\#(a.latitude + 0.00003),"lon":\#(a.longitude + (b.longitude - a.longitude) * f),"timestamp":\#(1_796_026_502 + i),"speed":10}"#
        }
        let out = MatchCommand.match(lines, graph: fromExtract, mode: .driving)
        #expect(out == MatchCommand.match(lines, graph: fromGraphFile, mode: .driving))
        #expect(out.allSatisfy { $0.contains(#""roadName":"Westgatan""#) && $0.contains(#""matched":true"#) })
    }

    @Test func mapImportTakesTheCountryFromTheCommandLine() throws {
        // The fixture lies in Helsinki (traffic keeps right); --country GB makes it a left-hand map.
        let extract = try Self.fixture.writeTemporaryFile(name: "mapfile-country")
        defer { try? FileManager.default.removeItem(at: extract) }
        let graphFile = extract.deletingPathExtension().appendingPathExtension("graph")
        defer { try? FileManager.default.removeItem(at: graphFile) }
        for (arguments, side) in [([String](), DrivingSide.right), (["--country", "gb"], .left)] {
            let captured = CapturedOutput()
            let status = EdgeNavCommandLine.main(["map", "import"] + arguments + ["-o", graphFile.path, extract.path],
                                                 environment: [:], output: captured.output)
            #expect(status == ExitStatus.success, "\(captured.standardError)")
            #expect(try MapFile.load(graphFile.path).drivingSide == side)
        }
        let captured = CapturedOutput()
        let status = EdgeNavCommandLine.main(["map", "import", "--country", "GBR", "-o", graphFile.path, extract.path],
                                             environment: [:], output: captured.output)
        #expect(status == ExitStatus.usage)
        #expect(captured.standardError.contains("two-letter country code"))
    }

    @Test func aFileThatIsNeitherSaysWhatToDo() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("edgenav-not-a-map-\(UUID().uuidString).txt")
        try Data("hello".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            _ = try MapFile.load(url.path)
        } throws: { error in
            "\(error)".contains("graph.not_a_graph_file") && "\(error)".contains("edgenav map import")
        }
        // `map info` describes graph files only: an extract is not imported there.
        let extract = try Self.fixture.writeTemporaryFile(name: "mapfile-info")
        defer { try? FileManager.default.removeItem(at: extract) }
        #expect(throws: CommandFailure.self) { _ = try MapFile.load(extract.path, importingExtracts: false) }
    }
}
