import MQTT

/// Outputs the outbox refused (`mqtt.outboxFull`: only events left in it; `mqtt.outboxIO`: the disk failed), held in
/// memory in publish order and offered to the outbox again, oldest first, until it takes them.
///
/// While anything is held, every new output joins the end of the backlog rather than overtaking it: subscribers keep
/// the highest `seq` per vehicle and drop anything not above it, so an arrival sent after a later message of its
/// vehicle would be thrown away. A newer state message replaces an older held one on the same topic (moving to the
/// end, like the outbox's own coalescing).
///
/// Bounded by `maximumMessages`. When full, room is made by dropping, in this order: the oldest state message (its
/// topic's newer value is what matters), the oldest `agent/error`, and only then the oldest other event — the one
/// case where `nav/arrival` or `nav/route` is lost, counted in `eventsLost` and logged by the caller.
/// The backlog is in memory: it does not survive the process (the outbox does).
struct PublishBacklog {
    struct Message: Equatable {
        let topic: String
        let payload: [UInt8]
        let retain: Bool
        let kind: MessageKind
        /// True for `agent/error` (dropped before other events when the backlog is full).
        let isError: Bool
    }

    /// What `hold` had to drop to stay within its bound.
    enum Dropped: Equatable {
        case state(topic: String)
        case error(topic: String)
        case event(topic: String)
    }

    let maximumMessages: Int
    private var messages: [Message?] = []
    private var head = 0
    /// Where each held state message is, by topic (for coalescing without a scan).
    private var stateIndexByTopic: [String: Int] = [:]
    private(set) var count = 0
    /// Events dropped because the backlog itself was full (arrivals and routes; errors counted separately).
    private(set) var eventsLost = 0
    private(set) var errorsDropped = 0
    /// Messages ever held (for metrics).
    private(set) var held = 0

    init(maximumMessages: Int = 10_000) {
        self.maximumMessages = max(1, maximumMessages)
    }

    var isEmpty: Bool { count == 0 }

    /// Holds a message at the end; returns what had to be dropped to make room (at most one).
    mutating func hold(_ message: Message) -> Dropped? {
        held += 1
        if message.kind == .state, let older = stateIndexByTopic[message.topic] {
            remove(at: older)
        }
        var dropped: Dropped?
        if count >= maximumMessages { dropped = dropOne() }
        if message.kind == .state { stateIndexByTopic[message.topic] = messages.count }
        messages.append(message)
        count += 1
        return dropped
    }

    private mutating func dropOne() -> Dropped? {
        let live = messages.indices.dropFirst(head)
        if let index = live.first(where: { messages[$0]?.kind == .state }) {
            defer { remove(at: index) }
            return .state(topic: messages[index]!.topic)
        }
        if let index = live.first(where: { messages[$0]?.isError == true }) {
            errorsDropped += 1
            defer { remove(at: index) }
            return .error(topic: messages[index]!.topic)
        }
        guard let index = live.first(where: { messages[$0] != nil }) else { return nil }
        eventsLost += 1
        defer { remove(at: index) }
        return .event(topic: messages[index]!.topic)
    }

    private mutating func remove(at index: Int) {
        if let message = messages[index], message.kind == .state { stateIndexByTopic[message.topic] = nil }
        messages[index] = nil
        count -= 1
        skipHoles()
    }

    /// The oldest held message.
    var first: Message? {
        messages[head...].lazy.compactMap { $0 }.first
    }

    /// Removes the oldest held message (after the outbox took it).
    mutating func removeFirst() {
        guard let index = messages[head...].firstIndex(where: { $0 != nil }) else { return }
        remove(at: index)
    }

    private mutating func skipHoles() {
        while head < messages.count, messages[head] == nil { head += 1 }
        if head == messages.count {
            messages.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > messages.count {
            messages.removeFirst(head)
            head = 0
            stateIndexByTopic = [:]
            for (index, message) in messages.enumerated() where message?.kind == .state {
                stateIndexByTopic[message!.topic] = index
            }
        }
    }
}
