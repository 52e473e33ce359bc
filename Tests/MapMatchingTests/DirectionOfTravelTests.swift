import Foundation
import Geo
import Testing

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
