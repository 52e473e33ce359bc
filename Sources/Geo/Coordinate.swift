import Foundation

/// A WGS84 position. Order is always (latitude, longitude) in degrees in Swift APIs.
/// GeoJSON output elsewhere uses [longitude, latitude] as GeoJSON requires.
public struct Coordinate: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Degrees north of the equator, -90...90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public var description: String { "(\(latitude), \(longitude))" }

    /// True when both components are finite and within the WGS84 ranges.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}

/// An axis-aligned latitude/longitude box (does not wrap the antimeridian).
public struct BoundingBox: Hashable, Sendable, Codable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    /// The smallest box containing all `points`; nil for an empty sequence.
    public init?(enclosing points: some Sequence<Coordinate>) {
        var it = points.makeIterator()
        guard let first = it.next() else { return nil }
        self.init(minLatitude: first.latitude, minLongitude: first.longitude,
                  maxLatitude: first.latitude, maxLongitude: first.longitude)
        while let p = it.next() { extend(p) }
    }

    public mutating func extend(_ p: Coordinate) {
        minLatitude = min(minLatitude, p.latitude)
        maxLatitude = max(maxLatitude, p.latitude)
        minLongitude = min(minLongitude, p.longitude)
        maxLongitude = max(maxLongitude, p.longitude)
    }

    public func contains(_ p: Coordinate) -> Bool {
        p.latitude >= minLatitude && p.latitude <= maxLatitude
            && p.longitude >= minLongitude && p.longitude <= maxLongitude
    }

    public var center: Coordinate {
        Coordinate(latitude: (minLatitude + maxLatitude) / 2, longitude: (minLongitude + maxLongitude) / 2)
    }
}
