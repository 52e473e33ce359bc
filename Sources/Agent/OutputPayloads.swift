import Foundation
import Geo
import MQTT
import Navigation
import Routing

/// The agent's output topics below `{prefix}/{vid}/`.
public enum OutputTopic: String, Sendable, CaseIterable {
    case arrival = "nav/arrival"
    case route = "nav/route"
    case eta = "nav/eta"
    case delay = "nav/delay"
    case lighting = "nav/lighting"
    case speeding = "nav/speeding"
    case state = "nav/state"
    case snappedLocation = "location/snapped"
    case error = "agent/error"
    case metrics = "agent/metrics"

    /// Discrete events are never coalesced in the outbox; state topics may be.
    public var kind: MessageKind {
        switch self {
        case .arrival, .route, .error: .event
        default: .state
        }
    }
}

/// One message the agent publishes (retained, QoS 1). An empty `payload` removes the topic's retained message.
public struct OutboundMessage: Sendable, Equatable {
    public var topic: OutputTopic
    /// The JSON text's UTF-8 bytes, as published; empty to clear the retained message.
    public var payloadBytes: [UInt8]

    /// The JSON text; empty to clear the retained message.
    public var payload: String { String(decoding: payloadBytes, as: UTF8.self) }

    public init(topic: OutputTopic, payloadBytes: [UInt8]) {
        self.topic = topic
        self.payloadBytes = payloadBytes
    }

    public init(topic: OutputTopic, payload: String) {
        self.init(topic: topic, payloadBytes: Array(payload.utf8))
    }

    public static func clear(_ topic: OutputTopic) -> OutboundMessage { OutboundMessage(topic: topic, payloadBytes: []) }
}

/// The JSON bodies of every output topic, shared by the agent and `edgenav replay` so both print exactly the same.
/// The envelope (`vehicleId`, `seq`, `timestamp`, `schemaVersion`) is added by `OutputEnvelope`.
public enum OutputPayloads {
    public static let schemaVersion: Int64 = 1

    static func coordinateFields(_ c: Coordinate) -> [(String, JSONValue)] {
        [("lat", .number(c.latitude, digits: 7)), ("lon", .number(c.longitude, digits: 7))]
    }

    /// `waypointOffset` maps the navigator's waypoint index (into the list it was given) to the assignment's.
    public static func arrival(_ e: ArrivalEvent, assignmentID: String?, waypointOffset: Int) -> [(String, JSONValue)] {
        [
            ("assignmentId", .string(assignmentID)),
            ("waypoint", .object(waypoint(e.waypoint, offset: waypointOffset))),
            ("remainingWaypoints", .int(Int64(e.remainingWaypoints))),
            ("vehicleLat", .number(e.vehicleCoordinate.latitude, digits: 7)),
            ("vehicleLon", .number(e.vehicleCoordinate.longitude, digits: 7)),
        ]
    }

    static func waypoint(_ w: ResolvedWaypoint, offset: Int) -> [(String, JSONValue)] {
        [("index", .int(Int64(w.index + offset))), ("title", .string(w.title)), ("placeId", .string(w.placeID))]
            + coordinateFields(w.coordinate)
    }

    public static func route(_ e: RouteChangedEvent, assignmentID: String?, waypointOffset: Int) -> [(String, JSONValue)] {
        [
            ("reason", .string(e.reason.rawValue)),
            ("routeStatus", .string(e.routeStatus.rawValue)),
            ("assignmentId", .string(assignmentID)),
            ("currentLegIndex", e.currentLegIndex.map { .int(Int64($0 + waypointOffset)) } ?? .null),
            ("distanceMeters", .number(e.distanceMeters, digits: 1)),
            ("durationSeconds", .number(e.durationSeconds, digits: 1)),
            ("legs", .array(e.legs.map { leg in
                .object([
                    ("destination", .object(waypoint(leg.destination, offset: waypointOffset))),
                    ("distanceMeters", .number(leg.distanceMeters, digits: 1)),
                    ("durationSeconds", .number(leg.durationSeconds, digits: 1)),
                    ("polyline6", .string(EncodedPolyline.encode(leg.geometry, precision: 6))),
                ])
            })),
        ]
    }

