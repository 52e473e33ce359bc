import Foundation
import RoadGraph
import TestKit
import Testing
@testable import OSMImport

@Suite struct MaxspeedParserTests {
    @Test func numericForms() {
        #expect(MaxspeedParser.parse("50") == .kph(50))
        #expect(MaxspeedParser.parse(" 50 ") == .kph(50))
        #expect(MaxspeedParser.parse("50 km/h") == .kph(50))
        #expect(MaxspeedParser.parse("50kmh") == .kph(50))
        #expect(MaxspeedParser.parse("50 kph") == .kph(50))
        #expect(MaxspeedParser.parse("7,5") == .kph(7.5))
        #expect(MaxspeedParser.parse("25 mph") == .kph(25 * 1.609344))
        #expect(MaxspeedParser.parse("25mph") == .kph(25 * 1.609344))
        #expect(MaxspeedParser.parse("10 knots") == .kph(18.52))
        #expect(MaxspeedParser.parse("50;30") == .kph(30))
    }

    @Test func wordsAndZones() {
        #expect(MaxspeedParser.parse("none") == .unlimited)
        #expect(MaxspeedParser.parse("walk") == .kph(MaxspeedParser.walkKph))
        #expect(MaxspeedParser.parse("signals") == .variable)
        #expect(MaxspeedParser.parse("variable") == .variable)
        #expect(MaxspeedParser.parse("FI:urban") == .kph(50))
        #expect(MaxspeedParser.parse("FI:rural") == .kph(80))
        #expect(MaxspeedParser.parse("FI:motorway") == .kph(120))
        #expect(MaxspeedParser.parse("LI:urban") == .kph(50))
        #expect(MaxspeedParser.parse("DE:urban") == .kph(50))
        #expect(MaxspeedParser.parse("DE:rural") == .kph(100))
        #expect(MaxspeedParser.parse("DE:motorway") == .unlimited)
        #expect(MaxspeedParser.parse("DE:living_street") == .kph(7))
        #expect(MaxspeedParser.parse("DE:zone:30") == .kph(30))
        #expect(MaxspeedParser.parse("DE:zone30") == .kph(30))
        #expect(MaxspeedParser.parse("RU:urban") == .kph(60))
        #expect(MaxspeedParser.parse("RU:rural") == .kph(90))
        #expect(MaxspeedParser.parse("RU:motorway") == .kph(110))
        #expect(MaxspeedParser.parse("US:urban") == .kph(25 * 1.609344))
        #expect(MaxspeedParser.parse("US:MD:urban") == .kph(25 * 1.609344))
        #expect(MaxspeedParser.parse("GB:nsl_single") == .kph(60 * 1.609344))
        #expect(MaxspeedParser.parse("XX:urban") == nil)
    }

    @Test func garbageIsNil() {
        for s in ["", "fast", "50 furlongs", "-10", "0", "999", "km/h", ";", "FI:", ":urban", "mph"] {
            #expect(MaxspeedParser.parse(s) == nil, "\(s)")
        }
    }

    /// Found by the `osm-values` fuzz target (Tests/Fuzz/Regressions/osm-values): a ";" glued into a larger grapheme
    /// (U+0601 prepends to the next character, U+0301 combines with the previous one) made the parser recurse until
    /// the stack overflowed, because it tested for ";" by scalar and split by Character.
    @Test func semicolonsInsideGraphemesDoNotRecurseForever() {
        let crash: [UInt8] = [0x2b, 0x3b, 0x00, 0x3b, 0x2b, 0x3b, 0x00, 0x3b, 0x3b, 0xeb, 0x3b, 0x40, 0x3b, 0xce, 0x3b,
                              0x44, 0x45, 0x3a, 0x3b, 0xd8, 0x81, 0x3b, 0x3c, 0x3b, 0x00, 0x00, 0x00, 0x23, 0x2c, 0x2b, 0x3b,
                              0x00, 0x3b, 0xff, 0x00, 0x3b, 0x3c]
        #expect(MaxspeedParser.parse(String(decoding: crash, as: UTF8.self)) == nil)
        #expect(MaxspeedParser.parse("50;\u{0601};30") == .kph(30))
        #expect(MaxspeedParser.parse("60;\u{0301}80") == .kph(60))
    }

