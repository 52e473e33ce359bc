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
}

/// Smooths the position along the road with the neighbouring fixes' positions, times and speeds: a fixed-window
/// least-squares estimate, equivalent to a Kalman smoother over the window.
///
/// - When every fix in the window reports a speed, the speeds are integrated (trapezoids) to move each
///   neighbour's observed distance to the time of interest, and the moved observations are averaged with
///   weights 1 / (σ² + (σ_v·|Δt|)²): exact under any acceleration the speeds capture.
/// - Otherwise a constant-velocity line is fitted with weights 1 / (σ² + (½·a·Δt²)²).
///
/// A per-fix snap removes the GPS error across the road but keeps the error along it; averaging n neighbours
/// divides the along-road error by about √n.
enum AlongRoadSmoother {
    /// Estimated distance along the path at `samples[target].time`, and the speed (m/s) when it can be derived.
    static func estimate(
        _ samples: ArraySlice<OdometerSample>, target: Int, speedSigma: Double, accelerationSigma: Double
    ) -> (distance: Double?, speed: Double?) {
        let t0 = samples[target].time
        let allSpeeds = samples.allSatisfy { $0.speed != nil }
        if allSpeeds {
            // Integrated speed from the target to each sample.
            var sumW = 0.0, sumWX = 0.0
            var integral = 0.0
            // Forward from the target.
            var k = target
            while k < samples.endIndex {
                if k > target {
                    integral += 0.5 * (samples[k - 1].speed! + samples[k].speed!) * (samples[k].time - samples[k - 1].time)
                }
                if let d = samples[k].distance {
                    let dt = samples[k].time - t0
                    let w = 1 / (samples[k].sigma * samples[k].sigma + speedSigma * speedSigma * dt * dt)
                    sumW += w
                    sumWX += w * (d - integral)
                }
                k += 1
            }
            integral = 0
            k = target - 1
            while k >= samples.startIndex {
                integral -= 0.5 * (samples[k].speed! + samples[k + 1].speed!) * (samples[k + 1].time - samples[k].time)
                if let d = samples[k].distance {
                    let dt = samples[k].time - t0
                    let w = 1 / (samples[k].sigma * samples[k].sigma + speedSigma * speedSigma * dt * dt)
                    sumW += w
                    sumWX += w * (d - integral)
                }
                k -= 1
            }
            return (sumW > 0 ? sumWX / sumW : nil, samples[target].speed)
        }
        // Weighted constant-velocity fit s = a + b·τ.
        var sw = 0.0, st = 0.0, stt = 0.0, ss = 0.0, sts = 0.0
        var n = 0
        for s in samples {
            guard let d = s.distance else { continue }
            let tau = s.time - t0
            let model = 0.5 * accelerationSigma * tau * tau
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
