import Geo

/// Guesses the country of an extract, for default speed limits. Deliberately simple:
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
