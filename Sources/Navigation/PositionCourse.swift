import Foundation
import Geo

/// When a receiver reports positions only (no course, no speed): the vehicle's course from its last few raw
/// positions, or nothing when they do not tell it. Not for a fix that reports a speed below
/// `NavigatorConfiguration.minimumSpeedForCourseMetersPerSecond` without a course (receivers drop the course of a
/// slow vehicle: its positions' scatter is no course either).
public struct PositionCourseConfiguration: Sendable, Hashable {
    /// The fixes of the last this many seconds (the newest included) are fitted with a straight line at constant
    /// velocity (least squares, per axis). Default 4.5 s: five fixes at 1 s (with slack for jittered timestamps).
    /// Longer lags a turn: the fitted course of a vehicle that turned 90° two seconds ago is still halfway round.
    /// At 5 s fixes the window holds one fix, and there is no course (the step from the previous fix, 5 s before,
    /// says more about where the vehicle was than where it heads now).
    public var windowSeconds: Double = 4.5
    /// Fewest fixes the fit takes (after leaving out an outlier). Default 4: three 1 s fixes of σ = 8 m (per axis)
    /// give the velocity to σ 5.7 m/s per axis, four to 3.6 m/s.
    public var minimumFixes: Int = 4
    /// The course counts only when the fitted speed is at least this many times its own standard error (the
    /// position noise σ per axis ÷ √Σ(t − t̄)²), and at least `NavigatorConfiguration.minimumSpeedForCourseMetersPerSecond`.
    /// Default 3: the course's error is then about 20° (one σ) or less, and a standing vehicle's noise reads as a
    /// course on e^(−3²/2) ≈ 1 % of windows (the fitted velocity's length is Rayleigh-distributed), so the course
    /// only strengthens evidence that other rules gather fix by fix, never decides alone (but see
    /// `decidesWrongWayAtLegStart`). Four 1 s fixes need 10.7 m/s, five 7.6 m/s. 2.5 caught a few more departures
    /// on the SUMO drives (1 s, positions only) at four times the rate of false courses from standing vehicles.
    public var confidenceSigmas: Double = 3
    /// A fix farther than this many σ from the line through the window's other fixes (σ of that prediction: the
    /// position noise widened for the line's own error there) is an outlier (2 % of the simulated fixes lie 50–150 m
    /// off): the fix farthest off is left out and the line fitted again, once; if a fix of the second fit still lies
    /// this many position σ from it there is no course. Default 3.
    public var outlierSigmas: Double = 3
    /// On a new leg (the trip's first route, a reroute) the first fix without a course whose window holds
    /// `minimumFixes` fixes decides once: when its positions' course is `NavigatorConfiguration.wrongWayDegrees` or
    /// more from the leg's first direction and the fix lies no farther along the leg than
    /// `strongOffRouteDistanceMeters`, the vehicle is driving away from where the leg starts and is rerouted at once.
    /// Why: a positions-only receiver gives the first route no heading, and on a two-way road the router may start it
    /// the other way (16 of the 36 departures of the SUMO drives at 1 s, positions only, were such trip starts, each
    /// rerouted only 4–8 fixes later: near the leg's start a fix off the route is "rolling up to it",
    /// `legStartToleranceMeters`). Once per leg, not fix after fix: a vehicle standing at the origin shows a false
    /// course on ~1 % of windows, and one standing a minute would be sent away on one of them (simulated: 13 % of
    /// minutes standing when checked at every fix; 0.3 % of standing starts when checked once; a vehicle moving the
    /// other way at 12 m/s is caught on its fourth fix 2 times in 3, at 8 m/s 1 in 4). Default true.
    public var decidesWrongWayAtLegStart = true

    public init() {}
}

/// Least-squares velocity over the last `windowSeconds` of raw fixes (see `PositionCourseConfiguration`). Pure:
/// time comes from the fixes.
struct PositionCourseEstimator: Sendable {
    let configuration: PositionCourseConfiguration
    /// σ of a fix's position per axis for each metre of reported accuracy (`derivedSpeedSigmaPerAccuracy`).
    let sigmaPerAccuracy: Double
    let defaultAccuracyMeters: Double
    let minimumSpeedMetersPerSecond: Double
    private var recent: [RawFix] = []
    /// The window's fixes in metres around the newest (seconds from it, east, north); reused by `add`.
    private var points: [(t: Double, x: Double, y: Double)] = []
    /// Fixes in the window after the latest `add` (outliers included).
    var fixCount: Int { recent.count }

