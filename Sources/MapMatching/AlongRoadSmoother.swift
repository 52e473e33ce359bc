import Foundation
import Geo
import RoadGraph

/// One fix on the matched path, for the along-road smoother.
struct OdometerSample {
    /// Seconds.
    var time: Double
    /// Distance travelled along the matched path (any origin), metres; nil for a fix rejected as an outlier.
    var distance: Double?
    /// The fix's reported speed, m/s; nil when unknown.
    var speed: Double?
    /// Standard deviation of `distance` (the fix's σ_z), metres.
    var sigma: Double
    /// The matched edge (nil for an outlier) and the road's direction where it starts and where it ends
    /// (degrees), for `removeCornerCuts`.
    var edge: EdgeID? = nil
    var entryBearing: Double = 0
    var exitBearing: Double = 0
}

/// Smooths the position along the road with the neighbouring fixes' positions, times and speeds: a fixed-window
/// least-squares estimate, equivalent to a Kalman smoother over the window.
///
/// - When every fix in the window reports a speed, the speeds are integrated (trapezoids) to move each
///   neighbour's observed distance to the time of interest, and the moved observations are averaged with
///   weights 1 / (σ² + Σ(σ_v²·δt + (0.29·|δv|·δt)²) + (ε·D)²) over the intervals δt between them, D the integrated
///   distance: independent speed errors add up like a random walk, a trapezoid misses where in an interval the
///   speed changed, and a scale error (receiver speed against map length) grows with the distance driven. A
///   standing vehicle's neighbours therefore count almost fully however long ago they were taken. An observation
///   moved across sharp turns of the path gets (`sharpTurnSigma` · turns)² more: the path's length through a
///   junction is the least certain part of the odometer.
/// - Otherwise a standing target (speed 0) is averaged with the standing samples next to it when
///   `standingRunSmoothing` is set (as above: they all have a speed); else a constant-acceleration curve is fitted
///   with weights 1 / (σ² + (j·|Δt|³/6)²) when `jerk` is set and at least four positions determine it, else a
///   constant-velocity line with weights 1 / (σ² + (½·a·Δt²)²).
///
/// Robustness: a first estimate from the `nearSamples` nearest neighbours only; then every observation within
/// `rejectionSigmas` standard deviations of it is averaged (a stretch matched on the wrong road or a detour on the
/// decided path offsets all older positions, and must not drag the estimate).
///
/// A per-fix snap removes the GPS error across the road but keeps the error along it; averaging n neighbours
/// divides the along-road error by about √n.
enum AlongRoadSmoother {
    /// Moves the samples' distances from the map's odometer (along the centre lines, through each node) to the
    /// distance a vehicle drives, which turns on an arc instead of through the node: between consecutive samples
    /// on different edges, θ the turn from the end of the first edge to the start of the second (the curves of
    /// the edges themselves are driven as drawn), the arc of radius r tangent to both centre lines is
    /// r·(2·tan(θ/2) − θ) shorter (θ capped at 120°; at most half of the move between the samples; a move backwards
    /// over the node gives it back). The integrated speeds measure driven distance, so without this the fixes
    /// before a turn place the fixes after it too far back, and the fixes after it place those before too far
    /// ahead. Returns the cut removed up to `samples[target]` (subtract it from the target's map odometer to
    /// compare with the estimate).
    static func removeCornerCuts(_ samples: inout [OdometerSample], target: Int, radiusMeters r: Double) -> Double {
        var removed = 0.0
        guard r > 0 else { return removed }
        var total = 0.0
        var previous: (edge: EdgeID, exitBearing: Double, distance: Double)?
        for k in samples.indices {
            if let d = samples[k].distance, let e = samples[k].edge {
                if let p = previous, p.edge != e {
                    let move = d - p.distance
                    let turn = Geodesy.bearingDifferenceDegrees(p.exitBearing, samples[k].entryBearing)
                    let theta = min(turn, 120) * .pi / 180
                    let cut = min(r * (2 * tan(theta / 2) - theta), 0.5 * abs(move))
                    total += move >= 0 ? cut : -cut
                }
                previous = (e, samples[k].exitBearing, d)
                samples[k].distance = d - total
            }
            if k == target { removed = total }
        }
        return removed
    }

