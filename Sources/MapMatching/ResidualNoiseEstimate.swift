import Foundation

/// The GPS noise a matcher sees, estimated from its own decided answers: σ_z ≈ 1.4826 × the median distance between
/// a fix and the road position decided for it (Newson & Krumm 2009; for a Gaussian per-axis error σ the
/// distance across the road is |N(0, σ)|, whose median is 0.6745 σ). The median ignores the outliers that the matcher
/// did not coast through, and coasted fixes and standing vehicles' averaged fixes are not recorded at all.
///
/// Bounded memory, no allocation after `init`: the distances go into a histogram of `binCount` bins of `binMeters`
/// (longer ones into the last bin, which only the median's rank sees) whose weights decay exponentially with time
/// since they were recorded (`timeConstantSeconds`), but never faster than over `minimumMemoryFixes` recorded fixes,
/// so that sparse fixes keep enough of them for a steady median. Decay is applied lazily: each new sample weighs
/// 1/λ more than the one before, and all weights are rescaled now and then.
struct ResidualNoiseEstimate {
    static let binMeters = 0.5
    static let binCount = 80

    let timeConstantSeconds: Double
    let minimumMemoryFixes: Double
    let evidenceFixes: Double
    let medianToSigma: Double

    /// Weights of distances in [i·binMeters, (i+1)·binMeters), in units that grow with `increment`.
    private var bins: [Double]
    private var total = 0.0
    /// The weight of the next sample (the newest sample's weight is 1 once all are divided by this).
    private var increment = 1.0
    private var lastTime: Double?
    /// The current estimate of σ_z, metres; nil until `evidenceFixes` samples' worth of weight was recorded.
    private(set) var sigmaMeters: Double?

    init(timeConstantSeconds: Double, minimumMemoryFixes: Double, evidenceFixes: Double, medianToSigma: Double) {
        self.timeConstantSeconds = timeConstantSeconds
        self.minimumMemoryFixes = minimumMemoryFixes
        self.evidenceFixes = evidenceFixes
        self.medianToSigma = medianToSigma
        bins = Array(repeating: 0, count: Self.binCount)
    }

    /// Records the distance (metres) between a fix taken at `time` (seconds) and its decided road position.
    mutating func record(distanceMeters: Double, time: Double) {
        guard distanceMeters.isFinite, time.isFinite else { return }
        if let last = lastTime {
            // Older samples count λ = max(e^(−Δt/τ), 1 − 1/n) times less per recorded fix.
            let dt = max(0, time - last)
            let byTime = timeConstantSeconds > 0 ? exp(-dt / timeConstantSeconds) : 0
            let byCount = minimumMemoryFixes > 1 ? 1 - 1 / minimumMemoryFixes : 0
            let lambda = max(byTime, byCount)
            if lambda <= 0 {
                for i in bins.indices { bins[i] = 0 }
                total = 0
                increment = 1
            } else {
                increment /= lambda
            }
        }
        lastTime = time
        if increment > 1e100 {
            let scale = 1 / increment
            for i in bins.indices { bins[i] *= scale }
            total *= scale
            increment = 1
        }
        let bin = min(Self.binCount - 1, max(0, Int(distanceMeters / Self.binMeters)))
        bins[bin] += increment
        total += increment
        guard total >= evidenceFixes * increment else { return }
        // The median, interpolated within its bin.
        let half = 0.5 * total
        var cumulative = 0.0
        var median = Double(Self.binCount) * Self.binMeters
        for i in 0..<Self.binCount {
            let w = bins[i]
            if cumulative + w >= half {
                median = (Double(i) + (w > 0 ? (half - cumulative) / w : 0)) * Self.binMeters
                break
            }
            cumulative += w
        }
        sigmaMeters = medianToSigma * median
    }
}