    @Test func zoneCountryPrefix() {
        #expect(ZoneSpeedLimits.country(ofZone: "FI:urban") == "FI")
        #expect(ZoneSpeedLimits.country(ofZone: "sign") == nil)
        #expect(ZoneSpeedLimits.country(ofZone: "123:x") == nil)
    }
}

@Suite struct CountryHintTests {
    @Test func knownExtracts() {
        #expect(CountryHint.country(containing: .init(latitude: 60.17, longitude: 24.94)) == "FI")
        #expect(CountryHint.country(containing: .init(latitude: 47.14, longitude: 9.55)) == "LI")
        #expect(CountryHint.country(containing: .init(latitude: 39.29, longitude: -76.61)) == "US")
        #expect(CountryHint.country(containing: .init(latitude: 47.4, longitude: 8.5)) == "CH")
        #expect(CountryHint.country(containing: .init(latitude: -33.9, longitude: 151.2)) == "AU")
        #expect(CountryHint.country(containing: .init(latitude: -60, longitude: 0)) == nil)
        #expect(CountryHint.guess(boundingBox: nil, zoneVotes: ["DE": 3, "AT": 1]) == "DE")
        #expect(CountryHint.guess(boundingBox: nil, zoneVotes: [:]) == nil)
    }

    /// Cities where traffic keeps left, and right-hand neighbours the rough boxes must not take in.
    @Test func leftHandTrafficCities() {
        let cities: [(String, Double, Double, String?, DrivingSide)] = [
            ("London", 51.51, -0.13, "GB", .left), ("Belfast", 54.60, -5.93, "GB", .left),
            ("Dublin", 53.35, -6.26, "IE", .left), ("Tokyo", 35.68, 139.77, "JP", .left),
            ("Sapporo", 43.06, 141.35, "JP", .left), ("Sydney", -33.87, 151.21, "AU", .left),
            ("Auckland", -36.85, 174.76, "NZ", .left), ("Johannesburg", -26.20, 28.05, "ZA", .left),
            ("Mumbai", 19.08, 72.88, "IN", .left), ("Singapore", 1.29, 103.85, "SG", .left),
            ("Kuala Lumpur", 3.14, 101.69, "MY", .left), ("Hong Kong", 22.30, 114.17, "HK", .left),
            ("Bangkok", 13.75, 100.50, "TH", .left),
            ("Busan", 35.18, 129.07, nil, .right), ("Vladivostok", 43.12, 131.89, "RU", .right),
            ("Shenzhen", 22.54, 114.06, nil, .right), ("Calais", 50.95, 1.86, "FR", .right),
            ("Vientiane", 17.97, 102.60, nil, .right), ("Phnom Penh", 11.55, 104.92, nil, .right),
            ("Helsinki", 60.17, 24.94, "FI", .right), ("Baltimore", 39.29, -76.61, "US", .right),
        ]
        for (name, lat, lon, country, side) in cities {
            let found = CountryHint.country(containing: .init(latitude: lat, longitude: lon))
            #expect(found == country, "\(name): \(found ?? "none")")
            #expect(DrivingSide(country: found) == side, "\(name)")
        }
    }
}

@Suite struct TravelProfileTests {
    @Test func ferryDurations() {
        #expect(TravelProfiles.parseDurationSeconds("00:30") == 1800)
        #expect(TravelProfiles.parseDurationSeconds("1:30:15") == 5415)
        #expect(TravelProfiles.parseDurationSeconds("45") == 2700)
        #expect(TravelProfiles.parseDurationSeconds("PT1H30M") == 5400)
        #expect(TravelProfiles.parseDurationSeconds("soon") == nil)
        #expect(TravelProfiles.parseDurationSeconds("0") == nil)
    }

    @Test func accessValues() {
        #expect(TravelProfiles.accessValue("yes") == true)
        #expect(TravelProfiles.accessValue("designated") == true)
        #expect(TravelProfiles.accessValue("destination") == true)
        #expect(TravelProfiles.accessValue("private") == false)
        #expect(TravelProfiles.accessValue("no;yes") == false)
        #expect(TravelProfiles.accessValue("unknown") == nil)
    }

