/// The side of the road traffic keeps to, which decides which side of a street a waypoint is on "this side" of
/// (`preferSameSideOfRoad`), which turns cross the oncoming lane, and where a simulated vehicle drives.
public enum DrivingSide: String, Sendable, Hashable, Codable {
    case right, left

    /// ISO 3166-1 alpha-2 codes of the countries and territories that drive on the left.
    public static let leftHandCountries: Set<String> = [
        "AG", "AI", "AU", "BB", "BD", "BM", "BN", "BS", "BT", "BW", "CC", "CK", "CX", "CY", "DM", "FJ", "FK", "GB", "GD",
        "GG", "GY", "HK", "ID", "IE", "IM", "IN", "JE", "JM", "JP", "KE", "KI", "KN", "KY", "LC", "LK", "LS", "MO", "MS",
        "MT", "MU", "MV", "MW", "MY", "MZ", "NA", "NF", "NP", "NR", "NU", "NZ", "PK", "PN", "PG", "SB", "SC", "SG", "SH",
        "SR", "SZ", "TC", "TH", "TK", "TL", "TO", "TT", "TV", "TZ", "UG", "VC", "VG", "VI", "WS", "ZA", "ZM", "ZW",
    ]

    /// The side for a country code; right when the country is unknown (most of the world's roads).
    public init(country: String?) {
        self = country.map { Self.leftHandCountries.contains($0.uppercased()) } == true ? .left : .right
    }
}

extension RoadGraph {
    /// The side traffic keeps to on this map, from the country the importer guessed (`GraphMetadata.countryHint`).
    public var drivingSide: DrivingSide { DrivingSide(country: metadata.countryHint) }
}
