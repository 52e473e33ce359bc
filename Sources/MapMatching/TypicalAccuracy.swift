import Foundation

/// The accuracy a receiver usually reports, metres: an exponentially weighted mean of the logarithm of its recent
/// reported accuracies (a geometric mean), so that a fix reporting several times its usual figure stands out
/// (`MapMatchingConfiguration.accuracyRiseWidensBand`). A report `timeConstantSeconds` old counts e^−1 as much as
/// a new one, but the weights never decay faster than over `minimumMemoryFixes` fixes. A few bytes, no allocation.
struct TypicalAccuracy {
    let timeConstantSeconds: Double
    let minimumMemoryFixes: Double
    let evidenceFixes: Int

    private var logMean = 0.0
    private var count = 0
    private var lastTime: Double?

    init(timeConstantSeconds: Double, minimumMemoryFixes: Double, evidenceFixes: Int) {
        self.timeConstantSeconds = timeConstantSeconds
        self.minimumMemoryFixes = minimumMemoryFixes
        self.evidenceFixes = evidenceFixes
    }

    /// The typical reported accuracy, metres; nil until `evidenceFixes` fixes reported one.
    var meters: Double? { count >= evidenceFixes ? exp(logMean) : nil }

    /// Records a fix's reported accuracy (metres, positive) at `time` (seconds).
    mutating func record(accuracyMeters: Double, time: Double) {
        guard accuracyMeters > 0, accuracyMeters.isFinite, time.isFinite else { return }
        let value = log(accuracyMeters)
        defer {
            lastTime = time
            if count < Int.max { count += 1 }
        }
        guard let last = lastTime else {
            logMean = value
            return
        }
        // The new fix's weight: what the older ones lose by time, but at most 1/`minimumMemoryFixes` (sparse fixes
        // keep that many in memory); while fewer fixes were seen, their plain mean.
        let dt = max(0, time - last)
        let byTime = timeConstantSeconds > 0 ? 1 - exp(-dt / timeConstantSeconds) : 1
        let byCount = minimumMemoryFixes > 1 ? 1 / minimumMemoryFixes : 1
        let weight = max(min(byTime, byCount), 1 / Double(count + 1))
        logMean += weight * (value - logMean)
    }
}
