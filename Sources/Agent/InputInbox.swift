import Foundation
import MQTT
import Synchronization

/// How much unprocessed input the agent keeps, and how fast one vehicle may feed it. Defaults documented per field;
/// topics.md ("Bounds") lists them.
public struct InboxLimits: Sendable, Equatable {
    /// Raw fixes closer than this in *fix time* to the last one a vehicle's navigator handled are skipped (counted in
    /// `agent/metrics` as `fixesThinned`): at most 25 fixes per second of the vehicle's own clock. A device uploading
    /// its backlog (fixes a second apart, sent as fast as the link goes) loses nothing; a flood of fixes microseconds
    /// apart costs a JSON decode each, not a map match. Default 0.04 s.
    public var minimumFixSpacingSeconds: Double = 0.04
    /// Raw fixes per second per vehicle, by arrival, that are queued at all; beyond this rate (after a burst of
    /// `fixArrivalBurst`) fixes are coalesced: the newest one waits, replacing any older waiting one, until the rate
    /// allows it. Bounds the decoding work one flooding vehicle causes. Default 1,000.
    public var maximumFixArrivalsPerSecond: Double = 1_000
    /// Fixes a vehicle may send back to back before the arrival rate applies (token bucket depth). Default 2,000.
    public var fixArrivalBurst: Int = 2_000
    /// Unhandled raw fixes kept per vehicle while the agent is busy; beyond, the oldest is dropped. Default 1,000.
    public var maximumQueuedFixesPerVehicle: Int = 1_000
    /// Unhandled raw fixes kept for all vehicles together; beyond, the oldest of the arriving fix's vehicle is dropped
    /// (or the arriving fix, when its vehicle has none waiting). Default 100,000 (about 15 MB of typical payloads).
    public var maximumQueuedFixes: Int = 100_000
    /// Unhandled assignments and commands kept per vehicle. They are never coalesced: one more is refused with
    /// `inboxFull` on `agent/error`. Default 64.
    public var maximumQueuedControlInputsPerVehicle: Int = 64
    /// Unhandled fleet-wide inputs (traffic, places, messages on unknown topics) kept; one more is refused with
    /// `inboxFull`. Default 10,000 (a broker replays every retained place at connect).
    public var maximumQueuedFleetInputs: Int = 10_000
    /// At most one `agent/error` per vehicle, code and input topic in this many seconds; further ones are counted
    /// and summarised once the interval has passed (`suppressedCount`). Default 1 s; 0 turns the limit off.
    public var errorIntervalSeconds: Double = 1
    /// A raw fix that finds the inbox idle is handled at once on the MQTT network thread (no hand-off to the agent's
    /// queue, no wake-up: the lowest latency), but the network thread spends at most this share of each
    /// `inlineWindowSeconds` that way; beyond, fixes go through the inbox until the next window, so the network
    /// thread stays free to read, acknowledge and send. Default 0.5; 0 always hands fixes to the queue.
    public var inlineShare: Double = 0.5
    /// The window `inlineShare` applies to. Default 0.01 s (so at most 5 ms of inline work in a row).
    public var inlineWindowSeconds: Double = 0.01

    public init() {}

    func validate() throws(AgentConfigurationError) {
        guard minimumFixSpacingSeconds >= 0, maximumFixArrivalsPerSecond > 0, maximumFixArrivalsPerSecond.isFinite,
              fixArrivalBurst >= 1, maximumQueuedFixesPerVehicle >= 1, maximumQueuedFixes >= 1,
              maximumQueuedControlInputsPerVehicle >= 1, maximumQueuedFleetInputs >= 1, errorIntervalSeconds >= 0,
              inlineShare >= 0, inlineShare <= 1, inlineWindowSeconds > 0, inlineWindowSeconds.isFinite
        else {
            throw .invalid("inbox limits", "\(self)", "rates, bursts and queue lengths must be positive")
        }
    }
}

/// Where an input goes, decided on the network thread from its topic alone.
enum InputTarget: Sendable, Equatable {
    case vehicle(String, VehicleInput)
    case traffic
    case place(String)
    /// A topic the agent does not read (answered with `unknownTopic`).
    case unknown
}

/// What a vehicle topic carries.
enum VehicleInput: Sendable, Equatable {
    case destinations, location, command
}

