import Agent
import Foundation
import Geo
import MQTT
import Navigation
import RoadGraph

/// `edgenav simulate`: a stand-in GPS. Drives a route with the navigator's location simulator and publishes each
/// fix on `{prefix}/{vid}/location/raw` (native payload), at wall-clock pace, so the agent is fed through the broker
/// exactly as by a real device. `--stdout` prints the fixes as JSON lines instead, as fast as they are made (a
/// trace for `edgenav replay` or `edgenav match`).
enum SimulateCommand {
    static let spec = CommandSpec(
        invocation: "edgenav simulate",
        summary: "Drive a route with the location simulator and publish its fixes on location/raw.",
        discussion: """
            The first LAT,LON is where the vehicle starts; each further one is a stop. The simulator drives the
            route the navigator plans, with optional GPS noise, and keeps reporting the final position for
            --linger-seconds after the end (so the agent can decide the arrival). Fix timestamps are the wall
            clock (or, with --stdout, a clock that starts now and runs as fast as the fixes are made).
            """,
        options: [
            OptionSpec("map", value: "FILE", help: "road graph file made by 'edgenav map import', or an OSM extract (imported in memory)"),
            OptionSpec("broker", value: "URL", default: "mqtt://127.0.0.1:1883", help: "broker URL"),
            OptionSpec("vehicle-id", value: "ID", help: "the vehicle whose location/raw topic gets the fixes"),
            OptionSpec("topic-prefix", value: "PREFIX", default: "fleet", help: "first topic level(s)"),
            OptionSpec("location-topic", value: "TOPIC", help: "publish here instead of {prefix}/{vid}/location/raw"),
            OptionSpec("speed-multiplier", value: "X", default: "1", help: "drive this many times faster (0 < X ≤ 100)"),
            OptionSpec("noise-meters", value: "M", default: "0", help: "GPS position noise σ in metres"),
            OptionSpec("fix-interval", value: "SECONDS", default: "1", help: "seconds between fixes"),
            OptionSpec("linger-seconds", value: "SECONDS", default: "5", help: "keep reporting the end this long"),
            OptionSpec("stdout", environment: "", help: "print the fixes as JSON lines instead of publishing them"),
            OptionSpec("start", value: "TIME", environment: "",
                       help: "with --stdout: the first fix's time, ISO 8601 or seconds since 1970 [default: now]"),
        ],
        positionals: [PositionalSpec("LAT,LON", help: "start, then one or more stops", repeats: true)])

    static var command: Command {
        Command(name: "simulate", spec: spec) { arguments, context in
            guard let mapPath = arguments.string("map") else {
                throw ArgumentError.missingRequired(option: "map", environmentVariable: "EDGENAV_MAP")
            }
            var points: [Coordinate] = []
            for text in arguments.positionals {
                guard let c = RouteCommand.parseCoordinate(text) else {
                    throw ArgumentError.invalidValue(option: "LAT,LON", value: text, reason: "expected latitude,longitude")
                }
                points.append(c)
            }
            guard points.count >= 2 else { throw ArgumentError.missingPositional("a start LAT,LON and at least one stop") }
            let multiplier = try arguments.double("speed-multiplier", in: 0.01...100) ?? 1
            let noise = try arguments.double("noise-meters", in: 0...100) ?? 0
            let interval = try arguments.double("fix-interval", in: 0.01...60) ?? 1
            let linger = try arguments.double("linger-seconds", in: 0...3600) ?? 5
            let toStdout = arguments.flag("stdout")

            let graph = try MapFile.load(mapPath)
            var start = Date()
            if let text = arguments.string("start") {
                guard toStdout else { throw ArgumentError.invalidValue(option: "start", value: text, reason: "only with --stdout") }
                guard let date = ISO8601Timestamp.date(from: text) ?? Double(text).map(Date.init(timeIntervalSince1970:)) else {
                    throw ArgumentError.invalidValue(option: "start", value: text, reason: "expected ISO 8601 or seconds since 1970")
                }
                start = date
            }
            let navigator = NavigatorCore(graph: graph)
            _ = navigator.process(RawFix(coordinate: points[0], timestamp: start))
            let status = navigator.setDestinations(points.dropFirst().map { NavigationWaypoint(coordinate: $0) }, at: start).status
            guard status == .ok else { throw CommandFailure("no route for the simulated drive: \(status.rawValue)") }
            var configuration = LocationSimulatorConfiguration(fixIntervalSeconds: interval)
            if noise > 0 {
                var realism = SimulationRealism()
                realism.positionSigmaMeters = noise
                realism.outlierProbability = 0
                realism.reportedAccuracyMeters = max(5, noise * 1.5)
                realism.dropFixesInTunnels = false
                configuration.realism = realism
            }
            let simulator = LocationSimulator(graph: graph, configuration: configuration)
            simulator.speedMultiplier = multiplier
            simulator.simulateLocationsAlongExistingRoute(navigator, at: start)

            if toStdout {
                var lingered = 0.0
                while lingered <= linger {
                    for fix in simulator.advance(by: interval) { context.print(OutputPayloads.rawFix(fix)) }
                    if simulator.hasFinished { lingered += interval }
                }
                return ExitStatus.success
            }
            guard let vehicleID = arguments.string("vehicle-id") else {
                throw ArgumentError.missingRequired(option: "vehicle-id", environmentVariable: "EDGENAV_VEHICLE_ID")
            }
            let tree = try TopicTree(prefix: arguments.string("topic-prefix") ?? "fleet", vehicleID: vehicleID)
            let topic = arguments.string("location-topic") ?? tree.rawLocation
            let outboxDirectory = NSTemporaryDirectory() + "edgenav-simulate-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: outboxDirectory) }
            try FileManager.default.createDirectory(atPath: outboxDirectory, withIntermediateDirectories: true)
            let broker = try BrokerURL(parsing: arguments.string("broker") ?? "mqtt://127.0.0.1:1883")
            let client = try MQTTClient(
                configuration: MQTTConfiguration(broker: broker, clientID: "edgenav-simulate-\(vehicleID)-\(getpid())"),
                outbox: try Outbox(directory: outboxDirectory))
            try client.start()
            context.printError("simulating to \(topic): \(String(format: "%.0f", navigator.distanceToNextDestination)) m "
                + "to the first stop, \(points.count - 1) stop(s), speed ×\(multiplier)")
            var clock = start
            var lingered = 0.0
            var published = 0
            while lingered <= linger {
                Thread.sleep(forTimeInterval: max(0, clock.addingTimeInterval(interval).timeIntervalSinceNow))
                let now = Date()
                for fix in simulator.advance(by: now.timeIntervalSince(clock)) {
                    try client.publish(topic: topic, payload: Array(OutputPayloads.rawFix(fix).utf8), retain: false, kind: .event)
                    published += 1
                }
                if simulator.hasFinished { lingered += now.timeIntervalSince(clock) }
                clock = now
            }
            let done = DispatchSemaphore(value: 0)
            Task {
                _ = await client.flush(timeoutSeconds: 5)
                _ = await client.stop(timeoutSeconds: 2)
                done.signal()
            }
            done.wait()
            context.printError("published \(published) fixes")
            return ExitStatus.success
        }
    }
}
