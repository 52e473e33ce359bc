import Foundation
import Geo
import MQTT
@testable import RoadGraph

// Built two ways from the same sources:
// - by `scripts/fuzz` with `-sanitize=fuzzer,address -D EDGENAV_LIBFUZZER`: libFuzzer owns `main` and calls
//   `LLVMFuzzerTestOneInput`; the target is chosen by the EDGENAV_FUZZ_TARGET environment variable;
// - by a plain `swift build`: a replay driver that runs saved inputs (corpora, crash reproducers) through a
//   target without libFuzzer, and writes the generated seeds (`--write-seeds DIR`).

#if EDGENAV_LIBFUZZER
/// libFuzzer's documented entry for programs that keep their own `main` (SwiftPM renames an executable's
/// entry point and aliases `main` to it, so libFuzzer's own `main` is never linked).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

private let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["EDGENAV_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.named(name) else {
        FileHandle.standardError.write(Data(
            "EDGENAV_FUZZ_TARGET must be one of: \(FuzzTargets.all.map(\.name).joined(separator: " "))\n".utf8))
        exit(2)
    }
    return target
}()

@main
struct FuzzDriver {
    static func main() {
        _ = selectedTarget
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
            selectedTarget.run(bytes)
            return 0
        })
    }
}
#else
@main
struct FuzzReplay {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--list" {
            for target in FuzzTargets.all { print("\(target.name)\t\(target.summary)") }
            return
        }
        if arguments.first == "--write-seeds", arguments.count == 2 {
            do { try SeedWriter.write(into: arguments[1]) } catch {
                FileHandle.standardError.write(Data("seed writing failed: \(error)\n".utf8))
                exit(1)
            }
            return
        }
        guard arguments.count >= 2, let target = FuzzTargets.named(arguments.removeFirst()) else {
            FileHandle.standardError.write(Data("""
                usage: edgenav-fuzz TARGET FILE|DIR…   run saved inputs through TARGET (no libFuzzer)
                       edgenav-fuzz --list | --write-seeds DIR

                """.utf8))
            exit(2)
        }
        var count = 0
        for path in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(Array(data))
                count += 1
            }
        }
        print("\(target.name): \(count) inputs ran without a crash")
    }
}
#endif

/// Seeds that are binary and best made by the code that writes the real thing.
enum SeedWriter {
    static func write(into directory: String) throws {
        let graphDirectory = directory + "/graph"
        let journalDirectory = directory + "/journal"
        let fixedDirectory = directory + "/journal-fixed"
        for d in [graphDirectory, journalDirectory, fixedDirectory] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        }
        // A 4-node graph: a two-way street with a shaped edge, a one-way, a turn restriction.
        var builder = RoadGraphBuilder()
        let a = builder.addNode(Coordinate(latitude: 47.10, longitude: 9.50))
        let b = builder.addNode(Coordinate(latitude: 47.101, longitude: 9.50))
        let c = builder.addNode(Coordinate(latitude: 47.101, longitude: 9.501))
        let d = builder.addNode(Coordinate(latitude: 47.10, longitude: 9.501), passableBy: [.walking])
        let ab = builder.addEdge(from: a, to: b, attributes: EdgeAttributes(speedLimitKph: 50, osmWayID: 1, name: "Main"))
        _ = builder.addEdge(from: b, to: a, attributes: EdgeAttributes(speedLimitKph: 50, osmWayID: 1, name: "Main"))
        let bc = builder.addEdge(from: b, to: c, shape: [Coordinate(latitude: 47.1012, longitude: 9.5005)],
                                 attributes: EdgeAttributes(osmWayID: 2, name: "Side", ref: "B1"))
        _ = builder.addEdge(from: c, to: d, attributes: EdgeAttributes(osmWayID: 3))
        builder.addTurnRestriction(TurnRestriction(from: ab, via: b, to: bc, kind: .no))
        let graph = try builder.build()
        let graphURL = URL(fileURLWithPath: graphDirectory + "/four-nodes.graph")
        try graph.write(to: graphURL)

        // A journal with puts (state and event) and a remove, as the outbox writes it.
        let outboxDirectory = NSTemporaryDirectory() + "edgenav-fuzz-seed-\(getpid())"
        try? FileManager.default.removeItem(atPath: outboxDirectory)
        do {
            let outbox = try Outbox(directory: outboxDirectory)
            let first = try outbox.append(topic: "edgenav/v1/car-1/nav/position", payload: Array(#"{"seq":1}"#.utf8),
                                          retain: true, kind: .state)
            _ = try outbox.append(topic: "edgenav/v1/car-1/nav/arrival", payload: Array(#"{"seq":2}"#.utf8),
                                  retain: false, kind: .event)
            outbox.acknowledge(first)
            outbox.close()
        }
        let journal = try Data(contentsOf: URL(fileURLWithPath: outboxDirectory + "/outbox.journal"))
        try journal.write(to: URL(fileURLWithPath: journalDirectory + "/two-puts-one-remove.bin"))
        try journal.dropFirst(8).write(to: URL(fileURLWithPath: fixedDirectory + "/two-puts-one-remove.bin"))
        try? FileManager.default.removeItem(atPath: outboxDirectory)
        print("seeds written to \(directory)")
    }
}