/// One input waiting to be handled.
struct InboxEntry: Sendable {
    let target: InputTarget
    let message: MQTTMessage
    /// Monotonic receive time (for the processing-latency metric and the rate limit).
    let receivedAtNanoseconds: UInt64
}

/// A FIFO whose head is removed in O(1) (to hand out, or to drop the oldest).
private struct EntryQueue {
    private var entries: [InboxEntry] = []
    private var head = 0
    var count: Int { entries.count - head }
    var isEmpty: Bool { head == entries.count }

    mutating func append(_ entry: InboxEntry) { entries.append(entry) }

    mutating func removeFirst() -> InboxEntry {
        let entry = entries[head]
        head += 1
        if head == entries.count {
            entries.removeAll(keepingCapacity: entries.count < 256)
            head = 0
        } else if head > 512, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return entry
    }
}

/// An input refused because its queue was full, to be answered on `agent/error` by the agent's queue (only it
/// publishes for a vehicle, so that vehicle's `seq` stays in order).
struct InboxRefusal: Sendable, Equatable {
    let target: InputTarget
    let topic: String
    /// Refused since the last report.
    let count: Int
    /// The first 120 bytes of the last refused payload.
    let payloadExcerpt: [UInt8]
}

/// Counters for `agent/metrics`.
struct InboxCounters: Sendable, Equatable {
    /// Fixes dropped because newer ones for the same vehicle were waiting (the agent was behind).
    var fixesDroppedBacklog = 0
    /// Fixes replaced by a newer one while their vehicle was over `maximumFixesPerSecond`.
    var fixesCoalescedRate = 0
    /// Assignments, commands and fleet-wide inputs refused with `inboxFull`.
    var inputsRefused = 0
    /// Entries waiting now (fixes, held fixes included, and other inputs).
    var depth = 0
}

/// The bounded inbox between the MQTT network thread and the agent's queue.
///
/// The network thread only classifies the topic and calls `put` (a lock and an append, never the navigator), so it is
/// free to send PUBACKs and outputs however large an inbound burst is. The agent's queue `take`s batches. Bounds are
/// `InboxLimits`: raw fixes per vehicle and in total (oldest dropped), one fix held back by the arrival rate limit per
/// vehicle, assignments and commands per vehicle and fleet-wide inputs (refused beyond, reported with `inboxFull`).
///
/// Order: fleet-wide inputs first; then vehicles take turns; within a vehicle, waiting assignments and commands go
/// before waiting fixes, each kind in arrival order (a fix held back by the rate limit joins when the rate allows).
/// All times are monotonic nanoseconds passed in by the caller, so tests drive the clock.
final class InputInbox: Sendable {
    let limits: InboxLimits
    private let state: Mutex<State>
    /// Entries one vehicle hands out before the next vehicle's turn.
    static let entriesPerTurn = 16

    init(limits: InboxLimits) {
        self.limits = limits
        state = Mutex(State())
    }

    /// True while a fix waits for the arrival rate (`releaseHeld` must then run every few milliseconds).
    var isHolding: Bool { state.withLock { !$0.holding.isEmpty } }

    private struct VehicleQueue {
        var fixes = EntryQueue()
        var control = EntryQueue()
        /// The newest fix over the arrival rate, waiting for a token.
        var held: InboxEntry?
        /// Token bucket: fixes allowed now, refilled at `maximumFixArrivalsPerSecond`.
        var tokens: Double
        var refilledAtNanoseconds: UInt64
        /// True while the vehicle id is in `State.ready`.
        var isReady = false
        var isEmpty: Bool { fixes.isEmpty && control.isEmpty }

        /// Assignments and commands first: they are rare and someone waits for them, while the fixes ahead of them are
        /// only samples of where the vehicle was (a burst may have queued a thousand).
        mutating func removeFirst() -> InboxEntry? {
            if !control.isEmpty { return control.removeFirst() }
            if !fixes.isEmpty { return fixes.removeFirst() }
            return nil
        }
    }