    @Test func notARoadAndAreas() {
        #expect(TravelProfiles.classify(["building": "yes"]) == .skipped(.notARoad))
        #expect(TravelProfiles.classify(["route": "bus"]) == .skipped(.notARoad))
        #expect(TravelProfiles.classify(["highway": "footway", "area": "yes"]) == .skipped(.area))
        #expect(TravelProfiles.classify(["highway": "proposed"]) == .skipped(.unsupportedHighway))
        #expect(TravelProfiles.classify(["highway": "spaceport"]) == .skipped(.unsupportedHighway))
    }

    /// Fuzz: random tag combinations from the vocabulary the profiles read never crash, and every kept way is
    /// usable by some mode with positive speeds for its modes.
    @Test func randomTagsKeepInvariants() {
        let keys = ["highway", "oneway", "access", "motor_vehicle", "motorcar", "motorcycle", "bicycle", "foot", "psv", "taxi",
                    "vehicle", "junction", "maxspeed", "maxspeed:forward", "maxspeed:backward", "maxspeed:type", "service",
                    "area", "route", "oneway:bicycle", "cycleway", "toll", "tunnel", "bridge", "duration", "motorroad", "surface"]
        let values = ["yes", "no", "-1", "1", "reversible", "residential", "motorway", "busway", "footway", "ferry", "50",
                      "30 mph", "walk", "none", "FI:urban", "DE:motorway", "opposite", "private", "designated", "roundabout",
                      "parking_aisle", "00:10", "", "☃", "gravel", "signals", "50;abc", "999999999999999999999"]
        var rng = SeededGenerator(seed: 0x5EED_0105)
        for _ in 0..<3000 {
            var tags = OSMTags()
            for _ in 0..<Int.random(in: 0...7, using: &rng) {
                tags[keys.randomElement(using: &rng)!] = values.randomElement(using: &rng)!
            }
            if case .road(let road) = TravelProfiles.classify(tags) {
                #expect(!(road.forward.isEmpty && road.backward.isEmpty))
                #expect(road.cyclingSpeedKph > 0 && road.walkingSpeedKph > 0 && road.classSpeedKph > 0)
                for country in [nil, "FI", "DE", "US"] {
                    let s = road.resolvedSpeeds(forward: true, country: country)
                    #expect(s.motorKph > 0 && s.motorKph.isFinite)
                    if let l = s.limitKph { #expect(l > 0 && l < 500) }
                }
            }
            _ = TravelProfiles.passableModes(nodeTags: tags)
            _ = MaxspeedParser.parse(tags.values.joined())
        }
    }
}

@Suite struct RestrictionParserTests {
    let members = [OSMMember(kind: .way, ref: 1, role: "from"), OSMMember(kind: .node, ref: 5, role: "via"),
                   OSMMember(kind: .way, ref: 2, role: "to")]

    @Test func noAndOnly() throws {
        let no = try RestrictionParser.parse(id: 9, tags: ["type": "restriction", "restriction": "no_left_turn"], members: members).get()
        #expect(no == [ParsedRestriction(id: 9, kind: .no, modes: [.driving, .taxi, .twoWheeler, .cycling], fromWays: [1], viaNode: 5, toWays: [2])])
        let only = try RestrictionParser.parse(id: 9, tags: ["type": "restriction", "restriction": "only_straight_on"], members: members).get()
        #expect(only.first?.kind == .only)
    }

    @Test func exceptRemovesModes() throws {
        let r = try RestrictionParser.parse(id: 1, tags: ["type": "restriction", "restriction": "no_u_turn", "except": "psv; bicycle"],
                                            members: members).get()
        #expect(r.first?.modes == [.driving, .twoWheeler])
        let all = RestrictionParser.parse(id: 1, tags: ["type": "restriction", "restriction:bicycle": "no_u_turn", "except": "bicycle"],
                                          members: members)
        #expect(all == .failure(.notForOurModes))
    }

    @Test func malformedMembers() {
        let tags: OSMTags = ["type": "restriction", "restriction": "no_left_turn"]
        #expect(RestrictionParser.parse(id: 1, tags: tags, members: Array(members.prefix(2))) == .failure(.malformed))
        #expect(RestrictionParser.parse(id: 1, tags: tags, members: members + [OSMMember(kind: .node, ref: 6, role: "via")]) == .failure(.malformed))
        #expect(RestrictionParser.parse(id: 1, tags: tags, members: [members[0], OSMMember(kind: .way, ref: 3, role: "via"), members[2]]) == .failure(.viaWay))
    }
}
