import Agent
import Foundation
import Geo
import OSMImport
import RoadGraph
import Routing

/// `edgenav route`: one route as JSON, or one JSON result per stdin line for batch jobs.
enum RouteCommand {
    static let spec = CommandSpec(
        invocation: "edgenav route",
        summary: "Route between coordinates on a road graph and print the route as JSON.",
        discussion: """
            Coordinates are LAT,LON in degrees (latitude first). The first is the origin; each further one
            is a destination and gets its own leg. With no coordinates, reads one JSON request per line on
            stdin, {"waypoints":[[lat,lon],...],"mode":"driving","avoid":["ferries"],"strategy":"best"},
            and writes one JSON result per line. Exit status: 0 when every route is ok, 1 otherwise,
            2 for a wrong command line.
            --avoid lists exactly what is avoided: the default avoids ferries, as the Navigation SDK
            does; --avoid none avoids nothing.
            """,
        options: [
            OptionSpec("map", value: "FILE", help: "road graph file made by 'edgenav map import', or an OSM extract (imported in memory)"),
            OptionSpec("mode", value: "MODE", default: "driving",
                       help: "driving, cycling, walking, taxi or twoWheeler"),
            OptionSpec("strategy", value: "STRATEGY", default: "best",
                       help: "best (shortest time) or shorter (shortest distance)"),
            OptionSpec("avoid", value: "LIST", default: "ferries",
                       help: "comma-separated: highways, tolls, ferries; or none"),
            OptionSpec("algorithm", value: "NAME", default: "alt",
                       help: "search method: alt (bidirectional A* with landmarks), unidirectionalAlt, bidirectionalDijkstra or dijkstra; all exact"),
        ],
        positionals: [PositionalSpec("LAT,LON", help: "origin, then destinations", repeats: true)])

    static var command: Command {
        Command(name: "route", spec: spec) { arguments, context in
            guard let mapPath = arguments.string("map") else {
                throw ArgumentError.missingRequired(option: "map", environmentVariable: "EDGENAV_MAP")
            }
            let defaults = try RouteDefaults(
                mode: arguments.string("mode") ?? "driving", strategy: arguments.string("strategy") ?? "best",
                avoid: arguments.string("avoid") ?? "ferries")
            guard let algorithm = SearchAlgorithm(rawValue: arguments.string("algorithm") ?? "alt") else {
                throw ArgumentError.invalidValue(
                    option: "algorithm", value: arguments.string("algorithm") ?? "",
                    reason: "expected " + SearchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))
            }
            var waypoints: [Coordinate] = []
            for text in arguments.positionals {
                guard let coordinate = parseCoordinate(text) else {
                    throw ArgumentError.invalidValue(
                        option: "LAT,LON", value: text, reason: "expected latitude,longitude in degrees")
                }
                waypoints.append(coordinate)
            }
            if waypoints.count == 1 {
                throw ArgumentError.missingPositional("a destination LAT,LON after the origin")
            }
            let graph = try MapFile.load(mapPath)
            // Landmarks pay for themselves only over many queries; one route uses bidirectional Dijkstra.
            let batch = waypoints.isEmpty
            var configuration = RouterConfiguration()
            configuration.algorithm =
                batch || (algorithm != .alt && algorithm != .unidirectionalAlt) ? algorithm : .bidirectionalDijkstra
            let landmarks =
                configuration.algorithm == .alt || configuration.algorithm == .unidirectionalAlt
                ? LandmarkIndex.build(graph: graph, modes: TravelMode.allCases) : nil
            let router = Router(graph: graph, landmarks: landmarks, configuration: configuration)

            if !batch {
                let json = RouteJSON.response(router.route(defaults.request(waypoints)))
                context.print(json.text)
                return json.ok ? ExitStatus.success : ExitStatus.failure
            }
            var allOK = true
            var lineNumber = 0
            while let line = readLine(strippingNewline: true) {
                lineNumber += 1
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                let json: RouteJSON.Output
                do {
                    let request = try RouteJSON.decodeRequest(line, defaults: defaults)
                    json = RouteJSON.response(router.route(request))
                } catch {
                    json = RouteJSON.invalidRequest(line: lineNumber, message: "\(error)")
                }
                allOK = allOK && json.ok
                context.print(json.text)
            }
            return allOK ? ExitStatus.success : ExitStatus.failure
        }
    }

    /// `60.17,24.94` → a coordinate; nil for anything else, including out-of-range values.
    static func parseCoordinate(_ text: String) -> Coordinate? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let lat = Double(parts[0].trimmingCharacters(in: .whitespaces)),
            let lon = Double(parts[1].trimmingCharacters(in: .whitespaces)),
            (-90...90).contains(lat), (-180...180).contains(lon)
        else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

