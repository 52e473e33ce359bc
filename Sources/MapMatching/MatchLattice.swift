import Geo
import RoadGraph

/// A hidden state of the HMM at one fix: the vehicle is at a road position, or — for a "coasting" state — the fix
/// is an outlier and the vehicle is somewhere past the road position of an earlier fix (its anchor).
struct LatticeState {
    var edge: EdgeID
    /// Along `edge` from its source, metres.
    var offset: Double
    /// From the fix to the road position, metres (road states only).
    var distance: Double
    /// Log-likelihood of the fix given this state (0 for coasting states: their cost is in the transition).
    var emission: Double
    /// 0 for a road state; n for the n-th consecutive coasted fix.
    var coastCount: Int
    /// Position, time and speed of the fix this state's road position was observed at (the anchor's for a
    /// coasting state): transitions from this state are measured from there.
    var referenceLatitude: Double
    var referenceLongitude: Double
    var referenceTime: Double
    /// m/s; negative when unknown.
    var referenceSpeed: Double
    /// The edge this state's best path was on before `edge` (`.max` when unknown): jitter may move a position
    /// back over the junction behind, but only onto the road the vehicle came from.
    var arrivedFrom: EdgeID = .max
    /// How far the raw fix lies ahead of the observed point along the road, metres: 0 unless the HMM observes the
    /// mean of a standing vehicle's fixes, whose raw fixes the along-road smoother averages instead.
    var alongDelta: Double = 0
    /// How far this state lies behind the farthest position its best path reached on `edge` (or on the edge
    /// behind, after jitter back over the junction), metres: backward moves add to it, forward moves pay it off
    /// (`maximumBackwardDriftMeters`).
    var backwardDriftMeters: Double = 0

    var isCoast: Bool { coastCount > 0 }
}

/// One column of the Viterbi lattice: the states of one fix, their scores and back pointers, and the full
/// transition matrix from the previous column (kept so that scores can be recomputed after a decision).
///
/// Its arrays are `@exclusivity(unchecked)`: the matcher reads them for every state and pair of every fix of its
/// window (back pointers, scores, moves), and each read of a class's stored property otherwise costs a dynamic
/// exclusivity check in the runtime (5–8 % of the matcher's instructions). A step belongs to one matcher, used
/// from one thread, and no access to these arrays overlaps another (the loops work on local copies).
final class LatticeStep {
    var fixIndex = 0
    var fix = LocationFix(coordinate: Coordinate(latitude: 0, longitude: 0), timestamp: 0)
    /// The position the HMM observes: the fix's, or the mean of the standing vehicle's fixes so far.
    var observed = Coordinate(latitude: 0, longitude: 0)
    /// σ_z of the observation, metres.
    var sigma = 0.0
    /// True when the fix belongs to a run of standing fixes (the observation is their mean).
    var standing = false
    /// σ_z of the raw fix, metres (larger than `sigma` when the observation is a standing vehicle's mean).
    var rawSigma = 0.0
    var radius = 0.0
    @exclusivity(unchecked) var states: [LatticeState] = []
    /// δ: best log-probability of a path ending in each state (normalised: the best is 0).
    @exclusivity(unchecked) var score: [Double] = []
    /// Index of the best predecessor in the previous step; -1 for none.
    @exclusivity(unchecked) var back: [Int32] = []
    /// Log transition probability from previous state a to state b at a * states.count + b.
    @exclusivity(unchecked) var transition: [Double] = []
    /// Signed distance moved along the road from previous state a to state b, metres (same indexing).
    @exclusivity(unchecked) var advance: [Double] = []
    var previousCount = 0
    /// True when the step has no predecessor (the first fix, or after a restart).
    var isStart = true
    /// The decided state, once committed.
    var committed = -1

    func reset(fixIndex: Int, fix: LocationFix, observed: Coordinate, sigma: Double, rawSigma: Double,
               radius: Double) {
        self.fixIndex = fixIndex
        self.fix = fix
        self.observed = observed
        self.sigma = sigma
        self.rawSigma = rawSigma
        standing = false
        self.radius = radius
        states.removeAll(keepingCapacity: true)
        score.removeAll(keepingCapacity: true)
        back.removeAll(keepingCapacity: true)
        transition.removeAll(keepingCapacity: true)
        advance.removeAll(keepingCapacity: true)
        previousCount = 0
        isStart = true
        committed = -1
    }

    /// This fix as an along-road smoother sample at odometer `distance` (nil for a coasted fix): a standing
    /// vehicle without a reported speed counts as moving at 0 m/s.
    func sample(distance: Double?) -> OdometerSample {
        OdometerSample(time: fix.timestamp, distance: distance, speed: fix.validSpeed ?? (standing ? 0 : nil),
                       sigma: rawSigma)
    }

    var bestState: Int? {
        var best = -1
        var bestScore = -Double.infinity
        for (i, s) in score.enumerated() where s > bestScore {
            best = i
            bestScore = s
        }
        return best >= 0 ? best : nil
    }

