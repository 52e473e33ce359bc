import Foundation
import Geo
import Testing
import TraceSimulation

@testable import MapMatching

/// On a two-way road a fix without a course does not say which way the vehicle faces; its movement does. Moving
/// backwards on the road was scored as the same distance as moving forwards (backward jitter is allowed for standing
/// vehicles), so a vehicle driving steadily along a straight two-way street could be matched facing the other way for
/// the whole street: every `course` 180° off (it flipped on a centimetre's rounding of the coordinates).
@Suite struct DirectionOfTravelTests {
    @Test("a vehicle driving along a two-way street without a course is matched in its direction of travel",
          arguments: [5.0, nil] as [Double?])
    func directionFromMovement(speed: Double?) throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main", speedLimitKph: 40)])
        for (from, to, bearing) in [(Character("A"), Character("B"), 90.0), (Character("B"), Character("A"), 270.0)] {
            var fixes: [LocationFix] = []
            for i in 0..<90 {
                // Zigzag across the road, 6 m a second along it.
                let p = f.at(from, to, 0.05 + Double(i) / 100, north: i % 2 == 0 ? 4 : -4)
                fixes.append(LocationFix(coordinate: p, timestamp: 1_700_000_000 + Double(i), speedMetersPerSecond: speed))
            }
            // As `edgenav match` reads them: coordinates rounded to 1e-7 degrees.
            let read = try fixes.map { try MatchingJSON.decodeFix(MatchingJSON.encode($0)) }
            for input in [fixes, read] {
                let final = BatchMatcher(index: f.index).match(input)
                let wrong = final.filter { Geodesy.bearingDifferenceDegrees($0.courseDegrees, bearing) > 30 }.count
                #expect(wrong == 0, "\(from)→\(to), speed \(speed.map { "\($0)" } ?? "none"): \(wrong) of 90 final answers face the other way")
                let matcher = MapMatcher(index: f.index)
                let provisional = input.map { matcher.update($0).provisional }
                let late = provisional.dropFirst(5).filter { Geodesy.bearingDifferenceDegrees($0.courseDegrees, bearing) > 30 }.count
                #expect(late == 0, "\(from)→\(to): \(late) provisional answers after the 5th face the other way")
            }
        }
    }
}

/// A receiver that reports speed but no course gets its direction from the line through the recent positions
/// (`inferredCourseForReportedSpeeds`). At 5 s fixes that line spans 10 s: just after a hairpin it still points the
/// way the vehicle drove before the bend, and the fix was matched onto the hairpin's other leg (SUMO Liechtenstein
/// seed 2, probe1, whose final arrival was lost). `inferredCourseTurnDegrees` drops the line's direction when the
/// last interval points elsewhere.
@Suite struct TurnWithinTheLineTests {
    static let hairpin = """
        C----------------------B
                               |
        D----------------------E
        """

    /// Fixes every 5 s, with speed and no course, along D→E at 10 m/s, the last one 20 m past B on Upper after the
    /// 20 m bend, each with 8 m of noise per axis. Returns how many of `seeds` drives had the last fix's
    /// provisional answer on Upper, for each configuration.
    static func lastFixOnUpper(configurations: [MapMatchingConfiguration], seeds: ClosedRange<UInt64>) throws -> [Int] {
        let f = try MatchingFixture(hairpin, roads: [
            FixtureRoad(nodes: "DE", name: "Lower"), FixtureRoad(nodes: "EB", name: "Bend"),
            FixtureRoad(nodes: "BC", name: "Upper"),
        ])
        let lower = f.index.length(of: f.edges["DE"]!)
        let upper = f.index.length(of: f.edges["BC"]!)
        var onUpper = [Int](repeating: 0, count: configurations.count)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            var fixes: [LocationFix] = []
            func add(_ p: Coordinate, speed: Double) {
                let q = LocalProjection(origin: p).unproject(x: 8 * rng.normal(), y: 8 * rng.normal())
                fixes.append(fix(q, t: 5 * Double(fixes.count), speed: speed, course: nil))
            }
            for x in stride(from: lower - 160, through: lower - 10, by: 50) { add(f.at("D", "E", x / lower), speed: 10) }
            // 10 m to E, the 20 m bend, 20 m along Upper: 50 m in 5 s.
            add(f.at("B", "C", 20 / upper), speed: 10)
            for (k, configuration) in configurations.enumerated() {
                let matcher = MapMatcher(index: f.index, configuration: configuration)
                var last: SnappedLocation?
                for x in fixes { last = matcher.update(x).provisional }
                if last?.osmWayID == f.way("Upper") { onUpper[k] += 1 }
            }
        }
        return onUpper
    }

    @Test func aFixJustAfterAHairpinIsNotGivenTheDirectionBeforeIt() throws {
        var without = MapMatchingConfiguration()
        without.inferredCourseTurnDegrees = 0
        var noInference = MapMatchingConfiguration()
        noInference.inferredCourseForReportedSpeeds = false
        let n = try Self.lastFixOnUpper(
            configurations: [MapMatchingConfiguration(), without, noInference], seeds: 1...200)
        // Seen: 187 of 200 with the check, 167 without it, 189 without any inferred course.
        #expect(n[0] >= n[1] + 10, "on Upper: \(n[0]) of 200 with the check vs \(n[1]) without it")
        #expect(n[0] + 5 >= n[2], "on Upper: \(n[0]) of 200 with the check vs \(n[2]) without any inferred course")
    }
}
