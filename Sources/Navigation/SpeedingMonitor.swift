import Foundation

/// Hysteresis and reporting of the speeding monitor.
public struct SpeedingConfiguration: Sendable, Hashable {
    /// A severity, once reached, is kept until the excess falls this far (a fraction of the limit) below its
    /// threshold. Default 0.03: 1.5 km/h at 50 km/h, above the ±0.5 km/h jitter of Doppler speeds, so a driver
    /// holding 55 in a 50 zone with minor at 10 % gets one minor event, not a flapping series.
    public var hysteresisFraction: Double = 0.03
    /// While the severity stays the same, a new event only when the percentage moved at least this much. Default 2
    /// (percentage points): Doppler speed jitter of ±0.5 km/h is ±1 % at 50 km/h and must not produce a stream.
    public var percentageReportStep: Double = 2
    public init() {}
}

/// Turns (speed, limit) samples into SDK speeding events: percentage above the limit, severity from
/// `SpeedAlertOptions` with hysteresis and the severity upgrade duration.
struct SpeedingMonitor {
    var configuration: SpeedingConfiguration
    private var severity: SpeedAlertSeverity?
    private var aboveMinorSince: Date?
    private var lastPercentage: Double?

    init(configuration: SpeedingConfiguration) { self.configuration = configuration }

    mutating func reset() {
        severity = nil
        aboveMinorSince = nil
        lastPercentage = nil
    }

    /// An event when the severity changed or the percentage moved by the report step; nil otherwise.
    mutating func update(
        speedMetersPerSecond: Double?, limitKph: Double?, wayID: Int64?, options: SpeedAlertOptions,
        at time: Date
    ) -> SpeedingEvent? {
        guard let speed = speedMetersPerSecond, speed >= 0, speed.isFinite, let limit = limitKph, limit > 0 else {
            aboveMinorSince = nil
            guard severity != .unknown else { return nil }
            severity = .unknown
            lastPercentage = -1
            return SpeedingEvent(
                timestamp: time, percentageAboveLimit: -1, severity: .unknown,
                speedKph: speedMetersPerSecond.map { $0 * 3.6 }, speedLimitKph: limitKph, osmWayID: wayID)
        }
        let kph = speed * 3.6
        let excess = kph / limit - 1
        let percentage = max(0, excess * 100)
        let h = configuration.hysteresisFraction
        let current = severity ?? .notSpeeding
        func reached(_ threshold: Double?, holding: Bool) -> Bool {
            guard let threshold else { return false }
            return excess >= (holding ? threshold - h : threshold)
        }
        let isMajor = reached(options.majorThreshold, holding: current == .major)
        let isMinor = reached(options.minorThreshold, holding: current == .minor || current == .major)
        if isMinor {
            if aboveMinorSince == nil { aboveMinorSince = time }
        } else {
            aboveMinorSince = nil
        }
        var upgraded = false
        if let duration = options.severityUpgradeDurationSeconds, let since = aboveMinorSince,
            time.timeIntervalSince(since) > duration
        {
            upgraded = true
        }
        let next: SpeedAlertSeverity = isMajor || upgraded ? .major : (isMinor ? .minor : .notSpeeding)
        let previousPercentage = lastPercentage
        let moved =
            previousPercentage.map {
                abs($0 - percentage) >= configuration.percentageReportStep
                    || ($0 != 0) != (percentage != 0)
            } ?? true
        guard next != severity || moved else { return nil }
        severity = next
        lastPercentage = percentage
        return SpeedingEvent(
            timestamp: time, percentageAboveLimit: percentage, severity: next, speedKph: kph,
            speedLimitKph: limit, osmWayID: wayID)
    }
}