    /// Recomputes scores and back pointers from the previous step's scores. Returns false when nothing changed
    /// (scores, back pointers and `arrivedFrom` as before), so later steps need no recomputing either.
    @discardableResult
    func recompute(from previous: LatticeStep) -> Bool {
        // Local copies (moved out, then back) keep exclusivity checks out of the loops.
        var score: [Double] = []
        var back: [Int32] = []
        var states: [LatticeState] = []
        swap(&score, &self.score)
        swap(&back, &self.back)
        swap(&states, &self.states)
        let transition = self.transition
        let advance = self.advance
        let previousScore = previous.score
        let previousStates = previous.states
        let n = states.count
        var unnormalised: [Double] = []
        swap(&unnormalised, &self.unnormalised)
        unnormalised.refill(-Double.infinity, count: n)
        // Only predecessors with a finite score can win (−∞ + anything never beats −∞, and NaN never compares
        // greater): after a decision all but one of the decided step's scores are −∞, and pruned states' rows hold
        // −∞. Their indices in increasing order keep the first-best tie-break. In a temporary buffer: an array's
        // append checked its uniqueness, a runtime call per live state.
        let changed = withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(1, previousCount)) { liveBuffer in
            var liveCount = 0
            for a in 0..<previousCount where previousScore[a] > -Double.infinity {
                liveBuffer[liveCount] = Int32(a)
                liveCount += 1
            }
            let live = UnsafeBufferPointer(rebasing: liveBuffer[..<liveCount])
            // Through buffer pointers: no uniqueness or bounds checks per state and pair.
            return score.withUnsafeMutableBufferPointer { score in
                back.withUnsafeMutableBufferPointer { back in
                    states.withUnsafeMutableBufferPointer { states in
                        unnormalised.withUnsafeMutableBufferPointer { unnormalised in
                            transition.withUnsafeBufferPointer { t in
                                advance.withUnsafeBufferPointer { advance in
                                    previousScore.withUnsafeBufferPointer { p in
                                        previousStates.withUnsafeBufferPointer { previousStates in
                                            Self.recompute(score: score, back: back, states: states,
                                                           unnormalised: unnormalised, transition: t,
                                                           advance: advance, previousScore: p,
                                                           previousStates: previousStates, live: live)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        swap(&score, &self.score)
        swap(&back, &self.back)
        swap(&states, &self.states)
        swap(&unnormalised, &self.unnormalised)
        return changed
    }

    /// The loops of `recompute(from:)`.
    private static func recompute(score: UnsafeMutableBufferPointer<Double>, back: UnsafeMutableBufferPointer<Int32>,
                                  states: UnsafeMutableBufferPointer<LatticeState>,
                                  unnormalised: UnsafeMutableBufferPointer<Double>, transition t: UnsafeBufferPointer<Double>,
                                  advance: UnsafeBufferPointer<Double>, previousScore p: UnsafeBufferPointer<Double>,
                                  previousStates: UnsafeBufferPointer<LatticeState>, live: UnsafeBufferPointer<Int32>) -> Bool {
        let n = states.count
        var top = -Double.infinity
        var changed = false
        for b in 0..<n {
            var best = -Double.infinity
            var arg: Int32 = -1
            for a32 in live {
                let a = Int(a32)
                // Wrapping index arithmetic: a < previous count and b < n, so a·n + b < the matrix's size.
                let v = p[a] + t[a &* n &+ b]
                if v > best { best = v; arg = a32 }
            }
            let value = best + states[b].emission
            // Scores are stored normalised (minus the step's top); compared after normalising, below.
            unnormalised[b] = value
            if back[b] != arg { changed = true }
            back[b] = arg
            if arg >= 0 {
                let aEdge = previousStates[Int(arg)].edge
                let arrived: EdgeID
                if aEdge == states[b].edge {
                    arrived = previousStates[Int(arg)].arrivedFrom
                } else {
                    let move = advance[Int(arg) * n + b]
                    arrived = move < 0 || move.isNaN ? .max : aEdge
                }
                if states[b].arrivedFrom != arrived { changed = true }
                states[b].arrivedFrom = arrived
                // Backward drift: grows by a backward move on the same edge or back over the junction, shrinks by a
                // forward one, and starts from 0 on a new edge ahead or after a restart (NaN move).
                let move = advance[Int(arg) &* n &+ b]
                let before = previousStates[Int(arg)].backwardDriftMeters
                let drift = move.isNaN ? 0 : aEdge == states[b].edge ? max(0, before - move) : move < 0 ? before - move : 0
                if states[b].backwardDriftMeters != drift { changed = true }
                states[b].backwardDriftMeters = drift
            }
            if value > top { top = value }
        }
        for b in 0..<n {
            let value = top.isFinite ? unnormalised[b] - top : unnormalised[b]
            if value != score[b] && !(value.isNaN && score[b].isNaN) { changed = true }
            score[b] = value
        }
        return changed
    }

    /// Scratch of `recompute` (scores before normalisation).
    private var unnormalised: [Double] = []
}

extension Array {
    /// Makes the array `n` copies of `value`, reusing its buffer. `removeAll(keepingCapacity:)` followed by
    /// `append(contentsOf: repeatElement(value, count: n))` stored the elements one at a time through the generic
    /// sequence path (the lattice's matrices are refilled on every fix); this writes them in one pass over the buffer.
    @inline(__always) mutating func refill(_ value: Element, count n: Int) {
        if count > n {
            removeLast(count - n)
        } else if count < n {
            append(contentsOf: repeatElement(value, count: n - count))
        }
        withUnsafeMutableBufferPointer { $0.update(repeating: value) }
    }
}
