import SeededRandom

/// The package's seeded generator under the name the test targets use, so randomized tests reproduce their failures.
public typealias SeededGenerator = SplitMix64
