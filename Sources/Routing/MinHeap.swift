/// A binary min-heap of (key, item) pairs with lazy deletion: callers push again instead of decreasing a key
/// and skip stale entries when they pop.
struct MinHeap {
    private(set) var keys: [Double] = []
    private(set) var items: [UInt32] = []

    var isEmpty: Bool { keys.isEmpty }
    var minKey: Double { keys.first ?? .infinity }

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        items.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: Double, _ item: UInt32) {
        keys.append(key)
        items.append(item)
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) >> 1
            if keys[parent] <= key { break }
            keys[child] = keys[parent]
            items[child] = items[parent]
            child = parent
        }
        keys[child] = key
        items[child] = item
    }

    mutating func popMin() -> (key: Double, item: UInt32) {
        let top = (keys[0], items[0])
        let lastKey = keys.removeLast()
        let lastItem = items.removeLast()
        let count = keys.count
        if count > 0 {
            var index = 0
            while true {
                var child = 2 * index + 1
                if child >= count { break }
                if child + 1 < count && keys[child + 1] < keys[child] { child += 1 }
                if keys[child] >= lastKey { break }
                keys[index] = keys[child]
                items[index] = items[child]
                index = child
            }
            keys[index] = lastKey
            items[index] = lastItem
        }
        return top
    }
}