    public static func eta(remainingSeconds: Double, remainingMeters: Double, timestamp: Date, waypointIndex: Int)
        -> [(String, JSONValue)]
    {
        [
            ("remainingSeconds", .number(remainingSeconds, digits: 1)),
            ("remainingMeters", .number(remainingMeters, digits: 1)),
            ("eta", .string(ISO8601Timestamp.string(from: timestamp.addingTimeInterval(remainingSeconds)))),
            ("waypointIndex", .int(Int64(waypointIndex))),
        ]
    }

    public static func delay(_ e: DelayCategoryEvent) -> [(String, JSONValue)] {
        [("category", .string(e.category.name)), ("code", .int(Int64(e.code)))]
    }

    public static func lighting(_ e: LightingEvent) -> [(String, JSONValue)] {
        [("mode", .string(e.mode.name)), ("code", .int(Int64(e.mode.rawValue))),
         ("sunElevationDegrees", .number(e.sunElevationDegrees, digits: 2))]
    }

    public static func speeding(_ e: SpeedingEvent) -> [(String, JSONValue)] {
        [
            ("percentageAboveLimit", .number(e.percentageAboveLimit, digits: 1)),
            ("severity", .string(e.severity.rawValue)),
            ("speedKph", .number(e.speedKph, digits: 1)),
            ("speedLimitKph", .number(e.speedLimitKph, digits: 1)),
            ("osmWayId", e.osmWayID.map { .int($0) } ?? .null),
        ]
    }

    /// Unknown values are null (the SDK's -1 / NaN encodings are not used on the wire).
    public static func snappedLocation(_ e: SnappedLocationEvent) -> [(String, JSONValue)] {
        coordinateFields(e.coordinate) + [
            ("altitude", .number(e.altitudeMeters, digits: 1)),
            ("course", .number(e.courseDegrees, digits: 1)),
            ("speed", .number(e.speedMetersPerSecond, digits: 2)),
            ("horizontalAccuracy", .number(e.horizontalAccuracyMeters, digits: 1)),
            ("osmWayId", e.osmWayID.map { .int($0) } ?? .null),
            ("roadName", .string(e.roadName)),
            ("onRoute", .bool(e.isOnRoute)),
        ]
    }

    /// `suppressedCount`: only on a summary of errors the error limit held back (how many).
    public static func error(_ error: AgentInputError, topic: String?, payload: [UInt8]?, suppressedCount: Int? = nil)
        -> [(String, JSONValue)]
    {
        var excerpt: JSONValue = .null
        if let payload {
            let head = payload.prefix(120)
            excerpt = .string(String(decoding: head, as: UTF8.self) + (payload.count > 120 ? "…" : ""))
        }
        var fields: [(String, JSONValue)] = [("code", .string(error.code.rawValue)), ("message", .string(error.message)),
                                             ("topic", .string(topic)), ("payloadExcerpt", excerpt)]
        if let suppressedCount { fields.append(("suppressedCount", .int(Int64(suppressedCount)))) }
        return fields
    }

    /// A native `location/raw` payload (what the simulator publishes).
    public static func rawFix(_ fix: RawFix) -> String {
        var fields: [(String, JSONValue)] = coordinateFields(fix.coordinate)
        fields.append(("timestamp", .string(ISO8601Timestamp.string(from: fix.timestamp))))
        if let s = fix.speedMetersPerSecond { fields.append(("speed", .number(s, digits: 2))) }
        if let c = fix.courseDegrees { fields.append(("course", .number(c, digits: 1))) }
        if let a = fix.altitudeMeters { fields.append(("altitude", .number(a, digits: 1))) }
        if let h = fix.horizontalAccuracyMeters { fields.append(("horizontalAccuracy", .number(h, digits: 1))) }
        return JSONValue.object(fields).text
    }
}

