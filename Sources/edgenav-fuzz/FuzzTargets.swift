import Agent
import Foundation
import Geo
@testable import MQTT
import OSMImport
@testable import RoadGraph

/// One fuzz target: a name (the `scripts/fuzz` argument and corpus directory) and a function that must return
/// for every input without trapping. Thrown typed errors are the expected outcome for bad input; a trap,
/// an ASan report, a hang or unbounded memory is a finding.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable ([UInt8]) -> Void
}

/// The limits the agent runs with (topics.md: 64 KiB payloads, 25 waypoints).
private let limits = InputLimits()

enum FuzzTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "destinations", summary: "nav/destinations decoder (DestinationsPayload)") { bytes in
            _ = try? DestinationsPayload.decode(bytes, limits: limits)
        },
        FuzzTarget(name: "location", summary: "location/raw decoder, native / OwnTracks / gpsd (LocationPayload)") { bytes in
            _ = try? LocationPayload.decode(bytes, limits: limits)
        },
        FuzzTarget(name: "command", summary: "nav/command decoder (CommandPayload)") { bytes in
            _ = try? CommandPayload.decode(bytes, limits: limits)
        },
        FuzzTarget(name: "traffic", summary: "traffic decoder (TrafficPayload)") { bytes in
            _ = try? TrafficPayload.decode(bytes, limits: limits)
        },
        FuzzTarget(name: "places", summary: "places decoder (PlacePayload)") { bytes in
            _ = try? PlacePayload.decode(bytes, limits: limits)
        },
        FuzzTarget(name: "osm-values", summary: "OSM single-value parsers: maxspeed, access, duration") { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            _ = MaxspeedParser.parse(text)
            _ = TravelProfiles.accessValue(text)
            _ = TravelProfiles.parseDurationSeconds(text)
        },
        FuzzTarget(name: "osm-way", summary: "way classification (access/oneway/maxspeed/toll…) from k=v lines") { bytes in
            let tags = OSMTagLines.tags(bytes)
            let classification = TravelProfiles.classify(tags)
            if case .road(let way) = classification {
                for forward in [true, false] {
                    for country in [nil, "DE", "US", "GB"] as [String?] {
                        let speeds = way.resolvedSpeeds(forward: forward, country: country)
                        precondition(!speeds.motorKph.isNaN, "NaN motor speed")
                    }
                }
            }
            _ = TravelProfiles.passableModes(nodeTags: tags)
            _ = TravelProfiles.hasTrafficSignals(nodeTags: tags)
        },
        FuzzTarget(name: "osm-restriction", summary: "turn restriction relations from k=v and @kind ref role lines") { bytes in
            let (tags, members) = OSMTagLines.relation(bytes)
            _ = RestrictionParser.isRestriction(tags)
            _ = RestrictionParser.parse(id: 1, tags: tags, members: members)
        },
        FuzzTarget(name: "graph", summary: "graph image loader, checksum not verified, then every accessor") { bytes in
            GraphWalk.loadAndWalk(bytes)
        },
        FuzzTarget(name: "broker-url", summary: "BrokerURL(parsing:)") { bytes in
            _ = try? BrokerURL(parsing: String(decoding: bytes, as: UTF8.self))
        },
        FuzzTarget(name: "journal", summary: "outbox journal replay, raw bytes") { bytes in
            _ = OutboxJournal.replay(bytes)
        },
        FuzzTarget(name: "journal-fixed", summary: "outbox journal replay + Outbox open, record checksums fixed up") { bytes in
            OutboxOpen.openFixed(bytes)
        },
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Fuzz input formats for the tag parsers: one `key=value` per line; for relations also `@w 123 from` members.
enum OSMTagLines {
    static func tags(_ bytes: [UInt8]) -> OSMTags { relation(bytes).tags }