    /// Noise model of the smoother.
    struct Model {
        /// σ_v: random-walk growth of the integrated-speed error, m/s per √s (variance σ_v²·|Δt|).
        var speedNoise: Double
        /// ε: relative error of the integrated distance (speed scale against map length), fraction.
        var speedScale: Double
        /// Acceleration scale of the constant-velocity fit, m/s².
        var acceleration: Double
        /// Observations this many standard deviations off the first estimate are dropped. 0 disables.
        var rejectionSigmas: Double
        /// Reported speeds below this count as standing still, m/s.
        var standingSpeed: Double
        /// Neighbours within this many samples of the target make the first estimate that the others must agree
        /// with (within `rejectionSigmas`).
        var nearSamples: Int
        /// Jerk scale of the constant-acceleration fit used without speeds, m/s³; 0: the constant-velocity fit.
        var jerk: Double = 0
        /// The fixes' speeds lag their positions by half this (see
        /// `MapMatchingConfiguration.speedStepSeconds`), seconds.
        var speedLagSeconds: Double = 0
        /// The uncertainty of where the speed changed is this many times larger over an interval that ends
        /// standing (see `MapMatchingConfiguration.stoppingIntervalUncertaintyFactor`).
        var stoppingChangeFactor: Double = 1
        /// Without speeds, a standing target is averaged with its stop's samples only, unless the stop ends within
        /// `standingRunEndSeconds` after it (see `MapMatchingConfiguration.positionsOnlyStandingRunSmoothing`).
        var standingRunSmoothing = false
        /// Seconds.
        var standingRunEndSeconds: Double = 0
        /// With speeds, an observation moved across a turn sharper than `sharpTurnDegrees` gets this much more
        /// standard deviation per such turn, metres (see `MapMatchingConfiguration.sharpTurnPathSigmaMeters`). 0
        /// disables.
        var sharpTurnSigma: Double = 0
        /// Degrees.
        var sharpTurnDegrees: Double = 180
    }

    /// Weighted constant-acceleration fit s = a + b·τ + c·τ² with weights 1 / (σ² + (j·|τ|³/6)²); nil when the
    /// samples do not determine it (fewer than four, or a singular system).
    static func constantAccelerationFit(
        _ samples: ArraySlice<OdometerSample>, at t0: Double, jerk: Double
    ) -> (distance: Double?, speed: Double?)? {
        // Normal equations: moments m_k = Σ w τ^k (k = 0…4) and r_k = Σ w τ^k d (k = 0…2).
        var m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0, m4 = 0.0, r0 = 0.0, r1 = 0.0, r2 = 0.0
        var n = 0
        for s in samples {
            guard let d = s.distance else { continue }
            let tau = s.time - t0
            let modelError = jerk * abs(tau * tau * tau) / 6
            let w = 1 / (s.sigma * s.sigma + modelError * modelError)
            let t2 = tau * tau
            m0 += w; m1 += w * tau; m2 += w * t2; m3 += w * t2 * tau; m4 += w * t2 * t2
            r0 += w * d; r1 += w * tau * d; r2 += w * t2 * d
            n += 1
        }
        guard n >= 4 else { return nil }
        // Cramer's rule on [[m0 m1 m2] [m1 m2 m3] [m2 m3 m4]] · (a b c) = (r0 r1 r2).
        let det = m0 * (m2 * m4 - m3 * m3) - m1 * (m1 * m4 - m3 * m2) + m2 * (m1 * m3 - m2 * m2)
        guard abs(det) > 1e-12 * m0 * m2 * m4 else { return nil }
        let a = (r0 * (m2 * m4 - m3 * m3) - m1 * (r1 * m4 - m3 * r2) + m2 * (r1 * m3 - m2 * r2)) / det
        let b = (m0 * (r1 * m4 - m3 * r2) - r0 * (m1 * m4 - m3 * m2) + m2 * (m1 * r2 - r1 * m2)) / det
        return (a, b)
    }

