import Foundation

/// Distances and bearings on a spherical Earth (mean radius, IUGG). Haversine error versus the WGS84
/// ellipsoid is below 0.5 %, which is far inside GPS and map noise for navigation.
public enum Geodesy {
    /// Mean Earth radius R1 (IUGG), metres.
    public static let earthRadiusMeters: Double = 6_371_008.8

    /// Great-circle (haversine) distance in metres.
    public static func distanceMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
        let phi1 = a.latitude * .pi / 180
        let phi2 = b.latitude * .pi / 180
        let dPhi = phi2 - phi1
        let dLambda = (b.longitude - a.longitude) * .pi / 180
        let s1 = sin(dPhi / 2)
        let s2 = sin(dLambda / 2)
        let h = s1 * s1 + cos(phi1) * cos(phi2) * s2 * s2
        return 2 * earthRadiusMeters * asin(min(1, sqrt(h)))
    }

    /// Initial great-circle bearing from `from` towards `to`, degrees in 0..<360, 0 = north, 90 = east.
    /// Returns 0 for coincident points.
    public static func initialBearingDegrees(from: Coordinate, to: Coordinate) -> Double {
        let phi1 = from.latitude * .pi / 180
        let phi2 = to.latitude * .pi / 180
        let dLambda = (to.longitude - from.longitude) * .pi / 180
        let y = sin(dLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        if x == 0 && y == 0 { return 0 }
        return normalizedDegrees(atan2(y, x) * 180 / .pi)
    }

    /// The point reached from `start` after `distanceMeters` along the initial bearing (degrees, 0 = north).
    public static func destination(from start: Coordinate, bearingDegrees: Double, distanceMeters: Double) -> Coordinate {
        let delta = distanceMeters / earthRadiusMeters
        let theta = bearingDegrees * .pi / 180
        let phi1 = start.latitude * .pi / 180
        let lambda1 = start.longitude * .pi / 180
        let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
        let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
        var lon = lambda2 * 180 / .pi
        lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
        return Coordinate(latitude: phi2 * 180 / .pi, longitude: lon)
    }

    /// Maps any angle in degrees into 0..<360.
    @inlinable
    public static func normalizedDegrees(_ degrees: Double) -> Double {
        // Already in range (bearings from atan2 and the index mostly are): the remainder below would return it
        // unchanged, at the cost of an fmod call (the matcher compares a few dozen bearings per fix).
        if degrees >= 0 && degrees < 360 { return degrees }
        let r = degrees.truncatingRemainder(dividingBy: 360)
        let n = r < 0 ? r + 360 : r
        return n >= 360 ? 0 : n
    }

    /// Smallest absolute difference between two bearings, degrees in 0...180.
    @inlinable
    public static func bearingDifferenceDegrees(_ a: Double, _ b: Double) -> Double {
        let d = abs(normalizedDegrees(a) - normalizedDegrees(b))
        return d > 180 ? 360 - d : d
    }
}

/// Equirectangular projection around an origin: x metres east, y metres north.
/// Accurate to well under 0.1 % for spans of a few kilometres away from the poles; use it for
/// snapping and geometry at street scale, never across a country.
public struct LocalProjection: Sendable {
    public let origin: Coordinate
    /// Metres per degree of latitude (constant on the sphere).
    public let metersPerDegreeLatitude: Double
    /// Metres per degree of longitude at the origin's latitude.
    public let metersPerDegreeLongitude: Double

    public init(origin: Coordinate) {
        self.origin = origin
        metersPerDegreeLatitude = Geodesy.earthRadiusMeters * .pi / 180
        metersPerDegreeLongitude = metersPerDegreeLatitude * cos(origin.latitude * .pi / 180)
    }

    public func project(_ c: Coordinate) -> (x: Double, y: Double) {
        ((c.longitude - origin.longitude) * metersPerDegreeLongitude,
         (c.latitude - origin.latitude) * metersPerDegreeLatitude)
    }

    public func unproject(x: Double, y: Double) -> Coordinate {
        Coordinate(latitude: origin.latitude + y / metersPerDegreeLatitude,
                   longitude: origin.longitude + (metersPerDegreeLongitude == 0 ? 0 : x / metersPerDegreeLongitude))
    }
}
