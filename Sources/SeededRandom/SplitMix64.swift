import Foundation

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny seeded generator for everything that must reproduce — simulated
/// drives, randomized tests, benchmark workloads, the router's landmark choice — without global random state.
/// One copy for the whole package, so a sequence drawn in a test is the one a benchmark or a simulator draws.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform deviate in [0, 1) from the top 53 bits of the next output.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// A standard normal deviate (Box–Muller).
    public mutating func normal() -> Double {
        let u1 = max(Double.leastNonzeroMagnitude, Double.random(in: 0..<1, using: &self))
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
