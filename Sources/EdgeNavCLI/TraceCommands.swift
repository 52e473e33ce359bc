import Agent
import Foundation
import Geo
import MapMatching
import Navigation
import RoadGraph

/// Standard input of the trace commands, a line at a time.
enum StandardInput {
    /// Hands each line (without its line break, a trailing "\r" dropped) to `push` and prints what it returns, then
    /// what `finish` returns at the end of input.
    static func stream(to context: CommandEnvironment, push: (String) -> [String], finish: () -> [String]) {
        while let line = readLine(strippingNewline: true) {
            let printed = push(line.hasSuffix("\r") ? String(line.dropLast()) : line)
            if !printed.isEmpty { context.print(printed.joined(separator: "\n")) }
        }
        let rest = finish()
        if !rest.isEmpty { context.print(rest.joined(separator: "\n")) }
    }
}

/// `edgenav match`: raw fixes in, road-snapped fixes out, one JSON line each, in order.
enum MatchCommand {
    static let spec = CommandSpec(
        invocation: "edgenav match",
        summary: "Snap raw GPS fixes (JSON lines on stdin) to the road graph; one JSON line out per line in.",
        discussion: """
            Input, one fix per line: {"lat":60.17,"lon":24.94,"timestamp":1700000000.5,"speed":12.1,"course":87,
            "horizontalAccuracy":5,"altitude":12}; timestamp in seconds since 1970 (milliseconds recognised by
            size; a number in a string too) or ISO 8601 ("T" or a space before the time; without a zone, UTC);
            the rest optional.
            Output, one line per input line, in order: lat, lon, timestamp, osmWayId, roadName, course, speed,
            speedLimitKph, matched (and altitude, horizontalAccuracy, source, onRoute, routeDistanceMeters,
            closedRoad: true when the fix was put on a road closed to the mode by its tags, e.g. a pedestrian
            street or motor_vehicle=no).
            A line that is not a fix gives {"error":{"code":…,"message":…},"line":N} in its place (N counts every
            input line from 1). Blank lines are skipped. Output streams: each line comes out once its fix's answer
            is final (20 s and at least 8 later fixes, or the end of input), so a trace of any length, or a live
            one, works.
            """,
        options: [
            OptionSpec("map", value: "FILE", help: "road graph file made by 'edgenav map import', or an OSM extract (imported in memory)"),
            OptionSpec("mode", value: "MODE", default: "driving", help: "driving, cycling, walking, taxi or twoWheeler"),
            OptionSpec("provisional", environment: "", help: "print each fix's answer as it came at once (lag 0, what the navigator and location/snapped use live) instead of its final answer after the lag (20 s, at least 8 fixes)"),
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
            // Streams: each line is printed once its answer is final, so a long or live trace needs no more
            // memory than the matcher's lag.
            let stream = JSONLinesMatcher(index: RoadGeometryIndex(graph: graph), mode: mode,
                                          provisional: arguments.flag("provisional"))
            StandardInput.stream(to: context, push: { stream.push($0) }, finish: { stream.finish() })
            return ExitStatus.success
        }
    }

