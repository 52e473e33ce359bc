import Agent
import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph

/// Reads standard input as lines (the trace commands' input).
enum StandardInput {
    static func lines() -> [String] {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    }
}

/// `edgenav match`: raw fixes in, road-snapped fixes out, one JSON line each, in order.
enum MatchCommand {
    static let spec = CommandSpec(
        invocation: "edgenav match",
        summary: "Snap raw GPS fixes (JSON lines on stdin) to the road graph; one JSON line out per line in.",
        discussion: """
            Input, one fix per line: {"lat":60.17,"lon":24.94,"timestamp":1700000000.5,"speed":12.1,"course":87,
            "horizontalAccuracy":5,"altitude":12}; timestamp in seconds since 1970 or ISO 8601; the rest optional.
            Output, one line per input line, in order: lat, lon, timestamp, osmWayId, roadName, course, speed,
            speedLimitKph, matched (and altitude, horizontalAccuracy, source, onRoute, routeDistanceMeters).
            A line that is not a fix gives {"error":{"code":…,"message":…},"line":N} in its place. Blank lines
            are skipped.
            """,
        options: [
            OptionSpec("map", value: "FILE", help: "road graph file made by 'edgenav map import'"),
            OptionSpec("mode", value: "MODE", default: "driving", help: "driving, cycling, walking, taxi or twoWheeler"),
        ])

    static var command: Command {
        Command(name: "match", spec: spec) { arguments, context in
            guard let mapPath = arguments.string("map") else {
                throw ArgumentError.missingRequired(option: "map", environmentVariable: "EDGENAV_MAP")
            }
            let modeName = arguments.string("mode") ?? "driving"
            guard let mode = TravelMode(rawValue: modeName) else {
                throw ArgumentError.invalidValue(option: "mode", value: modeName,
                                                 reason: "expected driving, cycling, walking, taxi or twoWheeler")
            }
            let graph = try MapFile.load(mapPath)
            for line in match(StandardInput.lines(), graph: graph, mode: mode) { context.print(line) }
            return ExitStatus.success
        }
    }

    struct LineError: Error {
        var code: String
        var message: String
    }

    /// The output lines for `lines`.
    static func match(_ lines: [String], graph: RoadGraph, mode: TravelMode) -> [String] {
        var fixes: [LocationFix] = []
        var slots: [Result<Int, LineError>] = []
        for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                fixes.append(try MatchingJSON.decodeFix(line))
                slots.append(.success(fixes.count - 1))
            } catch let error as MatchingJSONError {
                slots.append(.failure(LineError(code: error.code, message: "line \(number + 1): \(error.message)")))
            } catch {
                slots.append(.failure(LineError(code: "match.invalid_json", message: "line \(number + 1)")))
            }
        }
        let matched = BatchMatcher(index: RoadGeometryIndex(graph: graph), mode: mode).match(fixes)
        return slots.map { slot in
            switch slot {
            case .success(let i): return MatchingJSON.encode(matched[i])
            case .failure(let error):
                return JSONValue.object([("error", .object([("code", .string(error.code)),
                                                            ("message", .string(error.message))]))]).text
            }
        }
    }
}

/// `edgenav replay`: a recorded trace through a navigator, every event printed as the agent would publish it.
enum ReplayCommand {
    static let spec = CommandSpec(
        invocation: "edgenav replay",
        summary: "Feed a recorded trace of location/raw payloads through a navigator and print every event.",
        discussion: """
            --destinations names a file holding one nav/destinations payload. Each stdin line is one location/raw
            payload (native, OwnTracks or gpsd TPV). Every event is printed as one JSON line,
            {"topic":"nav/arrival","payload":{…}}, topic and payload exactly as `edgenav run` publishes them
            (payload null where the agent clears a retained topic). The route is planned from the first fix.
            After each arrival the navigator continues to the next destination unless --no-continue.
            Fix age is not checked (a recording is old by nature); order and duplicates are.
            """,
        options: [
            OptionSpec("map", value: "FILE", help: "road graph file made by 'edgenav map import'"),
            OptionSpec("destinations", value: "FILE", environment: "", help: "a nav/destinations payload"),
            OptionSpec("vehicle-id", value: "ID", default: "replay", help: "vehicleId in the printed payloads"),
            OptionSpec("places-file", value: "FILE", help: "named places {\"placeId\":{\"lat\",\"lon\",\"title\"}}"),
            OptionSpec("no-continue", environment: "", help: "do not continue to the next destination after an arrival"),
        ])

    static var command: Command {
        Command(name: "replay", spec: spec) { arguments, context in
            guard let mapPath = arguments.string("map") else {
                throw ArgumentError.missingRequired(option: "map", environmentVariable: "EDGENAV_MAP")
            }
            guard let destinationsPath = arguments.string("destinations") else {
                throw ArgumentError.missingRequired(option: "destinations", environmentVariable: nil)
            }
            guard let destinations = FileManager.default.contents(atPath: destinationsPath) else {
                throw CommandFailure("cannot read \(destinationsPath)")
            }
            let places = PlaceBook()
            if let file = arguments.string("places-file") { try places.load(file: file) }
            let map = NavigationMap(graph: try MapFile.load(mapPath), name: mapPath, places: places)
            let lines = try replay(
                StandardInput.lines(), destinations: Array(destinations), map: map,
                vehicleID: arguments.string("vehicle-id") ?? "replay", autoContinue: !arguments.flag("no-continue"))
            for line in lines { context.print(line) }
            return ExitStatus.success
        }
    }

    /// The printed lines for a trace.
    static func replay(_ lines: [String], destinations: [UInt8], map: NavigationMap, vehicleID: String,
                       autoContinue: Bool) throws -> [String] {
        var limits = InputLimits()
        limits.maximumFixAgeSeconds = .infinity
        limits.maximumFixLeadSeconds = .infinity
        // The destinations file is the dispatch payload, but the continue policy is the command line's.
        let parsed: Assignment?
        do {
            parsed = try DestinationsPayload.decode(destinations, limits: limits)
        } catch {
            throw CommandFailure("the destinations file is not a nav/destinations payload: \(error)")
        }
        guard var assignment = parsed else { throw CommandFailure("the destinations file is empty") }
        assignment.autoContinue = autoContinue

        let traceLines = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let firstTime = traceLines.lazy.compactMap { try? LocationPayload.decode(Array($0.utf8), limits: limits).fix.timestamp }
            .first ?? Date(timeIntervalSince1970: 0)
        let session = VehicleSession(vehicleID: vehicleID, map: map, limits: limits, now: firstTime)
        var out = print(session.receiveAssignment(assignment, now: firstTime))
        for line in traceLines {
            let bytes = Array(line.utf8)
            // Judge each fix at its own time: the recording's clock, not ours.
            let time = (try? LocationPayload.decode(bytes, limits: limits).fix.timestamp) ?? firstTime
            out += print(session.receiveLocation(bytes, topic: "location/raw", now: time))
        }
        return out
    }

    static func print(_ messages: [OutboundMessage]) -> [String] {
        messages.map { message in
            "{\"topic\":" + JSONText.string(message.topic.rawValue) + ",\"payload\":"
                + (message.payload.isEmpty ? "null" : message.payload) + "}"
        }
    }
}
