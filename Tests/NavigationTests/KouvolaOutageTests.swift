import Foundation
import Geo
import MapMatching
import Navigation
import OSMImport
import RoadGraph
import Testing

/// A recorded-like drive on the real Kouvola extract: SUMO probe23 with `Benchmarks/sumo/realistic.py`'s
/// `realistic8` noise at 5 s fixes (seed 1). At 28 m/s the receiver loses 15 s of fixes (34.8 → 49.9 s) while the
/// vehicle slows; the first fix after the outage lies about 240 m behind where the progress filter's speed carried
/// the estimate, outside the search window, then the vehicle passes the midpoint. Before the window reached back
/// after a gap (`ActiveLeg.progressReachBehindMeters`) the midpoint was missed and the vehicle sent back to it three
/// times.
@Suite(.enabled(if: KouvolaExtract.isPresent, "test.osm.pbf missing: run scripts/fetch-maps"))
struct KouvolaOutageTests {
    /// Seconds after the first fix, latitude, longitude, speed (m/s), course (degrees), horizontal accuracy (m).
    private let fixes: [(Double, Double, Double, Double?, Double?, Double)] = [
        (0.00, 60.5207912, 26.9497010, 1.55, nil, 10.5),
        (5.17, 60.5208162, 26.9500344, 7.05, 60.1, 8.1),
        (10.20, 60.5211310, 26.9502329, 7.32, 322.5, 16.1),
        (15.18, 60.5215379, 26.9493123, 17.27, 319.2, 11.0),
        (20.07, 60.5221943, 26.9478957, 27.75, 312.6, 12.8),
        (24.86, 60.5230199, 26.9460354, 26.85, 320.9, 11.5),
        (30.13, 60.5241247, 26.9445600, 28.41, 323.0, 15.6),
        (34.81, 60.5252228, 26.9432955, 27.87, 330.0, 9.0),
        (49.93, 60.5261278, 26.9451063, 20.94, 62.8, 10.0),
        (59.81, 60.5275150, 26.9487132, 27.91, 26.3, 15.0),
        (64.81, 60.5287190, 26.9496336, 27.85, 15.9, 18.5),
        (69.83, 60.5298144, 26.9510347, 27.53, 39.8, 10.4),
        (75.10, 60.5306422, 26.9530059, 27.99, 45.5, 15.2),
        (80.00, 60.5316490, 26.9543985, 27.88, 24.2, 15.5),
        (85.15, 60.5328010, 26.9555899, 20.86, 23.3, 14.1),
        (89.82, 60.5330195, 26.9558726, 5.98, 300.5, 8.0),
        (95.16, 60.5331805, 26.9550357, 13.56, 282.9, 21.7),
        (99.91, 60.5335349, 26.9533126, 21.93, 316.4, 16.9),
        (105.14, 60.5344053, 26.9522643, 22.58, 332.4, 9.7),
        (110.05, 60.5352832, 26.9513282, 21.77, 335.7, 11.9),
        (115.20, 60.5357212, 26.9508288, 4.73, 354.1, 12.6),
        (119.80, 60.5359047, 26.9513380, 12.04, 64.9, 12.2),
        (124.83, 60.5362387, 26.9529135, 21.62, 66.4, 13.8),
        (130.12, 60.5367671, 26.9548658, 13.84, 71.6, 13.1),
        (134.99, 60.5370160, 26.9553435, 8.98, 342.7, 19.4),
        (139.94, 60.5376695, 26.9548962, 13.26, 337.5, 20.3),
        (145.00, 60.5380483, 26.9539182, 13.59, 323.7, 16.3),
    ]

    @Test func aVehicleThatSlowedInAnOutageIsFoundAgainAndArrivesAtTheMidpoint() throws {
        let start = Date(timeIntervalSince1970: 1_796_025_945)
        let raw = fixes.map { f in
            RawFix(
                coordinate: Coordinate(latitude: f.1, longitude: f.2), timestamp: start.addingTimeInterval(f.0),
                horizontalAccuracyMeters: f.5, courseDegrees: f.4, speedMetersPerSecond: f.3)
        }
        let waypoints = [
            NavigationWaypoint(coordinate: Coordinate(latitude: 60.529426, longitude: 26.950579), title: "midpoint"),
            NavigationWaypoint(coordinate: Coordinate(latitude: 60.537989, longitude: 26.953842), title: "end"),
        ]
        let (arrivals, reroutesBeforeMidpoint, _) = try KouvolaExtract.drive(raw, to: waypoints)
        #expect(arrivals.first == "midpoint", "arrivals \(arrivals)")
        #expect(reroutesBeforeMidpoint == 0)
    }
}
