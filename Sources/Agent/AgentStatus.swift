import Foundation

/// The retained `agent/status` payload: online on every connect, offline as the Last Will and on
/// shutdown. See topics.md.
public struct AgentStatus: Sendable, Equatable {
    public enum State: String, Sendable { case online, offline }
    public enum OfflineReason: String, Sendable {
        /// SIGTERM or SIGINT: the agent said goodbye itself.
        case shutdown
        /// The Last Will: the broker lost the agent without a goodbye.
        case connectionLost
    }

    public var state: State
    public var reason: OfflineReason?
    public var vehicleID: String
    public var version: String
    /// The road graph file's name, or nil without a map.
    public var mapName: String?
    public var clientID: String
    public var timestamp: Date

    public static let schemaVersion = 1

    /// The JSON text, fields in the order topics.md lists them.
    public var json: String {
        var fields: [(String, String)] = [("state", JSONText.string(state.rawValue))]
        if let reason { fields.append(("reason", JSONText.string(reason.rawValue))) }
        fields += [
            ("vehicleId", JSONText.string(vehicleID)),
            ("version", JSONText.string(version)),
            ("map", mapName.map(JSONText.string) ?? "null"),
            ("clientId", JSONText.string(clientID)),
            ("timestamp", JSONText.string(ISO8601Timestamp.string(from: timestamp))),
            ("schemaVersion", String(Self.schemaVersion)),
        ]
        return "{" + fields.map { JSONText.string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
