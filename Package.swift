// swift-tools-version:6.0
//
// EdgeNav: a headless, MQTT-connected navigation agent.
// Target dependencies point one way: Geo → RoadGraph → Routing → … → Agent → edgenav.
// Ingest (OSMImport, the only target that links libosmium) is kept apart from query.
import PackageDescription

let package = Package(
    name: "EdgeNav",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "edgenav", targets: ["edgenav"])
    ],
    targets: [
        // MARK: Geometry and road data
        .target(name: "Geo"),
        // One seeded generator for simulators, randomized tests and benchmark workloads.
        .target(name: "SeededRandom"),
        .target(name: "RoadGraph", dependencies: ["Geo"]),

        // MARK: Ingest (libosmium lives behind one C++ shim)
        .target(
            name: "COsmiumShim",
            linkerSettings: [
                .linkedLibrary("z"), .linkedLibrary("bz2"), .linkedLibrary("expat"),
                .linkedLibrary("pthread"), .linkedLibrary("stdc++"),
            ]
        ),
        .target(name: "OSMImport", dependencies: ["RoadGraph", "COsmiumShim"]),

        // MARK: Query
        .target(name: "Routing", dependencies: ["RoadGraph", "SeededRandom"]),
        .target(name: "MapMatching", dependencies: ["Geo", "RoadGraph", "Routing"]),
        // Drives routes and makes noisy GPS traces with ground truth (tests, benchmarks, the location simulator).
        .target(name: "TraceSimulation", dependencies: ["Geo", "RoadGraph", "Routing", "MapMatching", "SeededRandom"]),
        .target(name: "Navigation", dependencies: ["Geo", "RoadGraph", "Routing", "MapMatching", "TraceSimulation"]),

        // MARK: Transport (libmosquitto lives behind CMosquitto and MQTT)
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .target(name: "MQTT", dependencies: ["CMosquitto"]),

        // MARK: The agent and the executable
        .target(name: "Agent", dependencies: ["MQTT", "Geo", "RoadGraph", "Routing", "MapMatching", "Navigation"]),
        .target(name: "EdgeNavCLI", dependencies: ["Agent", "OSMImport", "Routing", "RoadGraph", "Geo", "MapMatching", "Navigation"]),
        .executableTarget(name: "edgenav", dependencies: ["EdgeNavCLI"]),
        // Accuracy and speed of MapMatching on simulated drives (scripts/bench-matching runs it in release).
        .executableTarget(name: "MatchingBenchmark",
                          dependencies: ["MapMatching", "TraceSimulation", "Routing", "RoadGraph", "OSMImport"],
                          path: "Benchmarks/matching/Sources/MatchingBenchmark"),

        // Accuracy and per-fix cost of the navigator on simulated drives (release build).
        .executableTarget(name: "NavigationBenchmark",
                          dependencies: ["Navigation", "MapMatching", "TraceSimulation", "Routing", "RoadGraph", "OSMImport"],
                          path: "Benchmarks/navigation/Sources/NavigationBenchmark"),

        // MARK: Benchmarks (release builds, driven by scripts/bench-*)
        .executableTarget(
            name: "bench-routing", dependencies: ["Routing", "OSMImport", "RoadGraph", "SeededRandom"], path: "Benchmarks/Routing",
            exclude: ["reference.py", "compare.py", "report.py"]
        ),

        // MARK: Fuzzing (scripts/fuzz builds it with libFuzzer; a plain build is the replay driver)
        .executableTarget(name: "edgenav-fuzz", dependencies: ["Agent", "MQTT", "OSMImport", "RoadGraph", "Geo"],
                          path: "Sources/edgenav-fuzz"),

        // MARK: Test support: a real mosquitto launcher, ASCII-art maps
        .target(name: "TestKit", dependencies: ["Geo", "SeededRandom"]),

        // MARK: Tests (mirroring Sources/)
        .testTarget(name: "GeoTests", dependencies: ["Geo", "TestKit"]),
        .testTarget(name: "SeededRandomTests", dependencies: ["SeededRandom"]),
        .testTarget(name: "RoadGraphTests", dependencies: ["RoadGraph", "TestKit"]),
        .testTarget(name: "OSMImportTests", dependencies: ["OSMImport", "RoadGraph", "TestKit"]),
        .testTarget(name: "RoutingTests", dependencies: ["Routing", "RoadGraph", "OSMImport", "TestKit"]),
        .testTarget(name: "MapMatchingTests",
                    dependencies: ["MapMatching", "TraceSimulation", "Routing", "RoadGraph", "OSMImport", "TestKit"]),
        .testTarget(name: "NavigationTests",
                    dependencies: ["Navigation", "MapMatching", "TraceSimulation", "Routing", "RoadGraph", "OSMImport", "TestKit"]),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "TestKit"]),
        .testTarget(name: "AgentTests", dependencies: ["Agent", "MQTT", "Navigation", "RoadGraph", "Geo", "OSMImport", "TestKit"]),
        .testTarget(name: "EdgeNavCLITests", dependencies: ["EdgeNavCLI", "Agent", "OSMImport", "RoadGraph", "Geo", "TestKit"]),
        // Integration tests against a real mosquitto, in their own target.
        .testTarget(name: "MQTTIntegrationTests", dependencies: ["MQTT", "Agent", "TestKit", "mqtt-test-client"]),
        // The agent measured through a real broker: latency against the broker's floor, fleet throughput
        // (scripts/bench-agent runs it in release mode).
        .executableTarget(name: "bench-agent", dependencies: ["Agent", "MQTT", "Navigation", "RoadGraph", "Geo"],
                          path: "Benchmarks/Agent"),
        // QoS 1 publish throughput of MQTTClient, run by scripts/bench-mqtt in release mode.
        .executableTarget(name: "bench-mqtt", dependencies: ["MQTT"], path: "Benchmarks/MQTTThroughput"),
        // A separate MQTTClient process the integration tests can SIGKILL (Last Will, outbox after kill -9).
        .executableTarget(name: "mqtt-test-client", dependencies: ["MQTT"], path: "Tests/Support/MQTTTestClient"),
        // `edgenav run` as a process against a real mosquitto.
        .testTarget(name: "AgentIntegrationTests", dependencies: ["TestKit", "edgenav"]),
    ],
    cxxLanguageStandard: .cxx17
)