    /// Estimated distance along the path at `samples[target].time`, and the speed (m/s) when it can be derived.
    static func estimate(
        _ samples: ArraySlice<OdometerSample>, target: Int, model: Model
    ) -> (distance: Double?, speed: Double?) {
        let t0 = samples[target].time
        let allSpeeds = samples.allSatisfy { $0.speed != nil }
        if allSpeeds {
            // Speeds below the standing speed are receiver noise around zero (never negative, so they would
            // add up to metres of phantom travel over a long stop).
            @inline(__always) func speed(_ k: Int) -> Double {
                let v = samples[k].speed!
                return v < model.standingSpeed ? 0 : v
            }
            // Whether the path turns sharply from sample `a`'s edge to the edge of `b`, the next sample on a road
            // after it (`Model.sharpTurnSigma`).
            @inline(__always) func turnsSharply(from a: Int, to b: Int) -> Bool {
                guard let ea = samples[a].edge, let eb = samples[b].edge, ea != eb else { return false }
                return Geodesy.bearingDifferenceDegrees(samples[a].exitBearing, samples[b].entryBearing)
                    > model.sharpTurnDegrees
            }
            // Calls `body` with each observation moved to the target's time and its variance. One interval's
            // trapezoid carries speed noise and the error of not knowing where in the interval the speed changed
            // (up to ½·|Δv|·Δt; σ of a uniform position of the change ≈ 0.29·|Δv|·Δt), more when it ends standing:
            // a vehicle brakes to a stop early in the interval, not at a uniformly random moment.
            func forEachMoved(_ body: (_ value: Double, _ variance: Double, _ near: Bool) -> Void) {
                var integral = 0.0, integralVariance = 0.0
                for direction in stride(from: 1, through: -1, by: -2) {
                    integral = 0
                    integralVariance = 0
                    var sharpTurns = 0.0
                    // The sample on a road nearest the target on the side walked so far.
                    var lastOnRoad = samples[target].edge != nil ? target : nil
                    var k = direction > 0 ? target : target - 1
                    while k >= samples.startIndex && k < samples.endIndex {
                        if model.sharpTurnSigma > 0, k != target, samples[k].edge != nil {
                            if let last = lastOnRoad,
                               direction > 0 ? turnsSharply(from: last, to: k) : turnsSharply(from: k, to: last)
                            {
                                sharpTurns += 1
                            }
                            lastOnRoad = k
                        }
                        if k != target {
                            let a = direction > 0 ? k - 1 : k, b = a + 1
                            let dt = samples[b].time - samples[a].time
                            var change = 0.29 * abs(speed(b) - speed(a)) * dt
                            if speed(b) == 0 && speed(a) > 0 { change *= model.stoppingChangeFactor }
                            let shift = dt > 0 ? min(1, model.speedLagSeconds / dt) : 0
                            let mean = 0.5 * (speed(a) + speed(b)) + shift * 0.5 * (speed(b) - speed(a))
                            integral += Double(direction) * mean * dt
                            integralVariance += model.speedNoise * model.speedNoise * dt + change * change
                        }
                        if let d = samples[k].distance {
                            let scale = model.speedScale * integral
                            let turn = model.sharpTurnSigma * sharpTurns
                            body(d - integral,
                                 samples[k].sigma * samples[k].sigma + integralVariance + scale * scale + turn * turn,
                                 abs(k - target) <= model.nearSamples)
                        }
                        k += direction
                    }
                }
            }
            // The observations moved once, in the order `forEachMoved` gives them (the means below pass over them
            // two or three times, and summing in the same order gives the same bits).
            return withUnsafeTemporaryAllocation(of: (value: Double, variance: Double, near: Bool).self,
                                                 capacity: samples.count) { moved in
                var movedCount = 0
                forEachMoved { value, variance, near in
                    moved[movedCount] = (value, variance, near)
                    movedCount += 1
                }
                // First the near neighbours alone, then every neighbour that agrees with them: a stretch of older
                // positions offset by a detour on the decided path must not drag the estimate.
                func mean(nearOnly: Bool, within limit: Double?, of center: Double) -> Double? {
                    var sumW = 0.0, sumWX = 0.0
                    for (value, variance, near) in moved[..<movedCount] {
                        if nearOnly && !near { continue }
                        if let limit, abs(value - center) > limit * variance.squareRoot() { continue }
                        sumW += 1 / variance
                        sumWX += value / variance
                    }
                    return sumW > 0 ? sumWX / sumW : nil
                }
                guard let nearMean = mean(nearOnly: true, within: nil, of: 0) ?? mean(nearOnly: false, within: nil, of: 0)
                else { return (nil, samples[target].speed) }
                if model.rejectionSigmas > 0, let all = mean(nearOnly: false, within: model.rejectionSigmas, of: nearMean) {
                    return (all, samples[target].speed)
                }
                return (mean(nearOnly: false, within: nil, of: 0) ?? nearMean, samples[target].speed)
            }
        }
        if model.standingRunSmoothing, samples[target].speed == 0 {
            // A standing fix without speeds in the window: the fixes of its own stop (standing samples, speed 0, next
            // to it) measure the same point, the moving ones before and after would bend the fitted curve. Not
            // within `standingRunEndSeconds` of the stop's last sample when moving samples follow: the standing
            // test (a line through 12 s of positions) notices a vehicle pulling away a few seconds late.
            var lo = target, hi = target
            while lo > samples.startIndex && samples[lo - 1].speed == 0 { lo -= 1 }
            while hi < samples.endIndex - 1 && samples[hi + 1].speed == 0 { hi += 1 }
            let departs = hi < samples.endIndex - 1 && samples[hi].time - t0 < model.standingRunEndSeconds
            if hi > lo && (lo > samples.startIndex || hi < samples.endIndex - 1) && !departs {
                return estimate(samples[lo...hi], target: target, model: model)
            }
        }
        if model.jerk > 0, let fit = constantAccelerationFit(samples, at: t0, jerk: model.jerk) { return fit }
        // Weighted constant-velocity fit s = a + b·τ.
        var sw = 0.0, st = 0.0, stt = 0.0, ss = 0.0, sts = 0.0
        var n = 0
        for s in samples {
            guard let d = s.distance else { continue }
            let tau = s.time - t0
            let model = 0.5 * model.acceleration * tau * tau
            let w = 1 / (s.sigma * s.sigma + model * model)
            sw += w; st += w * tau; stt += w * tau * tau; ss += w * d; sts += w * tau * d
            n += 1
        }
        guard n > 0, sw > 0 else { return (nil, nil) }
        let det = sw * stt - st * st
        if n < 2 || det <= 1e-12 * sw * sw { return (ss / sw, nil) }
        let b = (sw * sts - st * ss) / det
        let a = (ss - b * st) / sw
        return (a, b)
    }
}
