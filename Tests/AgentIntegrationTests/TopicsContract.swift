import Foundation
import TestKit

/// Holds what the agent really sent through the broker to `topics.md`, the public contract: every output has the
/// envelope, and its body has exactly the fields of the documented example, with the documented kinds, nested
/// objects and list elements included. A field added to an encoder but not to `topics.md` (or the reverse) fails.
enum TopicsContract {
    /// The outputs `topics.md` documents with an example. Inputs seen on the same wildcard are not checked here.
    static let outputTopics: Set<String> = ["nav/route", "nav/arrival", "nav/eta", "nav/delay", "nav/lighting", "nav/speeding",
                                            "location/snapped", "nav/state", "agent/error", "agent/metrics", "agent/status"]
    static let envelopeKeys = ["vehicleId", "seq", "timestamp", "schemaVersion"]

    static let document: Result<TopicsDocument, TestBrokerError> = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        return Result { try TopicsDocument.load(repositoryRoot: root) }.mapError { TestBrokerError("topics.md: \($0)") }
    }()

    /// `topic: problem` for every way the messages of `vehicle` depart from the contract; empty when they keep it.
    /// `checked` gets the output topics that had at least one message with a payload.
    static func violations(in messages: [TestSubscriber.Message], vehicle: String, checked: inout Set<String>) throws -> [String] {
        let examples = try document.get().examples
        var problems: [String] = []
        let prefix = "fleet/\(vehicle)/"
        for message in messages where message.topic.hasPrefix(prefix) && !message.payload.isEmpty {
            let topic = String(message.topic.dropFirst(prefix.count))
            guard outputTopics.contains(topic) else { continue }
            checked.insert(topic)
            guard let documented = examples[topic], !documented.isEmpty else {
                problems.append("\(topic): no JSON example in topics.md")
                continue
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any] else {
                problems.append("\(topic): not a JSON object: \(message.payload.prefix(120))")
                continue
            }
            problems += envelopeProblems(object, topic: topic, vehicle: vehicle).map { "\(topic): \($0)" }
            var body = object
            if topic != "agent/status" {  // its examples show the whole message, the others the body only
                for key in envelopeKeys { body[key] = nil }
            }
            if topic == "agent/error" { body["suppressedCount"] = nil }  // "the field appears only on summaries"
            let shape = JSONShape(body)
            // Several examples (agent/status online and offline): the message must fit one of them.
            let fits = documented.map { JSONShape.object($0).mismatches(shape) }
            if !fits.contains(where: \.isEmpty), let nearest = fits.min(by: { $0.count < $1.count }) {
                problems += nearest.map { "\(topic): \($0)" }
            }
        }
        var seen = Set<String>()
        return problems.filter { seen.insert($0).inserted }
    }

    static func envelopeProblems(_ object: [String: Any], topic: String, vehicle: String) -> [String] {
        var problems: [String] = []
        if object["vehicleId"] as? String != vehicle { problems.append("vehicleId is not \(vehicle)") }
        if object["schemaVersion"] as? Int != 1 { problems.append("schemaVersion is not 1") }
        if let timestamp = object["timestamp"] as? String {
            // ISO 8601 UTC with milliseconds, as the issue and topics.md say.
            if timestamp.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) == nil {
                problems.append("timestamp \(timestamp) is not ISO 8601 UTC with milliseconds")
            }
        } else {
            problems.append("no timestamp")
        }
        if topic != "agent/status", !(object["seq"] is Int) { problems.append("no integer seq") }
        return problems
    }
}
