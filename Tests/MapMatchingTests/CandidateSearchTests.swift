import Geo
@testable import MapMatching
import RoadGraph
import Testing

/// The candidate search of `RoadGeometryIndex`: every road within the radius once, whatever number of grid cells
/// it crosses, with a scratch whose size does not grow with the map.
@Suite struct CandidateSearchTests {
    @Test func aRoadAcrossManyCellsIsACandidateOnceInEachDirection() throws {
        // A 600 m road (12 grid cells of 50 m) and a short road beside it; the fix lies near the middle of the long one.
        let f = try MatchingFixture("""
            A------------------------------------------------------------B

                                    C------D
            """, gridMeters: 10, roads: [FixtureRoad(nodes: "AB", name: "Long"), FixtureRoad(nodes: "CD", name: "Short")])
        var out: [RoadCandidate] = []
        var scratch = CandidateScratch()
        for _ in 0..<3 {  // the same scratch, search after search
            f.index.candidates(near: f.at("A", "B", 0.5, north: 3), radius: 400, mode: .driving, maximumRoads: 8,
                               into: &out, scratch: &scratch)
            let edges = out.map(\.edge)
            #expect(Set(edges).count == edges.count)
            #expect(Set(edges) == Set(f.path("AB") + f.path("BA") + f.path("CD") + f.path("DC")))
        }
    }

    @Test func theScratchSetGrowsAndEmptiesPerSearch() {
        var scratch = CandidateScratch()
        scratch.startSearch()
        // More edges than the initial table holds, with ids far apart (a region's graph).
        let edges = (0..<1_000).map { $0 * 7_919 + 3 }
        var first = edges.map { scratch.firstSight(of: $0) }
        #expect(first.allSatisfy { $0 })
        let again = edges.map { scratch.firstSight(of: $0) }
        #expect(again.allSatisfy { !$0 })
        scratch.startSearch()
        first = [scratch.firstSight(of: edges[500]), scratch.firstSight(of: edges[500]), scratch.firstSight(of: 0)]
        #expect(first == [true, false, true])
    }
}
