import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The on-disk (and in-memory) layout of a road graph. A built graph is one contiguous little-endian byte
/// image; the file is that image verbatim, so loading is mmap + verification + pointer setup.
///
/// ```
/// offset  size  field
///      0     8  magic "ENAVGRPH"
///      8     4  format version (UInt32, currently 2)
///     12     4  section count (UInt32)
///     16     8  file length in bytes (UInt64, a multiple of 8)
///     24     8  checksum of bytes [64, file length) (UInt64, see `checksum`)
///     32    32  reserved, zero
///     64  16*n  section table: (absolute offset UInt64, length in bytes UInt64) per `Section`, in enum order
///      …        sections, each starting at an 8-byte aligned offset, zero padded
/// ```
/// Sections (N nodes, E edges, S shape points, K strings, C grid cells, M grid entries, R restrictions):
/// - metadata: JSON of `GraphMetadata`
/// - nodeCoordinates: N × (Int32 latitude·1e7, Int32 longitude·1e7) — about 1 cm resolution
/// - nodePassable: N × UInt8 `ModeMask` of modes that may pass through the node (barriers clear bits)
/// - firstOut: (N+1) × UInt32 CSR offsets; outgoing edges of n are firstOut[n]..<firstOut[n+1]
/// - edgeSource, edgeTarget, edgeReverse: E × UInt32 (reverse = 0xFFFF_FFFF when the edge has no twin)
/// - edgeRecords: E × 32 bytes: Float32 length m | UInt8 access | UInt8 highway class | UInt16 flags (bits 0–9 public
///   `EdgeFlags`, 14 shape-from-twin, 15 has-turn-restrictions) |
///   UInt16 motor, cycling, walking speed and speed limit in 0.01 km/h (limit 0 = unknown) | Int64 OSM way id |
///   UInt32 name string index | UInt32 ref string index
/// - shapeFirst: (E+1) × UInt32; shapePoints: S × (Int32, Int32) intermediate points of each edge, in its direction.
///   An edge whose flags have bit 14 stores no points (empty range): it is its twin's shape read backwards, which
///   halves shape storage for two-way roads.
/// - stringOffsets: (K+1) × UInt32; stringBytes: UTF-8; string 0 is ""
/// - firstIn: (N+1) × UInt32; inEdges: E × UInt32 — reverse adjacency (incoming edge ids grouped by target)
/// - restrictions: R × 12 bytes: UInt32 from edge | UInt32 to edge | UInt8 kind | UInt8 modes | 2 pad; sorted by from
/// - gridHeader: Float64 minLat, minLon, cellLatDegrees, cellLonDegrees | UInt32 rows, cols | Float64 cell metres
/// - gridFirst: (C+1) × UInt32; gridEdges: M × UInt32 — edges whose segment bounding boxes touch each cell
///
/// Checksum: FNV-1a-64 run over 64-bit little-endian words instead of bytes (8× fewer multiplications; any
/// single changed word changes the result because xor and multiplication by an odd prime are bijections).
/// Cost: one xor + one multiply per 8 bytes, a few ms for a city graph in a release build.
enum GraphFileLayout {
    static let magic: [UInt8] = Array("ENAVGRPH".utf8)
    /// Version 2 shares shapes between twins (flag bit 14); version 1 files (no shared shapes) still load.
    static let formatVersion: UInt32 = 2
    static let readableVersions: ClosedRange<UInt32> = 1...2
    static let headerSize = 64
    static let edgeRecordSize = 32
    static let restrictionRecordSize = 12
    static let gridHeaderSize = 48
    static let noEdge: UInt32 = 0xFFFF_FFFF

    enum Section: Int, CaseIterable {
        case metadata, nodeCoordinates, nodePassable, firstOut, edgeSource, edgeTarget, edgeReverse, edgeRecords,
             shapeFirst, shapePoints, stringOffsets, stringBytes, firstIn, inEdges, restrictions,
             gridHeader, gridFirst, gridEdges
    }

    static var sectionTableSize: Int { Section.allCases.count * 16 }

    static func checksum(_ p: UnsafeRawPointer, count: Int) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01b3
        let words = count / 8
        var i = 0
        while i < words {
            h = (h ^ UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i &* 8, as: UInt64.self))) &* prime
            i &+= 1
        }
        var j = words * 8
        while j < count {
            h = (h ^ UInt64(p.load(fromByteOffset: j, as: UInt8.self))) &* prime
            j += 1
        }
        return h
    }
}

/// How the bytes of a loaded graph are held.
public enum GraphBacking: String, Sendable {
    /// Built in memory (the builder's output), or read from the file into private heap memory.
    case memory
    /// The graph file itself, memory-mapped: cheapest, but the file must only ever be replaced atomically
    /// (rename over it). Writing into it in place (`cp new old`) changes or truncates the pages under the
    /// mapping, which kills the process with SIGBUS or feeds it inconsistent data.
    case mappedFile
    /// A private, unnamed copy of the file (created and unlinked at once in a directory the process owns),
    /// memory-mapped. Nothing else can open it, so the original may be overwritten in any way.
    case mappedPrivateCopy
}

/// Owns the bytes of one graph image: a heap allocation (freshly built, or a fallback copy) or a
/// read-only file mapping (of the file itself, or of a private copy of it).
final class GraphStorage: @unchecked Sendable {
    // Immutable after init; the memory is never written once the graph exists, so sharing across threads is safe.
    let base: UnsafeRawPointer
    let byteCount: Int
    let backing: GraphBacking
    private var isMapped: Bool { backing != .memory }