/// Adds the envelope every output carries and numbers the messages of one vehicle. Writes each payload straight
/// into bytes (`JSONByteWriter`, one reused buffer): the per-fix outputs (`location/snapped`, `nav/eta`,
/// `nav/speeding`) field by field, without building a `JSONValue` first; every other output from its `JSONValue`
/// body. Both give the same bytes as `JSONValue.object(envelope + body).text` (the tests compare them).
public struct OutputEnvelope: Sendable {
    public let vehicleID: String
    /// The last `seq` used; the next message gets `seq + 1`.
    public private(set) var seq: UInt64
    private var writer = JSONByteWriter(capacity: 512)
    /// The seconds of the envelope's and of `eta`'s timestamps (the two differ: the arrival is minutes ahead).
    private var envelopeSecond = ISO8601SecondCache()
    private var etaSecond = ISO8601SecondCache()

    public init(vehicleID: String, lastSeq: UInt64 = 0) {
        self.vehicleID = vehicleID
        self.seq = lastSeq
    }

    /// `{"vehicleId", "seq", "timestamp", …body…, "schemaVersion"}`.
    public mutating func wrap(_ topic: OutputTopic, timestamp: Date, _ body: [(String, JSONValue)]) -> OutboundMessage {
        begin(timestamp: timestamp)
        writer.fields(body)
        return finish(topic)
    }

    /// `location/snapped`, as `wrap(.snappedLocation, timestamp: e.timestamp, OutputPayloads.snappedLocation(e))`.
    public mutating func snappedLocation(_ e: SnappedLocationEvent) -> OutboundMessage {
        begin(timestamp: e.timestamp)
        writer.number("lat", e.coordinate.latitude, digits: 7)
        writer.number("lon", e.coordinate.longitude, digits: 7)
        writer.number("altitude", e.altitudeMeters, digits: 1)
        writer.number("course", e.courseDegrees, digits: 1)
        writer.number("speed", e.speedMetersPerSecond, digits: 2)
        writer.number("horizontalAccuracy", e.horizontalAccuracyMeters, digits: 1)
        writer.key("osmWayId")
        optionalInt(e.osmWayID)
        writer.key("roadName")
        writer.string(e.roadName)
        writer.key("onRoute")
        writer.bool(e.isOnRoute)
        return finish(.snappedLocation)
    }

    /// `nav/eta`, as `wrap(.eta, timestamp: timestamp, OutputPayloads.eta(…))`.
    public mutating func eta(remainingSeconds: Double, remainingMeters: Double, timestamp: Date, waypointIndex: Int)
        -> OutboundMessage
    {
        begin(timestamp: timestamp)
        writer.number("remainingSeconds", remainingSeconds, digits: 1)
        writer.number("remainingMeters", remainingMeters, digits: 1)
        writer.key("eta")
        writer.timestamp(timestamp.addingTimeInterval(remainingSeconds), cache: &etaSecond)
        writer.key("waypointIndex")
        writer.int(Int64(waypointIndex))
        return finish(.eta)
    }

    /// `nav/speeding`, as `wrap(.speeding, timestamp: e.timestamp, OutputPayloads.speeding(e))`.
    public mutating func speeding(_ e: SpeedingEvent) -> OutboundMessage {
        begin(timestamp: e.timestamp)
        writer.number("percentageAboveLimit", e.percentageAboveLimit, digits: 1)
        writer.key("severity")
        writer.string(e.severity.rawValue)
        writer.number("speedKph", e.speedKph, digits: 1)
        writer.number("speedLimitKph", e.speedLimitKph, digits: 1)
        writer.key("osmWayId")
        optionalInt(e.osmWayID)
        return finish(.speeding)
    }

    private mutating func begin(timestamp: Date) {
        seq += 1
        writer.reset()
        writer.beginObject()
        writer.key("vehicleId")
        writer.string(vehicleID)
        writer.key("seq")
        writer.int(Int64(seq))
        writer.key("timestamp")
        writer.timestamp(timestamp, cache: &envelopeSecond)
    }

    private mutating func finish(_ topic: OutputTopic) -> OutboundMessage {
        writer.key("schemaVersion")
        writer.int(OutputPayloads.schemaVersion)
        writer.endObject()
        // An exact-size copy: the writer keeps its buffer for the next payload, the outbox holds only the bytes.
        return OutboundMessage(topic: topic, payloadBytes: Array(writer.bytes[...]))
    }

    private mutating func optionalInt(_ value: Int64?) {
        if let value { writer.int(value) } else { writer.null() }
    }
}
