import Foundation
import Geo
import Navigation
import RoadGraph

/// A rejected input, published on `agent/error`. `code` is stable (topics.md lists every code); `message` is for
/// people and may change.
public struct AgentInputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Code
    public var message: String

    /// The stable codes of `agent/error`.
    public enum Code: String, Sendable, CaseIterable {
        /// The payload exceeds `InputLimits.maximumPayloadBytes`.
        case payloadTooLarge
        /// Not UTF-8 JSON, or not a JSON object.
        case invalidJSON
        /// A required field is absent.
        case missingField
        /// A field has the wrong type or an unknown enumeration value.
        case invalidField
        /// A number is outside its range (latitude outside ±90, NaN, infinite, negative speed…).
        case outOfRange
        /// A string or list exceeds its bound.
        case tooLong
        /// A `location/raw` payload in none of the known formats (native, OwnTracks, gpsd TPV).
        case unknownLocationFormat
        /// A gpsd TPV without a 2D or 3D fix (`mode` < 2).
        case noFix
        /// A fix older than `InputLimits.maximumFixAgeSeconds`.
        case staleFix
        /// A fix more than `InputLimits.maximumFixLeadSeconds` in the future.
        case futureFix
        /// A fix older than the last accepted one.
        case outOfOrderFix
        /// A fix with the same timestamp as the last accepted one.
        case duplicateFix
        /// A command the agent does not know.
        case unknownCommand
        /// A message on a topic the agent does not read.
        case unknownTopic
        /// The agent runs without a map and cannot navigate.
        case noMap
        /// The journal in the state directory could not be read; it was moved aside.
        case corruptState
        /// A fault of the agent itself (a bug or an unwritable disk).
        case internalError
        /// Not about an input: the outbox was full (a long outage) and dropped older retained state messages; the
        /// message says how many per topic. Events are never shed.
        case outboxShed
        /// An assignment, command or fleet-wide input refused because the agent's inbox for it was full
        /// (`InboxLimits`); the message says how many since the last report. Raw fixes are coalesced instead.
        case inboxFull
        /// Not about an input: the vehicle's trip journal (assignment, arrivals announced, options) could not be
        /// written to the state directory (full, read-only, I/O error). Navigation goes on from memory, but a
        /// restart before the journal is written again could repeat or miss an arrival. Reported when writing
        /// starts to fail, not again until it has succeeded once.
        case stateWriteFailed
    }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// Bounds on what the agent accepts. Defaults documented per field.
public struct InputLimits: Sendable, Hashable {
    /// Larger payloads are refused unread. Default 64 KiB.
    public var maximumPayloadBytes = 64 * 1024
    /// Titles, ids and other strings. Default 256 characters.
    public var maximumStringLength = 256
    /// Waypoints per assignment the codec reads (the navigator itself refuses more than 25 with `waypointError`,
    /// as the SDK does). Default 1000.
    public var maximumWaypointsRead = 1000
    /// Traffic segments per message. Default 10,000.
    public var maximumTrafficSegments = 10_000
    /// Fixes older than this (against the agent's clock) are stale. Default 300 s.
    public var maximumFixAgeSeconds: Double = 300
    /// Fixes further ahead than this are future-dated (clock skew allowance). Default 5 s.
    public var maximumFixLeadSeconds: Double = 5
    public init() {}
}

// MARK: - A tiny strict reader over FlatJSONObject's or JSONSerialization's output

/// Field access with typed errors. JSON numbers, strings, booleans and objects are told apart strictly
/// (a boolean is not a number here, a numeric string is not a number).
struct PayloadObject {
    /// A flat payload read in place (every raw fix), or anything else as `JSONSerialization` reads it.
    private enum Storage {
        case flat(FlatJSONObject)
        case tree([String: Any])
    }

    /// One field as the accessors see it, whichever reader produced it.
    private enum Field {
        case absent
        case bool(Bool)
        case number(Double)
        /// A string of a flat payload, still bytes.
        case flatString(Range<Int>)
        case string(String)
        case array([Any])
        case object([String: Any])
        case other
    }