/// The mode, strategy and avoid options a request uses when it does not say.
struct RouteDefaults {
    var mode: TravelMode
    var strategy: RoutingStrategy
    var avoid: AvoidOptions

    init(mode: String, strategy: String, avoid: String) throws(ArgumentError) {
        guard let mode = TravelMode(rawValue: mode) else {
            throw .invalidValue(option: "mode", value: mode, reason: "expected driving, cycling, walking, taxi or twoWheeler")
        }
        guard let strategy = RoutingStrategy(rawValue: strategy) else {
            throw .invalidValue(option: "strategy", value: strategy, reason: "expected best or shorter")
        }
        self.mode = mode
        self.strategy = strategy
        do {
            self.avoid = try Self.avoidOptions(avoid.split(separator: ",").map(String.init))
        } catch {
            throw .invalidValue(option: "avoid", value: avoid, reason: error.message)
        }
    }

    struct AvoidError: Error { var message: String }

    static func avoidOptions(_ names: [String]) throws(AvoidError) -> AvoidOptions {
        var options: AvoidOptions = []
        for name in names.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            switch name {
            case "highways": options.insert(.highways)
            case "tolls": options.insert(.tolls)
            case "ferries": options.insert(.ferries)
            case "none": break
            default: throw AvoidError(message: "unknown '\(name)'; expected highways, tolls, ferries or none")
            }
        }
        return options
    }

    func request(_ waypoints: [Coordinate], mode: TravelMode? = nil, strategy: RoutingStrategy? = nil, avoid: AvoidOptions? = nil)
        -> RouteRequest
    {
        RouteRequest(
            origin: Waypoint(waypoints[0]), destinations: waypoints.dropFirst().map { Waypoint($0) },
            travelMode: mode ?? self.mode, strategy: strategy ?? self.strategy, avoid: avoid ?? self.avoid)
    }
}

/// Opens a road graph file with a message that says what is wrong and what to do. The batch tools (`route`,
/// `match`, `replay`, `simulate`) also take an OpenStreetMap extract (`.osm.pbf`, `.osm`, compressed XML) and import
/// it in memory first, saying so on stderr: people run them on the extract they have, and an import of a city takes
/// seconds. The agent itself (`edgenav run`) memory-maps a graph file and takes nothing else.
enum MapFile {
    static func load(_ path: String, importingExtracts: Bool = true) throws -> RoadGraph {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("map file \(path) does not exist (make one with 'edgenav map import')")
        }
        do {
            return try RoadGraph(contentsOf: URL(fileURLWithPath: path))
        } catch let error as RoadGraphError where error.code == .notAGraphFile && importingExtracts && isExtract(path) {
            FileHandle.standardError.write(
                Data("edgenav: \(path) is an OpenStreetMap extract, importing it in memory (to skip this on every run: edgenav map import \(path) -o FILE.graph)\n".utf8))
            do {
                return try GraphImporter.buildGraph(input: URL(fileURLWithPath: path)).graph
            } catch let importError as OSMImportError {
                throw CommandFailure(importing: path, importError)
            }
        } catch {
            throw CommandFailure("cannot use \(path) as a road graph: \(error) (make one with 'edgenav map import')")
        }
    }

    /// An OSM extract by its name (what libosmium reads by name: PBF, XML, XML compressed with gzip or bzip2).
    static func isExtract(_ path: String) -> Bool {
        let name = path.lowercased()
        return [".pbf", ".osm", ".osm.gz", ".osm.bz2"].contains { name.hasSuffix($0) }
    }
}

