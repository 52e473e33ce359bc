import Foundation
import Geo
@testable import MapMatching
import RoadGraph
import Testing

@Suite struct MatchingJSONTests {
    @Test func decodesFixesWithOptionalFields() throws {
        let f = try MatchingJSON.decodeFix(#"{"lat": 60.17, "lon": 24.94, "timestamp": 1700000000.5, "speed": 12.5, "course": 90, "horizontalAccuracy": 6}"#)
        #expect(f.coordinate == Coordinate(latitude: 60.17, longitude: 24.94))
        #expect(f.timestamp == 1_700_000_000.5 && f.speedMetersPerSecond == 12.5 && f.courseDegrees == 90)
        #expect(f.horizontalAccuracyMeters == 6 && f.altitudeMeters == nil)
        let iso = try MatchingJSON.decodeFix(#"{"lat": 1, "lon": 2, "timestamp": "2023-11-14T22:13:20Z"}"#)
        #expect(iso.timestamp == 1_700_000_000)
        let millis = try MatchingJSON.decodeFix(#"{"lat": 1, "lon": 2, "timestamp": 1700000000500}"#)
        #expect(millis.timestamp == 1_700_000_000.5)
        // Negative values mean "unknown", as in CLLocation.
        let unknown = try MatchingJSON.decodeFix(#"{"lat": 1, "lon": 2, "timestamp": 3, "speed": -1, "course": -1}"#)
        #expect(unknown.validSpeed == nil && unknown.validCourse == nil)
    }

    @Test func rejectsBadLinesWithStableCodes() {
        func code(_ line: String) -> String? {
            do { _ = try MatchingJSON.decodeFix(line); return nil } catch let e as MatchingJSONError { return e.code } catch { return "other" }
        }
        #expect(code("not json") == "match.invalid_json")
        #expect(code(#"{"lon": 2, "timestamp": 3}"#) == "match.missing_field")
        #expect(code(#"{"lat": 1, "lon": 2}"#) == "match.missing_field")
        #expect(code(#"{"lat": 91, "lon": 2, "timestamp": 3}"#) == "match.invalid_value")
        #expect(code(#"{"lat": "x", "lon": 2, "timestamp": 3}"#) == "match.invalid_value")
        #expect(code(#"{"lat": 1, "lon": 2, "timestamp": "yesterday"}"#) == "match.invalid_value")
        #expect(code(#"{"lat": 1, "lon": 2, "timestamp": "2023-11-14"}"#) == "match.invalid_value")
        #expect(code(#"{"lat": 1, "lon": 2, "timestamp": "2023-13-14 22:13:20"}"#) == "match.invalid_value")
    }

    /// Recorded traces write times in many ways; `match` uses only the differences between fixes.
    @Test func acceptsTheTimestampsRecordedTracesWrite() throws {
        func time(_ value: String) throws -> Double {
            try MatchingJSON.decodeFix(#"{"lat": 1, "lon": 2, "timestamp": \#(value)}"#).timestamp
        }
        #expect(try time(#""2023-11-14 22:13:20""#) == 1_700_000_000)
        #expect(try time(#""2023-11-14T22:13:20""#) == 1_700_000_000)
        #expect(try time(#""2023-11-14 22:13:20.250""#) == 1_700_000_000.25)
        #expect(try time(#""2023-11-15T00:13:20+02:00""#) == 1_700_000_000)
        #expect(try time(#""2023-11-14T21:13:20-01:00""#) == 1_700_000_000)
        #expect(try time(#""1700000000.5""#) == 1_700_000_000.5)
        #expect(try time(#""1700000000500""#) == 1_700_000_000.5)
        #expect(try time("0") == 0)
    }

    @Test func encodesSnappedLocationsWithTheCLIFields() throws {
        let s = SnappedLocation(
            coordinate: Coordinate(latitude: 60.1, longitude: 24.9), altitudeMeters: .nan, courseDegrees: 87.26,
            speedMetersPerSecond: -1, timestamp: 1_700_000_000, horizontalAccuracyMeters: -1, matched: true, edge: 3,
            edgeOffsetMeters: 1, osmWayID: 42, roadName: "Mannerheimintie \"A\"", speedLimitKph: 40, source: .snapped,
            isOnRoute: false, routeDistanceMeters: nil)
        let line = MatchingJSON.encode(s)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["lat"] as? Double == 60.1 && object["lon"] as? Double == 24.9)
        #expect(object["osmWayId"] as? Int == 42 && object["roadName"] as? String == "Mannerheimintie \"A\"")
        #expect(object["course"] as? Double == 87.3 && object["speed"] as? Int == -1)
        #expect(object["speedLimitKph"] as? Int == 40 && object["matched"] as? Bool == true)
        #expect(object["altitude"] is NSNull && object["routeDistanceMeters"] is NSNull)
        #expect(object["source"] as? String == "snapped" && object["timestamp"] as? Int == 1_700_000_000)
        // `closedRoad`: put on a road closed to the mode by its tags (a pedestrian street, motor_vehicle=no).
        #expect(object["closedRoad"] as? Bool == false)
        var onClosedRoad = s
        onClosedRoad.isOnClosedRoad = true
        let closed = try #require(
            try JSONSerialization.jsonObject(with: Data(MatchingJSON.encode(onClosedRoad).utf8)) as? [String: Any])
        #expect(closed["closedRoad"] as? Bool == true)
        let unmatched = MatchingJSON.encode(SnappedLocation.unmatched(LocationFix(coordinate: Coordinate(latitude: 1, longitude: 2), timestamp: 5)))
        #expect(unmatched.contains("\"matched\":false") && unmatched.contains("\"speedLimitKph\":null"))
    }

    @Test func fixLinesRoundTrip() throws {
        let f = LocationFix(coordinate: Coordinate(latitude: 60.1234567, longitude: 24.7654321), timestamp: 12.5,
                            altitudeMeters: 3, speedMetersPerSecond: 4.25, courseDegrees: 180, horizontalAccuracyMeters: 7)
        #expect(try MatchingJSON.decodeFix(MatchingJSON.encode(f)) == f)
    }

    /// `edgenav match` streams: a line comes out once its fix's answer is final (the lag), not at the end of input,
    /// and the lines are the batch matcher's answers.
    @Test func streamingHandsOutEachLineOnceItsAnswerIsFinal() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main", speedLimitKph: 40)])
        var fixes: [LocationFix] = []
        for i in 0..<90 {
            let p = f.at("A", "B", 0.05 + Double(i) / 100, north: i % 2 == 0 ? 4 : -4)
            fixes.append(LocationFix(coordinate: p, timestamp: 1_700_000_000 + Double(i), speedMetersPerSecond: 5))
        }
        let stream = JSONLinesMatcher(index: f.index)
        #expect(stream.push("{broken").count == 1, "an error at the head of the output comes out at once")
        var out: [String] = []
        var readyWhilePushing: [Int] = []
        for fix in fixes {
            out += stream.push(MatchingJSON.encode(fix))
            readyWhilePushing.append(out.count)
        }
        #expect(readyWhilePushing[10] == 0, "within the lag nothing is final yet")
        #expect(readyWhilePushing[60] >= 30, "after 60 s of fixes the first ones are out: \(readyWhilePushing[60])")
        #expect(readyWhilePushing.last ?? 0 < fixes.count, "the last fixes wait for the end of input")
        out += stream.finish()
        // The batch matcher on the fixes as the stream read them (the JSON lines round coordinates to 1e-7°).
        let decoded = try fixes.map { try MatchingJSON.decodeFix(MatchingJSON.encode($0)) }
        #expect(out == BatchMatcher(index: f.index).match(decoded).map(MatchingJSON.encode))
    }

    @Test func batchMatchingOfJSONLinesKeepsOneOutputPerInputLine() throws {
        let f = try MatchingFixture("""
            A----------------------------------------------------------B
            """, roads: [FixtureRoad(nodes: "AB", name: "Main", speedLimitKph: 40)])
        var lines: [String] = []
        for i in 0..<8 {
            let p = f.at("A", "B", 0.2 + Double(i) / 60, north: 4)
            lines.append(#"{"lat": \#(p.latitude), "lon": \#(p.longitude), "timestamp": \#(1_700_000_000 + i), "speed": 10}"#)
            if i == 3 { lines.append("{broken"); lines.append("") }
        }
        let stream = JSONLinesMatcher(index: f.index)
        let out = lines.flatMap { stream.push($0) } + stream.finish()
        #expect(out.count == 9)
        let objects = try out.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect((objects[4]["error"] as? [String: Any])?["code"] as? String == "match.invalid_json")
        #expect(objects[4]["line"] as? Int == 5)
        for (i, o) in objects.enumerated() where i != 4 {
            #expect(o["matched"] as? Bool == true && o["roadName"] as? String == "Main" && o["speedLimitKph"] as? Int == 40)
            #expect(o["osmWayId"] as? Int == Int(f.way("Main")) && o["speed"] as? Int == 10)
        }
        let times = objects.compactMap { $0["timestamp"] as? Int }
        #expect(times == Array(1_700_000_000..<1_700_000_008))
    }
}
