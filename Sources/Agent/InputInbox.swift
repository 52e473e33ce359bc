import Foundation
import MQTT
import Synchronization

/// How much unprocessed input the agent keeps, and how fast one vehicle may feed it. Defaults documented per field;
/// topics.md ("Bounds") lists them.
public struct InboxLimits: Sendable, Equatable {
    /// Raw fixes per second per vehicle handed to its navigator. Beyond this rate fixes are coalesced: the vehicle's
    /// newest fix waits (replacing any older waiting one) until the rate allows it. Default 25 (a 10 Hz receiver has
    /// room; the simulator's fastest `fixIntervalSeconds` of 0.05 s is 20 Hz).
    public var maximumFixesPerSecond: Double = 25
    /// Fixes a vehicle may send back to back after a quiet spell, before the rate applies (token bucket depth).
    /// Default 25.
    public var fixBurst: Int = 25
    /// Unprocessed raw fixes kept per vehicle while the agent is busy; when a newer one arrives the oldest is dropped
    /// (a stale fix is useless). Default 8.
    public var maximumQueuedFixesPerVehicle: Int = 8
    /// Unprocessed assignments and commands kept per vehicle. They are never coalesced: one more is refused with
    /// `inboxFull` on `agent/error`. Default 64.
    public var maximumQueuedControlInputsPerVehicle: Int = 64
    /// Unprocessed fleet-wide inputs (traffic, places, messages on unknown topics) kept; one more is refused with
    /// `inboxFull`. Default 10,000 (a broker replays every retained place at connect).
    public var maximumQueuedFleetInputs: Int = 10_000
    /// At most one `agent/error` per vehicle, code and input topic in this many seconds; further ones are counted
    /// and summarised once the interval has passed (`suppressedCount`). Default 1 s; 0 turns the limit off.
    public var errorIntervalSeconds: Double = 1

    public init() {}