    /// The output lines for `lines` (what the command prints for them as standard input).
    static func match(_ lines: [String], graph: RoadGraph, mode: TravelMode, provisional: Bool = false) -> [String] {
        let stream = JSONLinesMatcher(index: RoadGeometryIndex(graph: graph), mode: mode, provisional: provisional)
        return lines.flatMap { stream.push($0) } + stream.finish()
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
            --traffic names a file of JSON lines, each one {prefix}/traffic payload ({"segments":[{"osmWayId",
            "speedKph","observedAt"}]}) with an optional "receivedAt" (seconds since 1970 or ISO 8601): when the
            agent received it; without it, the newest observedAt in the line. Lines are applied in the order of
            that time (file order among equal times), each just before the first fix at or after it (the lines up
            to the first fix before the route is planned; lines after the last fix are not applied), so a replay
            gives the same events every time. Their segment count is not limited.
            Output streams: each line's events are printed as it is read (lines before the first fix wait for it).
            """,
        options: [
            OptionSpec("map", value: "FILE", help: "road graph file made by 'edgenav map import', or an OSM extract (imported in memory)"),
            OptionSpec("destinations", value: "FILE", environment: "", help: "a nav/destinations payload"),
            OptionSpec("vehicle-id", value: "ID", default: "replay", help: "vehicleId in the printed payloads"),
            OptionSpec("places-file", value: "FILE", help: "named places {\"placeId\":{\"lat\",\"lon\",\"title\"}}"),
            OptionSpec("no-continue", environment: "", help: "do not continue to the next destination after an arrival"),
            OptionSpec("traffic", value: "FILE", environment: "",
                       help: "traffic payloads as JSON lines, each applied at its receivedAt (see above)"),
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
            var traffic: [String] = []
            if let trafficPath = arguments.string("traffic") {
                guard let data = FileManager.default.contents(atPath: trafficPath) else {
                    throw CommandFailure("cannot read \(trafficPath)")
                }
                traffic = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            }
            let map = NavigationMap(graph: try MapFile.load(mapPath), name: mapPath, places: places)
            // Streams: each line's events are printed as it is read (after the first fix, which dates the start).
            var stream = try ReplayStream(
                destinations: Array(destinations), map: map, vehicleID: arguments.string("vehicle-id") ?? "replay",
                autoContinue: !arguments.flag("no-continue"), traffic: traffic)
            StandardInput.stream(to: context, push: { stream.push($0) }, finish: { stream.finish() })
            return ExitStatus.success
        }
    }

    /// The printed lines for a trace (what the command prints for `lines` as standard input).
    static func replay(_ lines: [String], destinations: [UInt8], map: NavigationMap, vehicleID: String,
                       autoContinue: Bool, traffic: [String] = []) throws -> [String] {
        var stream = try ReplayStream(destinations: destinations, map: map, vehicleID: vehicleID,
                                      autoContinue: autoContinue, traffic: traffic)
        return lines.flatMap { stream.push($0) } + stream.finish()
    }

    /// A trace through one vehicle session, a line at a time. The session starts (and the assignment is set) at
    /// the time of the first line that is a fix; lines before it wait for it.
    struct ReplayStream {
        let assignment: Assignment
        let map: NavigationMap
        let vehicleID: String
        let limits: InputLimits
        var feed: TrafficFeed
        var session: VehicleSession?
        var firstTime = Date(timeIntervalSince1970: 0)
        var waiting: [String] = []

        init(destinations: [UInt8], map: NavigationMap, vehicleID: String, autoContinue: Bool,
             traffic: [String]) throws {
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
            self.assignment = assignment
            self.map = map
            self.vehicleID = vehicleID
            self.limits = limits
            feed = try TrafficFeed(lines: traffic)
        }

        /// The printed lines for one input line.
        mutating func push(_ line: String) -> [String] {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
            guard session == nil else { return process(line) }
            guard let time = fixTime(line) else {
                waiting.append(line)
                return []
            }
            return start(at: time) + process(line)
        }

        /// At the end of the input: a trace without any fix still gets its assignment (planned at time 0) and its
        /// error lines.
        mutating func finish() -> [String] {
            session == nil ? start(at: Date(timeIntervalSince1970: 0)) : []
        }

        private mutating func start(at time: Date) -> [String] {
            firstTime = time
            let session = VehicleSession(vehicleID: vehicleID, map: map, limits: limits, now: time)
            self.session = session
            var out = ReplayCommand.print(session.receiveAssignment(assignment, now: time))
            for line in waiting { out += process(line) }
            waiting = []
            return out
        }

        private mutating func process(_ line: String) -> [String] {
            guard let session else { return [] }
            // Judge each fix at its own time: the recording's clock, not ours.
            let time = fixTime(line) ?? firstTime
            var out: [String] = []
            for due in feed.take(through: max(time, firstTime)) {
                out += ReplayCommand.print(session.receiveTraffic(due.observations, now: due.receivedAt))
            }
            return out + ReplayCommand.print(session.receiveLocation(Array(line.utf8), topic: "location/raw", now: time))
        }

        private func fixTime(_ line: String) -> Date? {
            try? LocationPayload.decode(Array(line.utf8), limits: limits).fix.timestamp
        }
    }

    /// The `--traffic` file: payloads in the order they are applied.
    struct TrafficFeed {
        struct Payload {
            var receivedAt: Date
            var observations: [TrafficObservation]
        }
        private var pending: [Payload]
        private var next = 0

        init(lines: [String]) throws {
            var limits = InputLimits()
            limits.maximumTrafficSegments = .max
            limits.maximumPayloadBytes = .max
            var payloads: [Payload] = []
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let observations: [TrafficObservation]
                do {
                    observations = try TrafficPayload.decode(Array(line.utf8), limits: limits)
                } catch {
                    throw CommandFailure("traffic line \(number + 1) is not a traffic payload: \(error)")
                }
                let stated = try Self.receivedAt(line, number: number + 1)
                guard let at = stated ?? observations.map(\.observedAt).max() else { continue }  // nothing to apply
                payloads.append(Payload(receivedAt: at, observations: observations))
            }
            // Stable: equal times keep the file's order.
            pending = payloads.enumerated().sorted { ($0.element.receivedAt, $0.offset) < ($1.element.receivedAt, $1.offset) }
                .map(\.element)
        }

        /// The payloads received at or before `time` not taken yet.
        mutating func take(through time: Date) -> ArraySlice<Payload> {
            let start = next
            while next < pending.count && pending[next].receivedAt <= time { next += 1 }
            return pending[start..<next]
        }

        /// "receivedAt": seconds since 1970 or ISO 8601 text; nil when absent.
        static func receivedAt(_ line: String, number: Int) throws -> Date? {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            switch object?["receivedAt"] {
            case nil, is NSNull: return nil
            case let text as String:
                if let date = ISO8601Timestamp.date(from: text) { return date }
            case let number as NSNumber where number.doubleValue > 0:
                return Date(timeIntervalSince1970: number.doubleValue)
            default: break
            }
            throw CommandFailure("traffic line \(number): receivedAt must be seconds since 1970 or ISO 8601 text")
        }
    }

    static func print(_ messages: [OutboundMessage]) -> [String] {
        messages.map { message in
            "{\"topic\":" + JSONText.string(message.topic.rawValue) + ",\"payload\":"
                + (message.payload.isEmpty ? "null" : message.payload) + "}"
        }
    }
}