    private struct State {
        var vehicles: [String: VehicleQueue] = [:]
        /// Vehicles with entries to hand out, in turn order (each at most once).
        var ready: [String] = []
        var readyHead = 0
        /// Vehicles with a held fix.
        var holding: Set<String> = []
        var fleet = EntryQueue()
        var refusals: [String: (target: InputTarget, count: Int, excerpt: [UInt8])] = [:]
        var counters = InboxCounters()
        var queuedFixes = 0
        /// True from the first `put` into an empty inbox until a `take` finds it empty: the caller schedules one drain.
        var drainScheduled = false
        var lastSweepNanoseconds: UInt64 = 0
    }

    /// Queues one input. Returns true when the caller must schedule a drain (the inbox was idle).
    func put(_ entry: InboxEntry) -> Bool {
        state.withLock { state in
            switch entry.target {
            case .vehicle(let vehicleID, let input):
                put(entry, vehicleID: vehicleID, input: input, state: &state)
            case .traffic, .place, .unknown:
                if state.fleet.count >= limits.maximumQueuedFleetInputs {
                    refuse(entry, state: &state)
                } else {
                    state.fleet.append(entry)
                    state.counters.depth += 1
                }
            }
            return scheduleIfNeeded(&state)
        }
    }

    private func put(_ entry: InboxEntry, vehicleID: String, input: VehicleInput, state: inout State) {
        let now = entry.receivedAtNanoseconds
        // Taken out of the dictionary while changed, so its queues are uniquely referenced and append in place.
        var queue = state.vehicles.removeValue(forKey: vehicleID)
            ?? VehicleQueue(tokens: Double(limits.fixArrivalBurst), refilledAtNanoseconds: now)
        defer { state.vehicles[vehicleID] = queue }
        if input != .location {
            guard queue.control.count < limits.maximumQueuedControlInputsPerVehicle else {
                refuse(entry, state: &state)
                return
            }
            queue.control.append(entry)
            state.counters.depth += 1
            markReady(vehicleID, &queue, &state)
            return
        }
        refill(&queue, now: now)
        guard queue.tokens >= 1 else {
            // Over the rate: keep only the newest, for when a token comes.
            if queue.held != nil {
                state.counters.fixesCoalescedRate += 1
            } else {
                state.counters.depth += 1
            }
            queue.held = entry
            state.holding.insert(vehicleID)
            return
        }
        queue.tokens -= 1
        if queue.held != nil {
            // The held fix is older than this one: releasing it later would hand the navigator an out-of-order fix.
            queue.held = nil
            state.holding.remove(vehicleID)
            state.counters.fixesCoalescedRate += 1
            state.counters.depth -= 1
        }
        appendFix(entry, vehicleID: vehicleID, &queue, &state)
    }

    private func appendFix(_ entry: InboxEntry, vehicleID: String, _ queue: inout VehicleQueue, _ state: inout State) {
        if queue.fixes.count >= limits.maximumQueuedFixesPerVehicle || state.queuedFixes >= limits.maximumQueuedFixes {
            state.counters.fixesDroppedBacklog += 1
            guard !queue.fixes.isEmpty else { return }  // nothing of its own to give up: the arriving fix goes
            _ = queue.fixes.removeFirst()
            state.queuedFixes -= 1
            state.counters.depth -= 1
        }
        queue.fixes.append(entry)
        state.queuedFixes += 1
        state.counters.depth += 1
        markReady(vehicleID, &queue, &state)
    }

    private func refill(_ queue: inout VehicleQueue, now: UInt64) {
        guard now > queue.refilledAtNanoseconds else { return }
        let elapsed = Double(now - queue.refilledAtNanoseconds) / 1e9
        queue.tokens = min(Double(limits.fixArrivalBurst), queue.tokens + elapsed * limits.maximumFixArrivalsPerSecond)
        queue.refilledAtNanoseconds = now
    }

    private func markReady(_ vehicleID: String, _ queue: inout VehicleQueue, _ state: inout State) {
        guard !queue.isReady else { return }
        queue.isReady = true
        state.ready.append(vehicleID)
    }

    private func refuse(_ entry: InboxEntry, state: inout State) {
        state.counters.inputsRefused += 1
        let topic = entry.message.topic
        var refusal = state.refusals[topic] ?? (entry.target, 0, [])
        refusal.count += 1
        refusal.excerpt = Array(entry.message.payload.prefix(120))
        state.refusals[topic] = refusal
    }

