import SeededRandom
import Testing

@Suite struct SplitMix64Tests {
    /// The reference outputs for seed 1234567 (Rosetta Code's SplitMix64 task), so a changed constant is caught.
    @Test func matchesTheReferenceSequence() {
        var rng = SplitMix64(seed: 1_234_567)
        let expected: [UInt64] = [
            6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
        ]
        #expect((0..<5).map { _ in rng.next() } == expected)
    }

    @Test func sameSeedSameSequenceAndUnitDeviatesStayInRange() {
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        for _ in 0..<1000 {
            let u = a.nextUnit()
            #expect(u >= 0 && u < 1)
            #expect(u == b.nextUnit())
        }
    }

    @Test func normalDeviatesHaveUnitSpread() {
        var rng = SplitMix64(seed: 7)
        let samples = (0..<20_000).map { _ in rng.normal() }
        let mean = samples.reduce(0, +) / Double(samples.count)
        let variance = samples.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(samples.count)
        #expect(abs(mean) < 0.03)
        #expect(abs(variance - 1) < 0.05)
    }
}