    func validate() throws(AgentConfigurationError) {
        guard maximumFixesPerSecond > 0, maximumFixesPerSecond.isFinite, fixBurst >= 1, maximumQueuedFixesPerVehicle >= 1,
              maximumQueuedControlInputsPerVehicle >= 1, maximumQueuedFleetInputs >= 1, errorIntervalSeconds >= 0
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

/// An input refused because its queue was full, to be answered on `agent/error` (the network thread cannot publish
/// there itself without breaking the per-vehicle order).
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
/// The network thread only classifies the topic and calls `put` (a lock, an append, never the navigator), so it is
/// free to send PUBACKs and outputs however large an inbound burst is. The agent's queue `take`s batches. Bounds:
/// per vehicle at most `maximumQueuedFixesPerVehicle` fixes (oldest dropped) plus one fix held back by the rate limit,
/// and `maximumQueuedControlInputsPerVehicle` assignments and commands; fleet-wide inputs share one queue of
/// `maximumQueuedFleetInputs`. Memory is bounded by vehicles × those numbers × 64 KiB payloads at worst.
///
/// Order: each vehicle's inputs are handed out in arrival order (a fix held back by the rate limit is handed out
/// when the rate allows, after anything that arrived meanwhile); vehicles take turns; fleet-wide inputs go first.
/// All times are monotonic nanoseconds passed in by the caller, so tests drive the clock.
final class InputInbox: Sendable {
    let limits: InboxLimits
    private let state: Mutex<State>

    init(limits: InboxLimits) {
        self.limits = limits
        state = Mutex(State())
    }

    private struct VehicleQueue {
        var entries: [InboxEntry] = []
        var queuedFixes = 0
        var queuedControl = 0
        /// The newest fix over the rate limit, waiting for a token.
        var held: InboxEntry?
        /// Token bucket: fixes allowed now, refilled at `maximumFixesPerSecond`.
        var tokens: Double
        var refilledAtNanoseconds: UInt64
        /// True while the vehicle id is in `State.ready`.
        var isReady = false
    }

    private struct State {
        var vehicles: [String: VehicleQueue] = [:]
        /// Vehicles with entries to hand out, in turn order (each at most once).
        var ready: [String] = []
        var readyHead = 0
        /// Vehicles with a held fix.
        var holding: Set<String> = []
        var fleet: [InboxEntry] = []
        var fleetHead = 0
        var refusals: [String: (target: InputTarget, count: Int, excerpt: [UInt8])] = [:]
        var counters = InboxCounters()
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
                if state.fleet.count - state.fleetHead >= limits.maximumQueuedFleetInputs {
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
        var queue = state.vehicles[vehicleID]
            ?? VehicleQueue(tokens: Double(limits.fixBurst), refilledAtNanoseconds: now)
        defer { state.vehicles[vehicleID] = queue }
        if input != .location {
            guard queue.queuedControl < limits.maximumQueuedControlInputsPerVehicle else {
                refuse(entry, state: &state)
                return
            }
            queue.entries.append(entry)
            queue.queuedControl += 1
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
        appendFix(entry, vehicleID: vehicleID, &queue, &state)
    }

    private func appendFix(_ entry: InboxEntry, vehicleID: String, _ queue: inout VehicleQueue, _ state: inout State) {
        if queue.queuedFixes >= limits.maximumQueuedFixesPerVehicle,
           let oldest = queue.entries.firstIndex(where: { Self.isFix($0) }) {
            queue.entries.remove(at: oldest)
            queue.queuedFixes -= 1
            state.counters.depth -= 1
            state.counters.fixesDroppedBacklog += 1
        }
        queue.entries.append(entry)
        queue.queuedFixes += 1
        state.counters.depth += 1
        markReady(vehicleID, &queue, &state)
    }

    private static func isFix(_ entry: InboxEntry) -> Bool {
        if case .vehicle(_, .location) = entry.target { return true }
        return false
    }

    private func refill(_ queue: inout VehicleQueue, now: UInt64) {
        guard now > queue.refilledAtNanoseconds else { return }
        let elapsed = Double(now - queue.refilledAtNanoseconds) / 1e9
        queue.tokens = min(Double(limits.fixBurst), queue.tokens + elapsed * limits.maximumFixesPerSecond)
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
        guard !state.drainScheduled, state.counters.depth > 0 || !state.refusals.isEmpty else { return false }
        // Held fixes alone are released by `releaseHeld`, not by a drain.
        let hasWork = state.readyHead < state.ready.count || state.fleetHead < state.fleet.count || !state.refusals.isEmpty
        guard hasWork else { return false }
        state.drainScheduled = true
        return true
    }

    /// Moves held fixes whose vehicle has a token again into its queue (call every few milliseconds). Also forgets
    /// idle vehicles whose bucket is full. Returns true when the caller must schedule a drain.
    func releaseHeld(now: UInt64) -> Bool {
        state.withLock { state in
            for vehicleID in state.holding {
                guard var queue = state.vehicles[vehicleID], let held = queue.held else {
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
                let fullAfterNanoseconds = UInt64(Double(limits.fixBurst) / limits.maximumFixesPerSecond * 1e9)
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
            while batch.entries.count < maximum, state.fleetHead < state.fleet.count {
                batch.entries.append(state.fleet[state.fleetHead])
                state.fleetHead += 1
            }
            if state.fleetHead == state.fleet.count {
                state.fleet.removeAll(keepingCapacity: state.fleet.count < 1024)
                state.fleetHead = 0
            }
            while batch.entries.count < maximum, state.readyHead < state.ready.count {
                let vehicleID = state.ready[state.readyHead]
                guard var queue = state.vehicles[vehicleID] else {
                    state.readyHead += 1
                    continue
                }
                let count = min(queue.entries.count, maximum - batch.entries.count)
                for entry in queue.entries.prefix(count) {
                    if Self.isFix(entry) { queue.queuedFixes -= 1 } else { queue.queuedControl -= 1 }
                }
                batch.entries += queue.entries.prefix(count)
                queue.entries.removeFirst(count)
                if queue.entries.isEmpty {
                    queue.isReady = false
                    state.readyHead += 1
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