    static func relation(_ bytes: [UInt8]) -> (tags: OSMTags, members: [OSMMember]) {
        var tags = OSMTags()
        var members: [OSMMember] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("@") {
                let parts = line.dropFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, let kindCharacter = parts[0].first,
                      let kind = OSMMember.Kind(rawValue: kindCharacter), let ref = Int64(parts[1]) else { continue }
                members.append(OSMMember(kind: kind, ref: ref, role: parts.count > 2 ? String(parts[2]) : ""))
            } else if let equals = line.firstIndex(of: "=") {
                tags[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
        }
        return (tags, members)
    }
}

enum GraphWalk {
    static func loadAndWalk(_ bytes: [UInt8]) {
        guard let graph = try? RoadGraph(storage: GraphStorage(copying: bytes), verifyChecksum: false) else { return }
        // A graph that loads must be safe to use: the loader's structural checks are what stand between a
        // corrupt file and an out-of-bounds read at query time.
        let modes: [TravelMode] = [.driving, .walking]
        for node in 0..<min(graph.nodeCount, 64) {
            let id = NodeID(node)
            _ = graph.coordinate(of: id)
            for mode in modes { _ = graph.isPassable(node: id, mode: mode) }
            for e in graph.outgoingEdges(of: id) { _ = graph.target(of: e) }
            for e in graph.incomingEdges(of: id) { _ = graph.source(of: e) }
        }
        for edge in 0..<min(graph.edgeCount, 64) {
            let e = EdgeID(edge)
            _ = graph.source(of: e)
            _ = graph.lengthMeters(of: e)
            _ = graph.access(of: e)
            _ = graph.highwayClass(of: e)
            _ = graph.flags(of: e)
            _ = graph.speedLimitKph(of: e)
            _ = graph.osmWayID(of: e)
            _ = graph.name(of: e)
            _ = graph.ref(of: e)
            _ = graph.reverseEdge(of: e)
            _ = graph.geometry(of: e)
            for mode in modes {
                _ = graph.freeFlowSpeedKph(of: e, mode: mode)
                _ = graph.durationSeconds(of: e, mode: mode)
            }
            for next in graph.outgoingEdges(of: graph.target(of: e)) {
                for mode in modes { _ = graph.isTurnAllowed(from: e, to: next, mode: mode) }
            }
        }
        if graph.nodeCount > 0 {
            let probe = graph.coordinate(of: 0)
            _ = graph.nearestEdges(to: probe, mode: .driving, radiusMeters: 200, limit: 8)
        }
    }
}

/// Opens a real `Outbox` on a journal made from the input with every record's CRC recomputed, so the
/// fuzzer explores the record decoder and the replay (put/remove/sequence) logic behind the checksum.
enum OutboxOpen {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "edgenav-fuzz-outbox-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static func fixChecksums(_ input: [UInt8]) -> [UInt8] {
        var bytes = OutboxJournal.magic + input
        var offset = OutboxJournal.headerLength
        while offset + OutboxJournal.recordHeaderLength <= bytes.count {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
                | Int(bytes[offset + 3]) << 24
            let bodyStart = offset + OutboxJournal.recordHeaderLength
            guard length >= 9, bodyStart + length <= bytes.count else { break }
            let crc = CRC32.checksum(bytes[bodyStart..<(bodyStart + length)])
            for i in 0..<4 { bytes[offset + 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            offset = bodyStart + length
        }
        return bytes
    }

    static func openFixed(_ input: [UInt8]) {
        let journal = fixChecksums(input)
        let path = directory + "/outbox.journal"
        guard FileManager.default.createFile(atPath: path, contents: Data(journal)) else { return }
        guard let outbox = try? Outbox(directory: directory, configuration: OutboxConfiguration(maxMessages: 64, maxBytes: 1 << 16)) else {
            return
        }
        _ = outbox.snapshot()
        _ = try? outbox.append(topic: "t", payload: [1], retain: false, kind: .event)
        outbox.close()
    }
}
