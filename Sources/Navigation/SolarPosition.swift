import Foundation
import Geo

/// The sun's position by NOAA's solar calculator algorithm (the "General Solar Position Calculations" spreadsheet,
/// after Meeus, Astronomical Algorithms): accurate to about 0.01° in elevation for years 1800–2100, refraction
/// corrected as NOAA does. Belongs in `Geo` by STYLE.md; kept here until Geo's owner takes it.
public enum SolarPosition {
    /// Apparent solar elevation above the horizon, degrees (-90...90), refraction included.
    public static func elevationDegrees(at coordinate: Coordinate, date: Date) -> Double {
        let julianDay = date.timeIntervalSince1970 / 86_400 + 2_440_587.5
        let t = (julianDay - 2_451_545) / 36_525  // Julian century
        let rad = Double.pi / 180
        let meanLongitude = (280.46646 + t * (36000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let meanAnomaly = 357.52911 + t * (35999.05029 - 0.0001537 * t)
        let eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let m = meanAnomaly * rad
        let center =
            sin(m) * (1.914602 - t * (0.004817 + 0.000014 * t)) + sin(2 * m) * (0.019993 - 0.000101 * t)
            + sin(3 * m) * 0.000289
        let trueLongitude = meanLongitude + center
        let omega = (125.04 - 1934.136 * t) * rad
        let apparentLongitude = trueLongitude - 0.00569 - 0.00478 * sin(omega)
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = (meanObliquity + 0.00256 * cos(omega)) * rad
        let declination = asin(sin(obliquity) * sin(apparentLongitude * rad))
        let y = pow(tan(obliquity / 2), 2)
        let l0 = meanLongitude * rad
        let equationOfTimeMinutes =
            4 / rad
            * (y * sin(2 * l0) - 2 * eccentricity * sin(m)
                + 4 * eccentricity * y * sin(m) * cos(2 * l0) - 0.5 * y * y * sin(4 * l0)
                - 1.25 * eccentricity * eccentricity * sin(2 * m))
        let secondsOfDay = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        let minutesUTC = (secondsOfDay < 0 ? secondsOfDay + 86_400 : secondsOfDay) / 60
        var trueSolarMinutes = (minutesUTC + equationOfTimeMinutes + 4 * coordinate.longitude)
            .truncatingRemainder(dividingBy: 1440)
        if trueSolarMinutes < 0 { trueSolarMinutes += 1440 }
        let hourAngle = (trueSolarMinutes / 4 < 0 ? trueSolarMinutes / 4 + 180 : trueSolarMinutes / 4 - 180) * rad
        let latitude = coordinate.latitude * rad
        let cosZenith = min(
            1, max(-1, sin(latitude) * sin(declination) + cos(latitude) * cos(declination) * cos(hourAngle)))
        let elevation = 90 - acos(cosZenith) / rad
        return elevation + refractionDegrees(elevation)
    }

    /// NOAA's atmospheric refraction approximation, degrees.
    static func refractionDegrees(_ elevation: Double) -> Double {
        if elevation > 85 { return 0 }
        let te = tan(elevation * .pi / 180)
        let arcSeconds: Double
        if elevation > 5 {
            arcSeconds = 58.1 / te - 0.07 / (te * te * te) + 0.000086 / pow(te, 5)
        } else if elevation > -0.575 {
            arcSeconds = 1735 + elevation * (-518.2 + elevation * (103.4 + elevation * (-12.79 + elevation * 0.711)))
        } else {
            arcSeconds = -20.772 / te
        }
        return arcSeconds / 3600
    }
}

/// Thresholds of the lighting suggestion.
public struct LightingConfiguration: Sendable, Hashable {
    /// Below this solar elevation the light is low: -6° is the end of civil twilight, so lowLight runs from civil
    /// dusk to civil dawn (between sunset and civil dusk a road is still lit well enough to read a map in daylight
    /// colours). In polar day the sun never goes below it (always normal); in deep polar night it never rises
    /// above it (always lowLight); near the polar-night edge the noon twilight is normal, as it looks.
    public var lowLightBelowElevationDegrees: Double = -6
    /// The elevation must cross the boundary by this much before the mode changes back, degrees. Default 0.2°
    /// (about a minute of the sun's motion at mid latitudes) so a sun skimming the boundary does not flap.
    public var hysteresisDegrees: Double = 0.2
    public init() {}

    /// The mode for an elevation, given the current mode (nil when none yet).
    public func mode(elevationDegrees e: Double, current: LightingMode?) -> LightingMode {
        switch current {
        case .lowLight?: return e > lowLightBelowElevationDegrees + hysteresisDegrees ? .normal : .lowLight
        case .normal?: return e < lowLightBelowElevationDegrees - hysteresisDegrees ? .lowLight : .normal
        case nil: return e < lowLightBelowElevationDegrees ? .lowLight : .normal
        }
    }
}
