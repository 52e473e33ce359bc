/// A binary min-heap of (key, item) pairs with lazy deletion: callers push again instead of decreasing a key
/// and skip stale entries when they pop.
///
/// Keys and items sit side by side in one array (one cache line per level, one bounds check per access instead
/// of two); the sift loops work on its unsafe buffer, with indices kept in range by the loop conditions.
struct MinHeap {
    struct Entry {
        var key: Double
        var item: UInt32
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var minKey: Double { entries.first?.key ?? .infinity }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: Double, _ item: UInt32) {
        entries.append(Entry(key: key, item: item))
        entries.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) >> 1
                if heap[parent].key <= key { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = Entry(key: key, item: item)
        }
    }

    /// The entry with the smallest key; the heap must not be empty.
    mutating func popMin() -> (key: Double, item: UInt32) {
        let top = entries[0]
        let last = entries.removeLast()
        entries.withUnsafeMutableBufferPointer { heap in
            let count = heap.count
            guard count > 0 else { return }
            var index = 0
            while true {
                var child = 2 * index + 1
                if child >= count { break }
                if child + 1 < count && heap[child + 1].key < heap[child].key { child += 1 }
                if heap[child].key >= last.key { break }
                heap[index] = heap[child]
                index = child
            }
            heap[index] = last
        }
        return (top.key, top.item)
    }
}
