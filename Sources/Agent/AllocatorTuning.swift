import Foundation

/// glibc's allocator settings for `edgenav run`, set once at start (`apply`). They change no output and no
/// persistence, only how the process asks the kernel for heap memory.
///
/// Why: glibc gives every thread that allocates its own arena, and a thread's arena grows its heap one page at a
/// time, each step an `mprotect` system call and a page fault (the main arena grows by `M_TOP_PAD` at a time
/// instead). The agent allocates on the MQTT network thread (fixes handled inline) and on the agent's dispatch
/// queue; in a fleet of 2,000 vehicles (`scripts/bench-agent`, BENCHMARKS.md session 11) that was about 0.3
/// `mprotect` calls per fix, 8,650 in 15 s. One arena growing 4 MiB at a time makes none.
public enum AllocatorTuning {
    /// `M_ARENA_MAX`: arenas in all. Default here 1 (glibc's own default: 8 per core): every thread allocates from the
    /// main arena, which grows by `topPadBytes` a step. The agent's threads seldom allocate at the same time (the
    /// network thread and the queue share one state lock), so one arena costs no measurable lock contention.
    public static let arenas: Int32 = 1
    /// `M_TOP_PAD`, bytes: extra heap requested whenever the main arena grows, and kept when it shrinks. Default here
    /// 4 MiB (glibc's: 128 KiB): a fleet allocates and frees megabytes a second; at most this much freed memory stays
    /// mapped beyond what is in use.
    public static let topPadBytes: Int32 = 4 << 20

    /// Applies the settings unless the environment sets `GLIBC_TUNABLES` (an operator's own allocator tuning wins).
    /// Returns true when they were applied. glibc only; elsewhere a no-op.
    @discardableResult
    public static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        #if os(Linux)
        if environment["GLIBC_TUNABLES"] != nil { return false }
        // `mallopt` is declared in <malloc.h>, which the Glibc module does not import: looked up by name instead.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let mArenaMax: Int32 = -8  // M_ARENA_MAX in <malloc.h>
        let mTopPad: Int32 = -2  // M_TOP_PAD in <malloc.h>
        return mallopt(mArenaMax, arenas) == 1 && mallopt(mTopPad, topPadBytes) == 1
        #else
        return false
        #endif
    }
}
