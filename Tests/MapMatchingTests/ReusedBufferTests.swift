@testable import MapMatching
import Testing

/// The reused buffers of the matcher's hot loops (`ScratchBuffer`, `Array.refill`) hold what the arrays they replace
/// held.
@Suite struct ReusedBufferTests {
    @Test func scratchBufferGrowsPastItsCapacityAndRemovesBySwappingTheLastIn() {
        let buffer = ScratchBuffer<UInt32>(capacity: 2)
        var array: [UInt32] = []
        for v in UInt32(0)..<100 {
            buffer.append(v)
            array.append(v)
        }
        #expect(Array(buffer.elements) == array)
        // As the search's pending targets were removed: the last moves into the gap.
        buffer.swapRemove(at: 3)
        array.swapAt(3, array.count - 1)
        array.removeLast()
        buffer.swapRemove(at: buffer.count - 1)
        array.removeLast()
        #expect(Array(buffer.elements) == array)
        #expect(buffer[3] == 99)
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.elements.isEmpty)
        buffer.append(7)
        #expect(Array(buffer.elements) == [7])
    }

    @Test func refillLeavesCountCopiesWhateverTheArrayHeldBefore() {
        var a: [Double] = [1, 2, 3]
        a.refill(-.infinity, count: 5)
        #expect(a == Array(repeating: -.infinity, count: 5))
        a.refill(0, count: 2)
        #expect(a == [0, 0])
        a.refill(7, count: 2)
        #expect(a == [7, 7])
        a.refill(1, count: 0)
        #expect(a.isEmpty)
        var b: [Int32] = []
        b.refill(-1, count: 3)
        #expect(b == [-1, -1, -1])
    }
}