    init(
        configuration: PositionCourseConfiguration, sigmaPerAccuracy: Double, defaultAccuracyMeters: Double,
        minimumSpeedMetersPerSecond: Double
    ) {
        self.configuration = configuration
        self.sigmaPerAccuracy = sigmaPerAccuracy
        self.defaultAccuracyMeters = defaultAccuracyMeters
        self.minimumSpeedMetersPerSecond = minimumSpeedMetersPerSecond
    }

    /// Adds `fix` and returns the course (degrees clockwise from north) and speed (m/s) the window's fixes show,
    /// or nil when they do not show one with confidence.
    mutating func add(_ fix: RawFix) -> (courseDegrees: Double, speedMetersPerSecond: Double)? {
        if let last = recent.last, fix.timestamp <= last.timestamp {
            // A repeated timestamp (a duplicate line, a re-send) replaces its fix; an earlier one starts afresh.
            if fix.timestamp == last.timestamp { recent.removeLast() } else { recent.removeAll() }
        }
        recent.append(fix)
        while let first = recent.first,
            fix.timestamp.timeIntervalSince(first.timestamp) > configuration.windowSeconds
        {
            recent.removeFirst()
        }
        guard recent.count >= configuration.minimumFixes else { return nil }
        let frame = LocalProjection(origin: fix.coordinate)
        // One reused buffer and no copies per leave-one-out fit: this runs for every fix without a course.
        points.removeAll(keepingCapacity: true)
        var sigma = 0.0
        for f in recent {
            let p = frame.project(f.coordinate)
            points.append((f.timestamp.timeIntervalSince(fix.timestamp), p.x, p.y))
            sigma = max(sigma, sigmaPerAccuracy * (f.horizontalAccuracyMeters ?? defaultAccuracyMeters))
        }
        // Leave one out: the fix farthest from the line through the others (in units of that prediction's own σ,
        // which grows towards the window's ends) is an outlier beyond `outlierSigmas`. A plain residual misses one
        // at the window's end, which pulls the line towards itself (an outlier as the trip's first fix read as a
        // course).
        var worst: (index: Int, sigmas: Double)?
        for i in points.indices {
            guard let fit = Self.fit(points, skipping: i) else { continue }
            let p = points[i]
            let ex = p.x - (fit.xm + fit.vx * (p.t - fit.tm)), ey = p.y - (fit.ym + fit.vy * (p.t - fit.tm))
            let spread = (1 + 1 / Double(points.count - 1) + (p.t - fit.tm) * (p.t - fit.tm) / fit.stt).squareRoot()
            let sigmas = (ex * ex + ey * ey).squareRoot() / (sigma * spread)
            if sigmas > (worst?.sigmas ?? -1) { worst = (i, sigmas) }
        }
        if let worst, worst.sigmas > configuration.outlierSigmas { points.remove(at: worst.index) }
        guard points.count >= configuration.minimumFixes, let fit = Self.fit(points) else { return nil }
        // A second outlier in the window: no course.
        for p in points {
            let ex = p.x - (fit.xm + fit.vx * (p.t - fit.tm)), ey = p.y - (fit.ym + fit.vy * (p.t - fit.tm))
            if (ex * ex + ey * ey).squareRoot() > configuration.outlierSigmas * sigma { return nil }
        }
        let speed = (fit.vx * fit.vx + fit.vy * fit.vy).squareRoot()
        let standardError = sigma / fit.stt.squareRoot()
        guard speed >= minimumSpeedMetersPerSecond, speed >= configuration.confidenceSigmas * standardError
        else { return nil }
        return (Geodesy.normalizedDegrees(atan2(fit.vx, fit.vy) * 180 / .pi), speed)
    }

    /// Least squares x = xm + vx (t − tm), y = ym + vy (t − tm) through `points` but the one at `skipped`; nil for
    /// fewer than two distinct times. (Also the navigator's positions-only arrival track, in one dimension.)
    static func fit(_ points: [(t: Double, x: Double, y: Double)], skipping skipped: Int? = nil)
        -> (tm: Double, xm: Double, ym: Double, vx: Double, vy: Double, stt: Double)?
    {
        var n = 0, st = 0.0, sx = 0.0, sy = 0.0
        for (i, p) in points.enumerated() where i != skipped {
            n += 1
            st += p.t
            sx += p.x
            sy += p.y
        }
        guard n >= 2 else { return nil }
        let tm = st / Double(n), xm = sx / Double(n), ym = sy / Double(n)
        var stt = 0.0, stx = 0.0, sty = 0.0
        for (i, p) in points.enumerated() where i != skipped {
            let dt = p.t - tm
            stt += dt * dt
            stx += dt * (p.x - xm)
            sty += dt * (p.y - ym)
        }
        guard stt > 0 else { return nil }
        return (tm, xm, ym, stx / stt, sty / stt, stt)
    }
}
