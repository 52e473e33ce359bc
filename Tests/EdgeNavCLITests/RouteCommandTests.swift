import Foundation
import Geo
import RoadGraph
import Testing
import TestKit

@testable import EdgeNavCLI

/// `edgenav route` on a small graph file: two separate streets 1 km apart, each two-way.
@Suite struct RouteCommandTests {
    static let west = (Coordinate(latitude: 60.1700, longitude: 24.9400), Coordinate(latitude: 60.1700, longitude: 24.9436))
    static let east = (Coordinate(latitude: 60.1790, longitude: 24.9400), Coordinate(latitude: 60.1790, longitude: 24.9436))

    static func graphFile() throws -> String {
        var builder = RoadGraphBuilder()
        for (index, street) in [west, east].enumerated() {
            let a = builder.addNode(street.0)
            let b = builder.addNode(street.1)
            let attributes = EdgeAttributes(
                access: .all, freeFlowSpeedKph: 36, speedLimitKph: 40, osmWayID: Int64(100 + index),
                name: index == 0 ? "Westgatan" : "Östergatan")
            _ = builder.addEdge(from: a, to: b, attributes: attributes)
            _ = builder.addEdge(from: b, to: a, attributes: attributes)
        }
        let path = try TestTools.makeTemporaryDirectory(prefix: "edgenav-route") + "/two-streets.graph"
        try builder.build().write(to: URL(fileURLWithPath: path))
        return path
    }

    func run(_ arguments: [String]) -> (Int32, CapturedOutput) {
        let captured = CapturedOutput()
        let status = EdgeNavCommandLine.main(arguments, environment: [:], output: captured.output)
        return (status, captured)
    }

    @Test func aRouteAlongOneStreetIsPrintedAsJSON() throws {
        let map = try Self.graphFile()
        let (status, output) = run(["route", "--map", map, "60.1700,24.9405", "60.1700,24.9430"])
        #expect(status == ExitStatus.success, "\(output.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "ok")
        let distance = try #require(object["distanceMeters"] as? Double)
        let expected = Geodesy.distanceMeters(
            Coordinate(latitude: 60.17, longitude: 24.9405), Coordinate(latitude: 60.17, longitude: 24.9430))
        #expect(abs(distance - expected) < 1)
        let legs = try #require(object["legs"] as? [[String: Any]])
        #expect(legs.count == 1)
        #expect(legs[0]["osmWayIds"] as? [Int] == [100])
        let geometry = try #require(legs[0]["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        let first = try #require((geometry["coordinates"] as? [[Double]])?.first)
        #expect(abs(first[0] - 24.9405) < 1e-6 && abs(first[1] - 60.17) < 1e-6, "GeoJSON is [lon, lat]")
        let polyline = try #require(legs[0]["polyline6"] as? String)
        #expect(try EncodedPolyline.decode(polyline, precision: 6).count >= 2)
    }

    @Test func anUnroutablePairSaysNoRouteFoundAndExitsOne() throws {
        let map = try Self.graphFile()
        let (status, output) = run(["route", "--map", map, "60.1700,24.9405", "60.1790,24.9430"])
        #expect(status == ExitStatus.failure)
        #expect(output.standardOutput.contains("\"status\":\"noRouteFound\""))
    }

    @Test func aWaypointInTheSeaSaysLocationUnavailable() throws {
        let map = try Self.graphFile()
        let (status, output) = run(["route", "--map", map, "60.1700,24.9405", "60.1000,24.9000"])
        #expect(status == ExitStatus.failure)
        #expect(output.standardOutput.contains("\"status\":\"locationUnavailable\""))
    }

    @Test func anUnknownModeIsAUsageError() throws {
        let map = try Self.graphFile()
        let (status, output) = run(["route", "--map", map, "--mode", "hovercraft", "60.17,24.9405", "60.17,24.943"])
        #expect(status == ExitStatus.usage)
        #expect(output.standardError.contains("invalid value 'hovercraft' for '--mode'"))
    }

    @Test func aMissingOrWrongMapFileIsNamed() throws {
        let (missingStatus, missing) = run(["route", "--map", "/nonexistent.graph", "60.17,24.94", "60.17,24.943"])
        #expect(missingStatus == ExitStatus.failure)
        #expect(missing.standardError.contains("/nonexistent.graph does not exist"))

        let notAGraph = try TestTools.makeTemporaryDirectory(prefix: "edgenav-route") + "/notes.graph"
        try "this is not a graph".write(toFile: notAGraph, atomically: true, encoding: .utf8)
        let (wrongStatus, wrong) = run(["route", "--map", notAGraph, "60.17,24.94", "60.17,24.943"])
        #expect(wrongStatus == ExitStatus.failure)
        #expect(wrong.standardError.contains("cannot use \(notAGraph) as a road graph"))
    }

    @Test func badCoordinatesAndAvoidNamesAreUsageErrors() throws {
        let map = try Self.graphFile()
        #expect(run(["route", "--map", map, "91,24.94", "60.17,24.943"]).0 == ExitStatus.usage)
        #expect(run(["route", "--map", map, "--avoid", "potholes", "60.17,24.94", "60.17,24.943"]).0 == ExitStatus.usage)
        #expect(run(["route", "--map", map, "60.17,24.94"]).0 == ExitStatus.usage)
    }

    @Test func batchRequestsAreDecodedWithTheirOwnOptions() throws {
        let defaults = try RouteDefaults(mode: "driving", strategy: "best", avoid: "ferries")
        let request = try RouteJSON.decodeRequest(
            #"{"waypoints":[[60.17,24.94],[60.18,24.95],[60.19,24.96]],"mode":"cycling","avoid":[],"strategy":"shorter"}"#,
            defaults: defaults)
        #expect(request.travelMode == .cycling)
        #expect(request.strategy == .shorter)
        #expect(request.avoid == [])
        #expect(request.destinations.count == 2)
        let plain = try RouteJSON.decodeRequest(#"{"waypoints":[[60.17,24.94],[60.18,24.95]]}"#, defaults: defaults)
        #expect(plain.avoid == [.ferries])
        #expect(throws: (any Error).self) { try RouteJSON.decodeRequest(#"{"waypoints":[[600,24.94],[60.18,24.95]]}"#, defaults: defaults) }
        #expect(throws: (any Error).self) { try RouteJSON.decodeRequest("not json", defaults: defaults) }
    }
}