    private let storage: Storage
    /// Field path prefix for messages, e.g. `waypoints[2].`.
    let path: String
    let limits: InputLimits

    private init(_ storage: Storage, path: String, limits: InputLimits) {
        self.storage = storage
        self.path = path
        self.limits = limits
    }

    /// `scanning: false` skips the in-place reader (the differential tests compare both ways).
    static func parse(_ payload: [UInt8], limits: InputLimits, scanning: Bool = true) throws(AgentInputError)
        -> PayloadObject
    {
        guard payload.count <= limits.maximumPayloadBytes else {
            throw AgentInputError(.payloadTooLarge, "payload of \(payload.count) bytes exceeds \(limits.maximumPayloadBytes)")
        }
        if scanning, let flat = FlatJSONObject.parse(payload) { return PayloadObject(.flat(flat), path: "", limits: limits) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(payload), options: [])
        } catch {
            throw AgentInputError(.invalidJSON, "not valid JSON")
        }
        guard let fields = object as? [String: Any] else { throw AgentInputError(.invalidJSON, "not a JSON object") }
        return PayloadObject(.tree(fields), path: "", limits: limits)
    }

    private func field(_ key: String) -> Field {
        switch storage {
        case .flat(let flat):
            switch flat.value(key) {
            case nil, .null?: return .absent
            case .bool(let value)?: return .bool(value)
            case .number(let value)?: return .number(value)
            case .string(let range)?: return .flatString(range)
            }
        case .tree(let fields):
            guard let value = fields[key], !(value is NSNull) else { return .absent }
            if let number = value as? NSNumber {
                return Self.isBoolean(number) ? .bool(number.boolValue) : .number(number.doubleValue)
            }
            if let text = value as? String { return .string(text) }
            if let list = value as? [Any] { return .array(list) }
            if let object = value as? [String: Any] { return .object(object) }
            return .other
        }
    }

    func has(_ key: String) -> Bool {
        if case .absent = field(key) { return false }
        return true
    }

    /// The field's text when it is a string, nil otherwise (no type error: for telling formats apart).
    func text(_ key: String) -> String? {
        switch field(key) {
        case .string(let text): return text
        case .flatString(let range): if case .flat(let flat) = storage { return flat.text(range) }
        default: break
        }
        return nil
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        // JSONSerialization gives true/false as NSNumber of ObjC type "c" (char); numbers are "i", "q" or "d".
        // Compared in place: this runs for every numeric field, and a String per call was measurable.
        let type = number.objCType
        return type[0] == CChar(UInt8(ascii: "c")) && type[1] == 0
    }

    func double(_ key: String) throws(AgentInputError) -> Double? {
        switch field(key) {
        case .absent: return nil
        case .number(let double):
            guard double.isFinite else { throw AgentInputError(.outOfRange, "\(path)\(key) must be finite") }
            return double
        default: throw AgentInputError(.invalidField, "\(path)\(key) must be a number")
        }
    }

    func requiredDouble(_ key: String) throws(AgentInputError) -> Double {
        guard let value = try double(key) else { throw AgentInputError(.missingField, "\(path)\(key) is required") }
        return value
    }

    func double(_ key: String, in range: ClosedRange<Double>) throws(AgentInputError) -> Double? {
        guard let value = try double(key) else { return nil }
        guard range.contains(value) else {
            throw AgentInputError(.outOfRange, "\(path)\(key) \(value) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    func int(_ key: String) throws(AgentInputError) -> Int? {
        guard let value = try double(key) else { return nil }
        guard value == value.rounded(), abs(value) < 1e15 else {
            throw AgentInputError(.invalidField, "\(path)\(key) must be an integer")
        }
        return Int(value)
    }

    func bool(_ key: String) throws(AgentInputError) -> Bool? {
        switch field(key) {
        case .absent: return nil
        case .bool(let value): return value
        default: throw AgentInputError(.invalidField, "\(path)\(key) must be true or false")
        }
    }

    func string(_ key: String) throws(AgentInputError) -> String? {
        let text: String
        switch field(key) {
        case .absent: return nil
        case .string(let value): text = value
        case .flatString(let range):
            guard case .flat(let flat) = storage else { return nil }
            text = flat.text(range)
        default: throw AgentInputError(.invalidField, "\(path)\(key) must be a string")
        }
        guard text.count <= limits.maximumStringLength else {
            throw AgentInputError(.tooLong, "\(path)\(key) is longer than \(limits.maximumStringLength) characters")
        }
        return text
    }

    func requiredString(_ key: String) throws(AgentInputError) -> String {
        guard let value = try string(key) else { throw AgentInputError(.missingField, "\(path)\(key) is required") }
        return value
    }

    func objects(_ key: String, maximum: Int) throws(AgentInputError) -> [PayloadObject]? {
        let list: [Any]
        switch field(key) {
        case .absent: return nil
        case .array(let value): list = value
        default: throw AgentInputError(.invalidField, "\(path)\(key) must be an array")
        }
        guard list.count <= maximum else {
            throw AgentInputError(.tooLong, "\(path)\(key) has \(list.count) entries, at most \(maximum) are read")
        }
        var out: [PayloadObject] = []
        for (i, element) in list.enumerated() {
            guard let object = element as? [String: Any] else {
                throw AgentInputError(.invalidField, "\(path)\(key)[\(i)] must be an object")
            }
            out.append(PayloadObject(.tree(object), path: "\(path)\(key)[\(i)].", limits: limits))
        }
        return out
    }

    func object(_ key: String) throws(AgentInputError) -> PayloadObject? {
        switch field(key) {
        case .absent: return nil
        case .object(let object): return PayloadObject(.tree(object), path: "\(path)\(key).", limits: limits)
        default: throw AgentInputError(.invalidField, "\(path)\(key) must be an object")
        }
    }

    /// ISO 8601 text or seconds since 1970, as a number or a numeric string, read as `FixTimestamp` reads them.
    func timestamp(_ key: String) throws(AgentInputError) -> Date? {
        let parsed: Date?
        switch field(key) {
        case .string(let text): parsed = ISO8601Timestamp.date(from: text)
        case .flatString(let range):
            guard case .flat(let flat) = storage else { return nil }
            // Parsed from the payload's bytes: no String for the common case.
            parsed = flat.withBytes(range) { ISO8601Timestamp.date(utf8: $0) }
        default:
            guard let number = try double(key) else { return nil }
            return try Self.epochDate(number, field: "\(path)\(key)")
        }
        guard let parsed else {
            let text = self.text(key) ?? ""
            if let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite {
                return try Self.epochDate(number, field: "\(path)\(key)")
            }
            throw AgentInputError(.invalidField, "\(path)\(key) '\(text.prefix(40))' is neither an ISO 8601 timestamp "
                                  + "nor seconds since 1970")
        }
        return parsed
    }

    private static func epochDate(_ number: Double, field: String) throws(AgentInputError) -> Date {
        let seconds = FixTimestamp.seconds(epoch: number)
        guard seconds >= 0, seconds < 32_503_680_000 else {
            throw AgentInputError(.outOfRange, "\(field) \(number) is not seconds (or milliseconds) since 1970")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    func coordinate(latitude: String = "lat", longitude: String = "lon") throws(AgentInputError) -> Coordinate {
        let lat = try requiredDouble(latitude), lon = try requiredDouble(longitude)
        guard (-90...90).contains(lat) else { throw AgentInputError(.outOfRange, "\(path)\(latitude) \(lat) is outside ±90") }
        guard (-180...180).contains(lon) else {
            throw AgentInputError(.outOfRange, "\(path)\(longitude) \(lon) is outside ±180")
        }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

// MARK: - nav/destinations

/// One waypoint of an assignment: by coordinate or by place id.
public struct AssignmentWaypoint: Sendable, Hashable, Codable {
    public var latitude: Double?
    public var longitude: Double?
    public var placeID: String?
    public var title: String
    public var preferSameSideOfRoad: Bool
    /// Degrees 0…360; nil = unset.
    public var preferredHeadingDegrees: Double?

    public init(latitude: Double? = nil, longitude: Double? = nil, placeID: String? = nil, title: String = "",
                preferSameSideOfRoad: Bool = false, preferredHeadingDegrees: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.placeID = placeID
        self.title = title
        self.preferSameSideOfRoad = preferSameSideOfRoad
        self.preferredHeadingDegrees = preferredHeadingDegrees
    }

    public var navigationWaypoint: NavigationWaypoint {
        if let placeID {
            return NavigationWaypoint(placeID: placeID, title: title, preferSameSideOfRoad: preferSameSideOfRoad,
                                      preferredHeadingDegrees: preferredHeadingDegrees)
        }
        return NavigationWaypoint(coordinate: Coordinate(latitude: latitude ?? .nan, longitude: longitude ?? .nan),
                                  title: title, preferSameSideOfRoad: preferSameSideOfRoad,
                                  preferredHeadingDegrees: preferredHeadingDegrees)
    }
}

/// A `nav/destinations` payload: the trip dispatch assigned.
public struct Assignment: Sendable, Hashable, Codable {
    public var assignmentID: String
    public var waypoints: [AssignmentWaypoint]
    public var travelMode: TravelMode
    public var avoidHighways: Bool
    public var avoidTolls: Bool
    /// Default true, as the SDK's `avoidsFerries`.
    public var avoidFerries: Bool
    public var startGuidance: Bool
    /// Continue to the next destination automatically after an arrival. Default true.
    public var autoContinue: Bool

    public init(assignmentID: String, waypoints: [AssignmentWaypoint], travelMode: TravelMode = .driving,
                avoidHighways: Bool = false, avoidTolls: Bool = false, avoidFerries: Bool = true,
                startGuidance: Bool = true, autoContinue: Bool = true) {
        self.assignmentID = assignmentID
        self.waypoints = waypoints
        self.travelMode = travelMode
        self.avoidHighways = avoidHighways
        self.avoidTolls = avoidTolls
        self.avoidFerries = avoidFerries
        self.startGuidance = startGuidance
        self.autoContinue = autoContinue
    }
}

public enum DestinationsPayload {
    /// nil for an empty payload (dispatch cleared its retained assignment).
    public static func decode(_ payload: [UInt8], limits: InputLimits = InputLimits()) throws(AgentInputError)
        -> Assignment?
    {
        try decode(payload, limits: limits, scanning: true)
    }

    /// `scanning: false`: without the in-place reader of flat payloads (the differential tests compare both).
    static func decode(_ payload: [UInt8], limits: InputLimits, scanning: Bool) throws(AgentInputError)
        -> Assignment?
    {
        if payload.isEmpty { return nil }
        let object = try PayloadObject.parse(payload, limits: limits, scanning: scanning)
        let id = try object.requiredString("assignmentId")
        guard !id.isEmpty else { throw AgentInputError(.invalidField, "assignmentId must not be empty") }
        guard let list = try object.objects("waypoints", maximum: limits.maximumWaypointsRead) else {
            throw AgentInputError(.missingField, "waypoints is required")
        }
        var waypoints: [AssignmentWaypoint] = []
        for w in list {
            var waypoint = AssignmentWaypoint(title: try w.string("title") ?? "")
            if let place = try w.string("placeId") {
                guard !w.has("lat"), !w.has("lon") else {
                    throw AgentInputError(.invalidField, "\(w.path)placeId excludes lat and lon")
                }
                waypoint.placeID = place
            } else {
                // Out-of-range coordinates are refused here; an unreachable one becomes a route status.
                let c = try w.coordinate()
                waypoint.latitude = c.latitude
                waypoint.longitude = c.longitude
            }
            waypoint.preferSameSideOfRoad = try w.bool("preferSameSideOfRoad") ?? false
            if let heading = try w.double("preferredHeading"), heading != -1 {
                guard (0...360).contains(heading) else {
                    throw AgentInputError(.outOfRange, "\(w.path)preferredHeading \(heading) is outside 0…360 (or -1 unset)")
                }
                waypoint.preferredHeadingDegrees = heading
            }
            waypoints.append(waypoint)
        }
        var assignment = Assignment(assignmentID: id, waypoints: waypoints)
        if let mode = try object.string("travelMode") {
            guard let travelMode = TravelMode(rawValue: mode) else {
                throw AgentInputError(
                    .invalidField, "travelMode '\(mode)' is not one of driving, cycling, walking, taxi, twoWheeler")
            }
            assignment.travelMode = travelMode
        }
        assignment.avoidHighways = try object.bool("avoidHighways") ?? false
        assignment.avoidTolls = try object.bool("avoidTolls") ?? false
        assignment.avoidFerries = try object.bool("avoidFerries") ?? true
        assignment.startGuidance = try object.bool("startGuidance") ?? true
        assignment.autoContinue = try object.bool("autoContinue") ?? true
        return assignment
    }
}

// MARK: - location/raw

/// Which format a `location/raw` payload was in.
public enum LocationFormat: String, Sendable {
    case native, ownTracks, gpsd
}

public enum LocationPayload {
    /// Tells the three formats apart: OwnTracks has `_type: "location"`, gpsd has `class: "TPV"`, native has `lat`,
    /// `lon` and `timestamp`. Range checks here; freshness and order are the session's (they need its clock and
    /// history).
    public static func decode(_ payload: [UInt8], limits: InputLimits = InputLimits()) throws(AgentInputError)
        -> (fix: RawFix, format: LocationFormat)
    {
        try decode(payload, limits: limits, scanning: true)
    }

    /// `scanning: false`: without the in-place reader of flat payloads (the differential tests compare both).
    static func decode(_ payload: [UInt8], limits: InputLimits, scanning: Bool) throws(AgentInputError)
        -> (fix: RawFix, format: LocationFormat)
    {
        let object = try PayloadObject.parse(payload, limits: limits, scanning: scanning)
        if let type = object.text("_type") {
            guard type == "location" else {
                throw AgentInputError(.unknownLocationFormat, "OwnTracks _type '\(type.prefix(40))' is not a location")
            }
            return (try ownTracks(object), .ownTracks)
        }
        if let kind = object.text("class") {
            guard kind == "TPV" else {
                throw AgentInputError(.unknownLocationFormat, "gpsd class '\(kind.prefix(40))' is not TPV")
            }
            return (try gpsd(object), .gpsd)
        }
        guard object.has("lat") || object.has("lon") else {
            throw AgentInputError(
                .unknownLocationFormat,
                "expected a native fix {lat, lon, timestamp}, OwnTracks {_type: location} or gpsd {class: TPV}")
        }
        return (try native(object), .native)
    }

    static func native(_ o: PayloadObject) throws(AgentInputError) -> RawFix {
        let coordinate = try o.coordinate()
        guard let time = try o.timestamp("timestamp") else { throw AgentInputError(.missingField, "timestamp is required") }
        return RawFix(
            coordinate: coordinate, timestamp: time,
            horizontalAccuracyMeters: try unknownIfNegative(o, "horizontalAccuracy", max: 100_000),
            altitudeMeters: try o.double("altitude", in: -1000...100_000),
            courseDegrees: try unknownIfNegative(o, "course", max: 360),
            speedMetersPerSecond: try unknownIfNegative(o, "speed", max: 200))
    }

    static func ownTracks(_ o: PayloadObject) throws(AgentInputError) -> RawFix {
        let coordinate = try o.coordinate()
        guard let time = try o.timestamp("tst") else { throw AgentInputError(.missingField, "tst is required") }
        let kph = try unknownIfNegative(o, "vel", max: 720)
        return RawFix(
            coordinate: coordinate, timestamp: time,
            horizontalAccuracyMeters: try unknownIfNegative(o, "acc", max: 100_000),
            altitudeMeters: try o.double("alt", in: -1000...100_000),
            courseDegrees: try unknownIfNegative(o, "cog", max: 360),
            speedMetersPerSecond: kph.map { $0 / 3.6 })
    }

    static func gpsd(_ o: PayloadObject) throws(AgentInputError) -> RawFix {
        guard let mode = try o.int("mode") else { throw AgentInputError(.missingField, "mode is required") }
        guard mode >= 2 else { throw AgentInputError(.noFix, "gpsd mode \(mode): no 2D/3D fix") }
        let coordinate = try o.coordinate()
        guard let time = try o.timestamp("time") else { throw AgentInputError(.missingField, "time is required") }
        var altitude = try o.double("altHAE", in: -1000...100_000)
        if altitude == nil { altitude = try o.double("alt", in: -1000...100_000) }
        return RawFix(
            coordinate: coordinate, timestamp: time,
            horizontalAccuracyMeters: try unknownIfNegative(o, "eph", max: 100_000),
            altitudeMeters: altitude,
            courseDegrees: try unknownIfNegative(o, "track", max: 360),
            speedMetersPerSecond: try unknownIfNegative(o, "speed", max: 200))
    }

    /// Negative means unknown (as `CLLocation` and the SDK encode it).
    private static func unknownIfNegative(_ o: PayloadObject, _ key: String, max: Double) throws(AgentInputError) -> Double? {
        guard let value = try o.double(key) else { return nil }
        if value < 0 { return nil }
        guard value <= max else { throw AgentInputError(.outOfRange, "\(key) \(value) exceeds \(max)") }
        return value
    }
}

// MARK: - nav/command

/// The options `setOptions` may change; nil fields keep their value.
public struct NavigatorOptionsUpdate: Sendable, Hashable {
    public var timeUpdateThresholdSeconds: Double?
    public var distanceUpdateThresholdMeters: Double?
    public var stopGuidanceAtArrival: Bool?
    public var speedAlertMinorPercent: Double?
    public var speedAlertMajorPercent: Double?
    public var severityUpgradeDurationSeconds: Double?
    public init() {}
}

/// Parameters of the `simulate` command.
public struct SimulationRequest: Sendable, Hashable, Codable {
    /// Default 1; must be above 0.
    public var speedMultiplier: Double = 1
    /// GPS noise σ, metres. Default 0 (exact positions).
    public var noiseMeters: Double = 0
    /// Wall-clock seconds between fixes. Default 1.
    public var fixIntervalSeconds: Double = 1
    public init(speedMultiplier: Double = 1, noiseMeters: Double = 0, fixIntervalSeconds: Double = 1) {
        self.speedMultiplier = speedMultiplier
        self.noiseMeters = noiseMeters
        self.fixIntervalSeconds = fixIntervalSeconds
    }
}

public enum AgentCommand: Sendable, Hashable {
    case continueToNextDestination
    case clearDestinations
    case startGuidance
    case stopGuidance
    case simulate(SimulationRequest)
    case pauseSimulation
    case resumeSimulation
    case stopSimulation
    case setOptions(NavigatorOptionsUpdate)

    public var name: String {
        switch self {
        case .continueToNextDestination: "continueToNextDestination"
        case .clearDestinations: "clearDestinations"
        case .startGuidance: "startGuidance"
        case .stopGuidance: "stopGuidance"
        case .simulate: "simulate"
        case .pauseSimulation: "pauseSimulation"
        case .resumeSimulation: "resumeSimulation"
        case .stopSimulation: "stopSimulation"
        case .setOptions: "setOptions"
        }
    }
}

public enum CommandPayload {
    public static func decode(_ payload: [UInt8], limits: InputLimits = InputLimits()) throws(AgentInputError)
        -> (command: AgentCommand, requestID: String?)
    {
        try decode(payload, limits: limits, scanning: true)
    }

    /// `scanning: false`: without the in-place reader of flat payloads (the differential tests compare both).
    static func decode(_ payload: [UInt8], limits: InputLimits, scanning: Bool) throws(AgentInputError)
        -> (command: AgentCommand, requestID: String?)
    {
        let o = try PayloadObject.parse(payload, limits: limits, scanning: scanning)
        let name = try o.requiredString("command")
        let requestID = try o.string("requestId")
        let command: AgentCommand
        switch name {
        case "continueToNextDestination": command = .continueToNextDestination
        case "clearDestinations": command = .clearDestinations
        case "startGuidance": command = .startGuidance
        case "stopGuidance": command = .stopGuidance
        case "pauseSimulation": command = .pauseSimulation
        case "resumeSimulation": command = .resumeSimulation
        case "stopSimulation": command = .stopSimulation
        case "simulate":
            var request = SimulationRequest()
            if let m = try o.double("speedMultiplier") {
                guard m > 0, m <= 100 else { throw AgentInputError(.outOfRange, "speedMultiplier \(m) is outside (0, 100]") }
                request.speedMultiplier = m
            }
            request.noiseMeters = try o.double("noiseMeters", in: 0...100) ?? 0
            request.fixIntervalSeconds = try o.double("fixIntervalSeconds", in: 0.01...60) ?? 1
            command = .simulate(request)
        case "setOptions":
            var update = NavigatorOptionsUpdate()
            update.timeUpdateThresholdSeconds = try o.double("timeUpdateThresholdSeconds", in: 0...3600)
            update.distanceUpdateThresholdMeters = try o.double("distanceUpdateThresholdMeters", in: 0...100_000)
            update.stopGuidanceAtArrival = try o.bool("stopGuidanceAtArrival")
            if let alert = try o.object("speedAlert") {
                update.speedAlertMinorPercent = try alert.double("minorPercent", in: 0...500)
                update.speedAlertMajorPercent = try alert.double("majorPercent", in: 0...500)
                update.severityUpgradeDurationSeconds = try alert.double("severityUpgradeDurationSeconds", in: 0...86_400)
            }
            command = .setOptions(update)
        default:
            throw AgentInputError(.unknownCommand, "unknown command '\(name.prefix(60))'")
        }
        return (command, requestID)
    }
}

// MARK: - fleet traffic and places

public enum TrafficPayload {
    public static func decode(_ payload: [UInt8], limits: InputLimits = InputLimits()) throws(AgentInputError)
        -> [TrafficObservation]
    {
        try decode(payload, limits: limits, scanning: true)
    }

    /// `scanning: false`: without the in-place reader of flat payloads (the differential tests compare both).
    static func decode(_ payload: [UInt8], limits: InputLimits, scanning: Bool) throws(AgentInputError)
        -> [TrafficObservation]
    {
        let o = try PayloadObject.parse(payload, limits: limits, scanning: scanning)
        guard let segments = try o.objects("segments", maximum: limits.maximumTrafficSegments) else {
            throw AgentInputError(.missingField, "segments is required")
        }
        var out: [TrafficObservation] = []
        for s in segments {
            guard let way = try s.int("osmWayId") else { throw AgentInputError(.missingField, "\(s.path)osmWayId is required") }
            guard let speed = try s.double("speedKph", in: 0...300) else {
                throw AgentInputError(.missingField, "\(s.path)speedKph is required")
            }
            guard let at = try s.timestamp("observedAt") else {
                throw AgentInputError(.missingField, "\(s.path)observedAt is required")
            }
            out.append(TrafficObservation(osmWayID: Int64(way), speedKph: speed, observedAt: at))
        }
        return out
    }
}

/// A named place from `{prefix}/places/{placeId}` or the places file.
public struct Place: Sendable, Hashable, Codable {
    public var coordinate: Coordinate
    public var title: String
}

public enum PlacePayload {
    /// nil for an empty payload (the place was removed).
    public static func decode(_ payload: [UInt8], limits: InputLimits = InputLimits()) throws(AgentInputError)
        -> Place?
    {
        try decode(payload, limits: limits, scanning: true)
    }

    /// `scanning: false`: without the in-place reader of flat payloads (the differential tests compare both).
    static func decode(_ payload: [UInt8], limits: InputLimits, scanning: Bool) throws(AgentInputError)
        -> Place?
    {
        if payload.isEmpty { return nil }
        let o = try PayloadObject.parse(payload, limits: limits, scanning: scanning)
        return Place(coordinate: try o.coordinate(), title: try o.string("title") ?? "")
    }
}