    /// Copies `bytes` into an 8-byte-aligned heap allocation.
    init(copying bytes: [UInt8]) {
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 8), alignment: 16)
        bytes.withUnsafeBytes { src in
            if let s = src.baseAddress { p.copyMemory(from: s, byteCount: bytes.count) }
        }
        base = UnsafeRawPointer(p)
        byteCount = bytes.count
        backing = .memory
    }

    /// Memory-maps `url` read-only.
    init(mapping url: URL) throws {
        let path = url.path
        let fd = try Self.openGraphFile(path)
        defer { close(fd) }
        let size = try Self.regularFileSize(fd, path)
        base = try Self.map(fd, size: size, path: path)
        byteCount = size
        backing = .mappedFile
    }

    /// Copies `url` into an unnamed file in `directory` and maps the copy; if the directory cannot take the copy
    /// (read-only, full, missing), reads the file into heap memory instead. Either way later writes to `url`
    /// cannot reach the bytes in use. A file being written while it is copied shows up as a checksum mismatch.
    init(privateCopyOf url: URL, in directory: URL) throws {
        let path = url.path
        let source = try Self.openGraphFile(path)
        defer { close(source) }
        let size = try Self.regularFileSize(source, path)
        if let copy = Self.unnamedFile(in: directory.path) {
            defer { close(copy) }
            if (try? Self.copyAll(from: source, to: copy, path: path)) == size,
               let mapped = try? Self.map(copy, size: size, path: path) {
                base = mapped
                byteCount = size
                backing = .mappedPrivateCopy
                return
            }
        }
        guard lseek(source, 0, SEEK_SET) == 0 else {
            throw RoadGraphError(.io, "cannot rewind \(path): \(String(cString: strerror(errno)))")
        }
        let p = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        var done = 0
        while done < size {
            let n = read(source, p + done, size - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                p.deallocate()
                if n == 0 { throw RoadGraphError(.truncated, "\(path) shrank to \(done) bytes while it was read") }
                throw RoadGraphError(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            done += n
        }
        base = UnsafeRawPointer(p)
        byteCount = size
        backing = .memory
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), byteCount)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }

    private static func openGraphFile(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw RoadGraphError(.io, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    private static func regularFileSize(_ fd: Int32, _ path: String) throws -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw RoadGraphError(.io, "cannot stat \(path): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw RoadGraphError(.io, "\(path) is not a regular file") }
        let size = Int(st.st_size)
        guard size >= GraphFileLayout.headerSize else {
            throw RoadGraphError(size >= 8 ? .truncated : .notAGraphFile,
                                 "\(path) is \(size) bytes, shorter than the \(GraphFileLayout.headerSize)-byte header")
        }
        return size
    }

    private static func map(_ fd: Int32, size: Int, path: String) throws -> UnsafeRawPointer {
        guard let m = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), m != MAP_FAILED else {
            throw RoadGraphError(.io, "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        return UnsafeRawPointer(m)
    }

    /// A new file in `directory` that has no name any more (created with mkstemp, unlinked at once), or nil.
    private static func unnamedFile(in directory: String) -> Int32? {
        var template = Array((directory + "/.edgenav-map-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    /// Copies `source` from its start to `destination`; returns the bytes copied.
    private static func copyAll(from source: Int32, to destination: Int32, path: String) throws -> Int {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let n = pread(source, buffer, chunk, off_t(total))
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw RoadGraphError(.io, "cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { return total }
            var written = 0
            while written < n {
                let w = write(destination, buffer + written, n - written)
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw RoadGraphError(.io, "cannot write the private map copy: \(String(cString: strerror(errno)))") }
                written += w
            }
            total += n
        }
    }
}

/// Appends sections to a growing byte image (used by the builder).
struct GraphImageWriter {
    private(set) var bytes: [UInt8]
    private var table: [(offset: UInt64, length: UInt64)] = []

    init() {
        bytes = [UInt8](repeating: 0, count: GraphFileLayout.headerSize + GraphFileLayout.sectionTableSize)
    }

    private mutating func alignTo8() {
        while bytes.count % 8 != 0 { bytes.append(0) }
    }

    mutating func appendSection<T: BitwiseCopyable>(_ section: GraphFileLayout.Section, _ values: [T]) {
        precondition(section.rawValue == table.count, "sections must be appended in enum order")
        alignTo8()
        let offset = bytes.count
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
        table.append((UInt64(offset), UInt64(bytes.count - offset)))
    }

    mutating func finish() -> [UInt8] {
        precondition(table.count == GraphFileLayout.Section.allCases.count)
        alignTo8()
        let fileLength = bytes.count
        bytes.withUnsafeMutableBytes { raw in
            for (i, b) in GraphFileLayout.magic.enumerated() { raw[i] = b }
            raw.storeBytes(of: GraphFileLayout.formatVersion.littleEndian, toByteOffset: 8, as: UInt32.self)
            raw.storeBytes(of: UInt32(table.count).littleEndian, toByteOffset: 12, as: UInt32.self)
            raw.storeBytes(of: UInt64(fileLength).littleEndian, toByteOffset: 16, as: UInt64.self)
            for (i, entry) in table.enumerated() {
                raw.storeBytes(of: entry.offset.littleEndian, toByteOffset: 64 + i * 16, as: UInt64.self)
                raw.storeBytes(of: entry.length.littleEndian, toByteOffset: 64 + i * 16 + 8, as: UInt64.self)
            }
            let sum = GraphFileLayout.checksum(raw.baseAddress! + 64, count: fileLength - 64)
            raw.storeBytes(of: sum.littleEndian, toByteOffset: 24, as: UInt64.self)
        }
        return bytes
    }
}
