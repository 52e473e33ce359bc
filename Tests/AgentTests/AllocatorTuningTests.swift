import Testing

@testable import Agent

@Suite struct AllocatorTuningTests {
    @Test func anOperatorsOwnAllocatorTuningWins() {
        #expect(!AllocatorTuning.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]))
    }

    @Test func appliesOnGlibc() {
        #if os(Linux)
        #expect(AllocatorTuning.apply(environment: [:]))
        #else
        #expect(!AllocatorTuning.apply(environment: [:]))
        #endif
    }
}
