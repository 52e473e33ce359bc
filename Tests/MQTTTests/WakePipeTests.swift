import Foundation
import Testing

@testable import MQTT

@Suite("WakePipe")
struct WakePipeTests {
    private func readable(_ pipe: WakePipe) -> Bool {
        var descriptor = pollfd(fd: pipe.readEnd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }

    @Test("every wake after a drain makes the pipe readable again; a burst needs one byte")
    func wakeDrainWake() throws {
        let pipe = try WakePipe()
        #expect(!readable(pipe))
        for _ in 0..<1000 { pipe.wake() }
        #expect(readable(pipe))
        pipe.drain()
        #expect(!readable(pipe))
        for round in 0..<100 {
            pipe.wake()
            #expect(readable(pipe), "round \(round)")
            pipe.drain()
            #expect(!readable(pipe), "round \(round)")
        }
    }
}
