import Foundation
import TestKit
import Testing
@testable import Geo

@Suite struct GeodesyTests {
    @Test func oneDegreeOfLatitudeIsRTimesPiOver180() {
        let d = Geodesy.distanceMeters(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 1, longitude: 0))
        #expect(abs(d - 111_195.08) < 0.05)
    }

    @Test func knownCityDistances() {
        // Reference values computed with an independent haversine (R = 6 371 008.8 m).
        let helsinki = Coordinate(latitude: 60.1699, longitude: 24.9384)
        let tallinn = Coordinate(latitude: 59.4370, longitude: 24.7536)
        #expect(abs(Geodesy.distanceMeters(helsinki, tallinn) - 82_147.555) < 0.01)
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(Geodesy.distanceMeters(paris, london) - 343_556.535) < 0.01)
        #expect(Geodesy.distanceMeters(paris, paris) == 0)
        #expect(Geodesy.distanceMeters(paris, london) == Geodesy.distanceMeters(london, paris))
    }

    @Test func antipodesAreHalfTheCircumference() {
        let d = Geodesy.distanceMeters(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 180))
        #expect(abs(d - Geodesy.earthRadiusMeters * .pi) < 1e-6)
    }

    @Test func cardinalBearings() {
        let o = Coordinate(latitude: 0, longitude: 0)
        #expect(abs(Geodesy.initialBearingDegrees(from: o, to: Coordinate(latitude: 1, longitude: 0)) - 0) < 1e-9)
        #expect(abs(Geodesy.initialBearingDegrees(from: o, to: Coordinate(latitude: 0, longitude: 1)) - 90) < 1e-9)
        #expect(abs(Geodesy.initialBearingDegrees(from: o, to: Coordinate(latitude: -1, longitude: 0)) - 180) < 1e-9)
        #expect(abs(Geodesy.initialBearingDegrees(from: o, to: Coordinate(latitude: 0, longitude: -1)) - 270) < 1e-9)
    }

    @Test func knownBearings() {
        let helsinki = Coordinate(latitude: 60.1699, longitude: 24.9384)
        let tallinn = Coordinate(latitude: 59.4370, longitude: 24.7536)
        #expect(abs(Geodesy.initialBearingDegrees(from: helsinki, to: tallinn) - 187.30775) < 1e-4)
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(Geodesy.initialBearingDegrees(from: paris, to: london) - 330.02109) < 1e-4)
    }

    @Test func destinationInvertsDistanceAndBearing() {
        let start = Coordinate(latitude: 60.17, longitude: 24.94)
        for bearing in stride(from: 0.0, to: 360, by: 37) {
            let end = Geodesy.destination(from: start, bearingDegrees: bearing, distanceMeters: 1234)
            #expect(abs(Geodesy.distanceMeters(start, end) - 1234) < 1e-6)
            #expect(Geodesy.bearingDifferenceDegrees(Geodesy.initialBearingDegrees(from: start, to: end), bearing) < 1e-6)
        }
    }

    @Test func bearingHelpers() {
        #expect(Geodesy.normalizedDegrees(-90) == 270)
        #expect(Geodesy.normalizedDegrees(720) == 0)
        #expect(Geodesy.bearingDifferenceDegrees(350, 10) == 20)
        #expect(Geodesy.bearingDifferenceDegrees(90, 270) == 180)
    }
}

@Suite struct ProjectionTests {
    @Test func localProjectionRoundTripsAndMatchesHaversine() {
        let origin = Coordinate(latitude: 60.17, longitude: 24.94)
        let proj = LocalProjection(origin: origin)
        let p = Coordinate(latitude: 60.175, longitude: 24.95)
        let (x, y) = proj.project(p)
        #expect(x > 0 && y > 0)
        let back = proj.unproject(x: x, y: y)
        #expect(abs(back.latitude - p.latitude) < 1e-12 && abs(back.longitude - p.longitude) < 1e-12)
        let planar = (x * x + y * y).squareRoot()
        let exact = Geodesy.distanceMeters(origin, p)
        #expect(abs(planar - exact) / exact < 1e-3)
    }

