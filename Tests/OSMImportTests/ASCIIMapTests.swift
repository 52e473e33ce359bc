import Foundation
import Geo
import Testing
import TestKit

@Suite struct ASCIIMapTests {
    @Test func lettersGetGridCoordinates() {
        let map = ASCIIMap("""
            A---B
                |
                C
            """, gridMeters: 10)
        #expect(map.nodeNames == ["A", "B", "C"])
        #expect(abs(Geodesy.distanceMeters(map["A"], map["B"]) - 40) < 0.01)
        #expect(abs(Geodesy.distanceMeters(map["B"], map["C"]) - 20) < 0.01)
        #expect(abs(Geodesy.initialBearingDegrees(from: map["A"], to: map["B"]) - 90) < 0.01)
        #expect(abs(Geodesy.initialBearingDegrees(from: map["B"], to: map["C"]) - 180) < 0.01)
        #expect(map["A"] == ASCIIMap.defaultOrigin)
        let mid = map.point("A", "B", fraction: 0.5)
        #expect(abs(Geodesy.distanceMeters(map["A"], mid) - 20) < 0.01)
    }

    @Test func fixtureRendersOSMXMLWithIDsTagsAndRelations() {
        let f = ASCIIMapFixture("""
            A-B-C
              |
              D
            """, ways: ["ABC": ["highway": "residential", "name": "Kauppa & Koti"], "BD": ["highway": "service"]],
            nodes: ["B": ["highway": "traffic_signals"]],
            relations: [.restriction("no_right_turn", from: "ABC", via: "B", to: "BD")])
        let xml = f.osmXML()
        #expect(f.nodeID("A") == 1 && f.nodeID("D") == 4)
        #expect(f.wayID("ABC") == 1 && f.wayID("BD") == 2)
        #expect(xml.contains("<way id=\"1\" version=\"1\">"))
        #expect(xml.contains("<nd ref=\"1\"/>\n  <nd ref=\"2\"/>\n  <nd ref=\"3\"/>"))
        #expect(xml.contains("<tag k=\"name\" v=\"Kauppa &amp; Koti\"/>"))
        #expect(xml.contains("<tag k=\"highway\" v=\"traffic_signals\"/>"))
        #expect(xml.contains("<member type=\"way\" ref=\"1\" role=\"from\"/>"))
        #expect(xml.contains("<member type=\"node\" ref=\"2\" role=\"via\"/>"))
        #expect(xml.contains("<tag k=\"restriction\" v=\"no_right_turn\"/>"))
    }
}
