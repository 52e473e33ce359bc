import Geo

/// Guesses the country of an extract, for default speed limits and the side traffic keeps to
/// (`RoadGraph.drivingSide`). Deliberately simple:
/// 1. the centre of the extract's bounding box (file header box, else the nodes' box) is looked up in a short
///    table of rough country boxes, smallest box first (so Liechtenstein wins over Switzerland and Austria);
/// 2. when no box matches, the most common country prefix of zone tags (`maxspeed=FI:urban`,
///    `maxspeed:type=…`, `source:maxspeed=…`, `zone:maxspeed=…`) seen in the extract is used;
/// 3. otherwise nil (no inferred speed limits).
/// Helsinki → FI, Liechtenstein → LI, Baltimore → US.
public enum CountryHint {
    struct Box {
        let code: String
        let minLat, minLon, maxLat, maxLon: Double
        var area: Double { (maxLat - minLat) * (maxLon - minLon) }
        func contains(_ c: Coordinate) -> Bool {
            c.latitude >= minLat && c.latitude <= maxLat && c.longitude >= minLon && c.longitude <= maxLon
        }
    }

    static let boxes: [Box] = [
        Box(code: "LI", minLat: 47.04, minLon: 9.47, maxLat: 47.28, maxLon: 9.64),
        Box(code: "EE", minLat: 57.5, minLon: 21.7, maxLat: 59.7, maxLon: 28.2),
        Box(code: "CH", minLat: 45.82, minLon: 5.96, maxLat: 47.81, maxLon: 10.49),
        Box(code: "AT", minLat: 46.37, minLon: 9.53, maxLat: 49.02, maxLon: 17.16),
        Box(code: "DE", minLat: 47.27, minLon: 5.87, maxLat: 55.06, maxLon: 15.04),
        Box(code: "FI", minLat: 59.5, minLon: 19.0, maxLat: 70.1, maxLon: 31.6),
        Box(code: "FR", minLat: 41.3, minLon: -5.2, maxLat: 51.1, maxLon: 9.6),
        Box(code: "GB", minLat: 49.9, minLon: -8.7, maxLat: 60.9, maxLon: 1.8),
        Box(code: "SE", minLat: 55.3, minLon: 10.9, maxLat: 69.1, maxLon: 24.2),
        Box(code: "NO", minLat: 57.9, minLon: 4.5, maxLat: 71.2, maxLon: 31.2),
        Box(code: "US", minLat: 24.4, minLon: -125.0, maxLat: 49.4, maxLon: -66.9),
        Box(code: "RU", minLat: 41.2, minLon: 19.6, maxLat: 81.9, maxLon: 180.0),
        // Where traffic keeps left (`DrivingSide`), cut short of the right-hand neighbours' cities: Ireland east of
        // Belfast's longitude, Japan without Busan and Vladivostok, Hong Kong and Macau short of Shenzhen and Zhuhai,
        // India without Lhasa, Mandalay, Dhaka and Karachi, Thailand's Bangkok region only.
        Box(code: "IE", minLat: 51.4, minLon: -10.7, maxLat: 55.4, maxLon: -6.0),
        Box(code: "JP", minLat: 30.9, minLon: 129.4, maxLat: 41.6, maxLon: 142.2),
        Box(code: "JP", minLat: 41.3, minLon: 139.3, maxLat: 45.6, maxLon: 145.9),
        Box(code: "AU", minLat: -44.0, minLon: 112.9, maxLat: -10.0, maxLon: 154.0),
        Box(code: "NZ", minLat: -47.4, minLon: 166.3, maxLat: -34.3, maxLon: 178.6),
        Box(code: "ZA", minLat: -34.9, minLon: 16.4, maxLat: -22.1, maxLon: 32.9),
        Box(code: "IN", minLat: 8.0, minLon: 68.5, maxLat: 30.0, maxLon: 88.5),
        Box(code: "SG", minLat: 1.16, minLon: 103.6, maxLat: 1.48, maxLon: 104.1),
        Box(code: "MY", minLat: 1.2, minLon: 99.6, maxLat: 6.8, maxLon: 104.6),
        Box(code: "HK", minLat: 22.15, minLon: 113.83, maxLat: 22.5, maxLon: 114.44),
        Box(code: "MO", minLat: 22.1, minLon: 113.52, maxLat: 22.22, maxLon: 113.6),
        Box(code: "TH", minLat: 12.5, minLon: 99.8, maxLat: 15.0, maxLon: 101.5),
    ].sorted { $0.area < $1.area }

    public static func country(containing point: Coordinate) -> String? {
        boxes.first { $0.contains(point) }?.code
    }

    /// See the type's documentation. `zoneVotes` counts country prefixes of zone tags.
    public static func guess(boundingBox: BoundingBox?, zoneVotes: [String: Int]) -> String? {
        if let box = boundingBox, let c = country(containing: box.center) { return c }
        return zoneVotes.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    }
}