/// A failure the command reports as one line and exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// An OSM extract that could not be imported.
    init(importing path: String, _ error: OSMImportError) {
        self.init("cannot import \(path): \(error.message) [\(error.code.rawValue)]")
    }
}

/// JSON for `edgenav route`: requests in, results out.
enum RouteJSON {
    struct Output {
        var text: String
        var ok: Bool
    }

    struct Request: Decodable {
        var waypoints: [[Double]]
        var mode: String?
        var strategy: String?
        var avoid: [String]?
    }

    struct DecodeError: Error, CustomStringConvertible { var description: String }

    static func decodeRequest(_ line: String, defaults: RouteDefaults) throws -> RouteRequest {
        let request: Request
        do {
            request = try JSONDecoder().decode(Request.self, from: Data(line.utf8))
        } catch {
            throw DecodeError(description: "not a route request: expected {\"waypoints\":[[lat,lon],...]}")
        }
        var coordinates: [Coordinate] = []
        for pair in request.waypoints {
            guard pair.count == 2, (-90...90).contains(pair[0]), (-180...180).contains(pair[1]) else {
                throw DecodeError(description: "each waypoint is [lat, lon] in degrees")
            }
            coordinates.append(Coordinate(latitude: pair[0], longitude: pair[1]))
        }
        guard coordinates.count >= 2 else { throw DecodeError(description: "need an origin and at least one destination") }
        var mode: TravelMode?
        if let text = request.mode {
            guard let parsed = TravelMode(rawValue: text) else { throw DecodeError(description: "unknown mode '\(text)'") }
            mode = parsed
        }
        var strategy: RoutingStrategy?
        if let text = request.strategy {
            guard let parsed = RoutingStrategy(rawValue: text) else {
                throw DecodeError(description: "unknown strategy '\(text)'")
            }
            strategy = parsed
        }
        var avoid: AvoidOptions?
        if let names = request.avoid {
            do { avoid = try RouteDefaults.avoidOptions(names) } catch { throw DecodeError(description: error.message) }
        }
        return defaults.request(coordinates, mode: mode, strategy: strategy, avoid: avoid)
    }

    static func response(_ response: RouteResponse) -> Output {
        var fields: [(String, JSONValue)] = [("status", .string(response.status.rawValue))]
        if let route = response.route, response.status == .ok {
            fields += [
                ("travelMode", .string(route.travelMode.rawValue)),
                ("strategy", .string(route.strategy.rawValue)),
                ("distanceMeters", .number(route.distanceMeters, digits: 1)),
                ("durationSeconds", .number(route.durationSeconds, digits: 1)),
                ("legs", .array(route.legs.map(leg))),
            ]
        } else {
            if !response.message.isEmpty { fields.append(("message", .string(response.message))) }
            if let index = response.waypointIndex { fields.append(("waypointIndex", .int(Int64(index)))) }
        }
        return Output(text: JSONValue.object(fields).text, ok: response.status == .ok)
    }

    static func leg(_ leg: RouteLeg) -> JSONValue {
        let destination = leg.destination
        return .object([
            ("destination", .object([
                ("lat", .number(destination.coordinate.latitude, digits: 7)),
                ("lon", .number(destination.coordinate.longitude, digits: 7)),
                ("title", .string(destination.title)),
            ])),
            ("distanceMeters", .number(leg.distanceMeters, digits: 1)),
            ("durationSeconds", .number(leg.durationSeconds, digits: 1)),
            // GeoJSON order: [longitude, latitude].
            ("geometry", .object([
                ("type", "LineString"),
                ("coordinates", .array(leg.geometry.map {
                    .array([.number($0.longitude, digits: 6), .number($0.latitude, digits: 6)])
                })),
            ])),
            ("polyline6", .string(leg.encodedPolyline)),
            ("osmWayIds", .array(leg.osmWayIDs.map { .int($0) })),
        ])
    }

    static func invalidRequest(line: Int, message: String) -> Output {
        Output(
            text: JSONValue.object([
                ("status", "invalidRequest"), ("line", .int(Int64(line))), ("message", .string(message)),
            ]).text, ok: false)
    }
}
