import Foundation
import OSMImport
import RoadGraph

/// `edgenav map import` and `edgenav map info`.
enum MapCommand {
    static var command: Command {
        let importCommand = Command(
            name: "import",
            spec: CommandSpec(
                invocation: "edgenav map import",
                summary: "Build a road graph file from an OpenStreetMap extract (.osm.pbf or .osm XML).",
                discussion: """
                    Reads the extract with libosmium, keeps the ways each travel mode may use (driving, taxi,
                    two-wheeler, cycling, walking), applies turn restrictions, reads maxspeed in all its forms,
                    and writes a compact, checksummed graph file the agent memory-maps. Shows progress on a
                    terminal and prints a summary.
                    """,
                options: [
                    OptionSpec("output", short: "o", value: "FILE", environment: "", help: "graph file to write"),
                    OptionSpec("country", value: "CC", environment: "",
                               help: "ISO 3166-1 alpha-2 code of the extract's country, e.g. GB: default speed limits and the side traffic keeps to (default: guessed from where the extract lies)"),
                ],
                positionals: [PositionalSpec("IN", help: "the OSM extract")]),
            action: { arguments, context in
                guard let output = arguments.string("output") else {
                    throw ArgumentError.missingRequired(option: "output", environmentVariable: nil)
                }
                let input = arguments.positionals[0]
                let country = arguments.string("country")
                if let country, country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isLetter }) {
                    throw ArgumentError.invalidValue(option: "country", value: country, reason: "expected a two-letter country code such as GB")
                }
                do {
                    let summary = try GraphImporter.importFile(
                        input: URL(fileURLWithPath: input), output: URL(fileURLWithPath: output), country: country)
                    context.print(summary.description)
                    return ExitStatus.success
                } catch let error as OSMImportError {
                    throw CommandFailure(importing: input, error)
                }
            })
        let infoCommand = Command(
            name: "info",
            spec: CommandSpec(
                invocation: "edgenav map info", summary: "Describe a road graph file.",
                positionals: [PositionalSpec("GRAPH", help: "a file made by 'edgenav map import'")]),
            action: { arguments, context in
                let path = arguments.positionals[0]
                _ = try MapFile.load(path, importingExtracts: false)
                context.print(try GraphInfo.describe(URL(fileURLWithPath: path)))
                return ExitStatus.success
            })
        return Command(
            name: "map",
            spec: CommandSpec(
                invocation: "edgenav map <import|info>",
                summary: "Import OpenStreetMap data into a road graph, or describe a graph file.",
                discussion: "subcommands:\n  import    build a graph file from an OSM extract\n  info      describe a graph file"),
            subcommands: [importCommand, infoCommand])
    }
}