    private func scheduleIfNeeded(_ state: inout State) -> Bool {
        guard !state.drainScheduled else { return false }
        // Held fixes alone are released by `releaseHeld`, not by a drain.
        let hasWork = state.readyHead < state.ready.count || !state.fleet.isEmpty || !state.refusals.isEmpty
        guard hasWork else { return false }
        state.drainScheduled = true
        return true
    }

    /// Moves held fixes whose vehicle has a token again into its queue (call every few milliseconds). Also forgets
    /// idle vehicles whose bucket is full. Returns true when the caller must schedule a drain.
    func releaseHeld(now: UInt64) -> Bool {
        state.withLock { state in
            for vehicleID in state.holding {
                guard var queue = state.vehicles.removeValue(forKey: vehicleID) else {
                    state.holding.remove(vehicleID)
                    continue
                }
                guard let held = queue.held else {
                    state.vehicles[vehicleID] = queue
                    state.holding.remove(vehicleID)
                    continue
                }
                refill(&queue, now: now)
                if queue.tokens >= 1 {
                    queue.tokens -= 1
                    queue.held = nil
                    state.counters.depth -= 1  // appendFix counts it again
                    appendFix(held, vehicleID: vehicleID, &queue, &state)
                    state.holding.remove(vehicleID)
                }
                state.vehicles[vehicleID] = queue
            }
            if now > state.lastSweepNanoseconds + 10_000_000_000 {
                state.lastSweepNanoseconds = now
                let fullAfterNanoseconds = UInt64(Double(limits.fixArrivalBurst) / limits.maximumFixArrivalsPerSecond * 1e9)
                state.vehicles = state.vehicles.filter { _, queue in
                    queue.isReady || queue.held != nil || now < queue.refilledAtNanoseconds + fullAfterNanoseconds
                }
            }
            return scheduleIfNeeded(&state)
        }
    }

    /// What one `take` hands out.
    struct Batch {
        var entries: [InboxEntry] = []
        /// Inputs refused since the last take, one per topic with a count.
        var refusals: [InboxRefusal] = []
        var isEmpty: Bool { entries.isEmpty && refusals.isEmpty }
    }

    /// Up to `maximum` entries (fleet-wide inputs first, then one vehicle's queue after another) and the refusals
    /// since the last take. An empty batch ends the drain: the next `put` or `releaseHeld` schedules another.
    func take(maximum: Int) -> Batch {
        state.withLock { state in
            var batch = Batch()
            batch.refusals = state.refusals.map { topic, refusal in
                InboxRefusal(target: refusal.target, topic: topic, count: refusal.count, payloadExcerpt: refusal.excerpt)
            }.sorted { $0.topic < $1.topic }
            state.refusals = [:]
            while batch.entries.count < maximum, !state.fleet.isEmpty {
                batch.entries.append(state.fleet.removeFirst())
            }
            while batch.entries.count < maximum, state.readyHead < state.ready.count {
                let vehicleID = state.ready[state.readyHead]
                guard var queue = state.vehicles.removeValue(forKey: vehicleID) else {
                    state.readyHead += 1
                    continue
                }
                var turn = 0
                while turn < Self.entriesPerTurn, batch.entries.count < maximum, let entry = queue.removeFirst() {
                    if case .vehicle(_, .location) = entry.target { state.queuedFixes -= 1 }
                    batch.entries.append(entry)
                    turn += 1
                }
                if queue.isEmpty {
                    queue.isReady = false
                    state.readyHead += 1
                } else if turn == Self.entriesPerTurn {
                    // Its turn is over: to the back of the line, so a flooding vehicle cannot hold up the others.
                    state.readyHead += 1
                    state.ready.append(vehicleID)
                }
                state.vehicles[vehicleID] = queue
            }
            if state.readyHead == state.ready.count {
                state.ready.removeAll(keepingCapacity: state.ready.count < 1024)
                state.readyHead = 0
            } else if state.readyHead > 4096 {
                state.ready.removeFirst(state.readyHead)
                state.readyHead = 0
            }
            state.counters.depth -= batch.entries.count
            if batch.isEmpty { state.drainScheduled = false }
            return batch
        }
    }

    var counters: InboxCounters { state.withLock { $0.counters } }
}