    @Test func projectOntoSegmentMiddleAndEnds() {
        let a = Coordinate(latitude: 60.0, longitude: 25.0)
        let b = Coordinate(latitude: 60.0, longitude: 25.002)  // ~111 m east
        let mid = Coordinate(latitude: 60.0001, longitude: 25.001)
        let s = PolylineGeometry.project(mid, ontoSegment: a, b)
        #expect(abs(s.fraction - 0.5) < 1e-6)
        #expect(abs(s.distanceMeters - 11.1195) < 0.01)
        let before = PolylineGeometry.project(Coordinate(latitude: 60.0, longitude: 24.999), ontoSegment: a, b)
        #expect(before.fraction == 0 && before.point == a)
        let after = PolylineGeometry.project(Coordinate(latitude: 60.0, longitude: 25.01), ontoSegment: a, b)
        #expect(after.fraction == 1 && after.point == b)
        let degenerate = PolylineGeometry.project(mid, ontoSegment: a, a)
        #expect(degenerate.fraction == 0 && degenerate.point == a)
    }

    @Test func polylineLengthAndProjection() {
        let line = [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 0.001),
                    Coordinate(latitude: 0.001, longitude: 0.001)]
        let seg = Geodesy.distanceMeters(line[0], line[1])
        #expect(abs(PolylineGeometry.lengthMeters(line) - 2 * seg) < 1e-3)
        #expect(PolylineGeometry.lengthMeters([]) == 0)
        let p = PolylineGeometry.project(Coordinate(latitude: 0.0005, longitude: 0.0012), ontoPolyline: line)!
        #expect(p.segmentIndex == 1)
        #expect(abs(p.offsetMeters - 1.5 * seg) < 0.01)
        let q = PolylineGeometry.point(along: line, offsetMeters: 1.5 * seg)!
        #expect(Geodesy.distanceMeters(q, Coordinate(latitude: 0.0005, longitude: 0.001)) < 0.01)
    }
}

@Suite struct EncodedPolylineTests {
    static let googleExample = [Coordinate(latitude: 38.5, longitude: -120.2),
                                Coordinate(latitude: 40.7, longitude: -120.95),
                                Coordinate(latitude: 43.252, longitude: -126.453)]

    @Test func googleSpecExampleAtPrecision5() throws {
        #expect(EncodedPolyline.encode(Self.googleExample, precision: 5) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        let decoded = try EncodedPolyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@", precision: 5)
        #expect(decoded == Self.googleExample)
    }

    @Test func sameExampleAtPrecision6() throws {
        #expect(EncodedPolyline.encode(Self.googleExample) == "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI")
        #expect(try EncodedPolyline.decode("_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI") == Self.googleExample)
    }

    @Test func randomRoundTripWithinPrecision() throws {
        var rng = SeededGenerator(seed: 0x5EED_0122)
        let line = (0..<200).map { _ in
            Coordinate(latitude: Double.random(in: -89...89, using: &rng), longitude: Double.random(in: -179...179, using: &rng))
        }
        let back = try EncodedPolyline.decode(EncodedPolyline.encode(line))
        #expect(back.count == line.count)
        for (a, b) in zip(line, back) {
            #expect(abs(a.latitude - b.latitude) <= 0.5e-6 + 1e-12 && abs(a.longitude - b.longitude) <= 0.5e-6 + 1e-12)
        }
    }

    @Test func malformedInputThrowsTypedErrors() throws {
        #expect(throws: EncodedPolylineError.self) { try EncodedPolyline.decode("_izlhA~rlgdF_") }
        do {
            _ = try EncodedPolyline.decode("ab cd")
            Issue.record("expected an error")
        } catch let e as EncodedPolylineError {
            #expect(e.code == "polyline.invalid_character")
        } catch { Issue.record("wrong error \(error)") }
        #expect(throws: EncodedPolylineError.self) { try EncodedPolyline.decode("_p~iF", precision: 5) }
        #expect(try EncodedPolyline.decode("") == [])
    }
}
