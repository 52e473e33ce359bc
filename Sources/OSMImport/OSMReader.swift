import COsmiumShim
import Foundation

/// Raw tags of an OSM object.
public typealias OSMTags = [String: String]

/// A relation member as read from the file.
public struct OSMMember: Sendable, Hashable {
    public enum Kind: Character, Sendable, Hashable { case node = "n", way = "w", relation = "r" }
    public var kind: Kind
    public var ref: Int64
    public var role: String
    public init(kind: Kind, ref: Int64, role: String) {
        self.kind = kind
        self.ref = ref
        self.role = role
    }
}

/// Receives OSM objects from `OSMReader`. Return false to stop reading.
protocol OSMObjectSink: AnyObject {
    /// Cheap pre-filter on raw tag keys: return false to skip building the tag dictionary and `way(...)`.
    func wantsWay(keys: UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Bool
    func way(id: Int64, refs: UnsafeBufferPointer<Int64>, tags: OSMTags) -> Bool
    func relation(id: Int64, members: [OSMMember], tags: OSMTags) -> Bool
    /// `index` is the position in the wanted-ids filter.
    func node(index: Int, id: Int64, latitude: Double, longitude: Double, tags: OSMTags) -> Bool
    func progress(offset: UInt64, fileSize: UInt64)
}

/// The one choke point over the C shim: every `edgenav_osm_read` result becomes an `OSMImportError`.
enum OSMReader {
    struct Entities: OptionSet {
        let rawValue: UInt32
        static let nodes = Entities(rawValue: UInt32(EDGENAV_OSM_NODES))
        static let ways = Entities(rawValue: UInt32(EDGENAV_OSM_WAYS))
        static let relations = Entities(rawValue: UInt32(EDGENAV_OSM_RELATIONS))
    }

    struct Header {
        var boundingBox: (minLat: Double, minLon: Double, maxLat: Double, maxLon: Double)?
    }

    static func tags(_ t: edgenav_osm_tags) -> OSMTags {
        var out = OSMTags(minimumCapacity: t.count)
        for i in 0..<t.count {
            guard let k = t.keys[i], let v = t.values[i] else { continue }
            out[String(cString: k)] = String(cString: v)
        }
        return out
    }

    /// Reads `url`, delivering the selected entities to `sink` (synchronously, on this thread).
    @discardableResult
    static func read(_ url: URL, entities: Entities, wantedNodeIDs: [Int64]? = nil, sink: OSMObjectSink) throws -> Header {
        let context = Unmanaged.passUnretained(sink as AnyObject).toOpaque()
        var callbacks = edgenav_osm_callbacks()
        callbacks.context = context
        callbacks.node = { ctx, index, id, lat, lon, rawTags in
            let sink = Unmanaged<AnyObject>.fromOpaque(ctx!).takeUnretainedValue() as! OSMObjectSink
            let t = rawTags.count == 0 ? [:] : OSMReader.tags(rawTags)
            return sink.node(index: Int(index) < 0 ? -1 : Int(index), id: id, latitude: lat, longitude: lon, tags: t) ? 0 : 1
        }
        callbacks.way = { ctx, id, refs, count, rawTags in
            let sink = Unmanaged<AnyObject>.fromOpaque(ctx!).takeUnretainedValue() as! OSMObjectSink
            let keys = UnsafeBufferPointer(start: rawTags.keys, count: rawTags.count)
            guard sink.wantsWay(keys: keys) else { return 0 }
            return sink.way(id: id, refs: UnsafeBufferPointer(start: refs, count: count), tags: OSMReader.tags(rawTags)) ? 0 : 1
        }
        callbacks.relation = { ctx, id, members, count, rawTags in
            let sink = Unmanaged<AnyObject>.fromOpaque(ctx!).takeUnretainedValue() as! OSMObjectSink
            var list = [OSMMember]()
            list.reserveCapacity(count)
            for i in 0..<count {
                let m = members![i]
                let kind = OSMMember.Kind(rawValue: Character(UnicodeScalar(UInt8(bitPattern: m.type)))) ?? .relation
                list.append(OSMMember(kind: kind, ref: m.ref, role: m.role.map { String(cString: $0) } ?? ""))
            }
            return sink.relation(id: id, members: list, tags: OSMReader.tags(rawTags)) ? 0 : 1
        }
        callbacks.progress = { ctx, offset, size in
            let sink = Unmanaged<AnyObject>.fromOpaque(ctx!).takeUnretainedValue() as! OSMObjectSink
            sink.progress(offset: offset, fileSize: size)
        }
        var header = edgenav_osm_header()
        var error = edgenav_osm_error()
        let code: Int32 = url.path.withCString { path in
            if let wanted = wantedNodeIDs {
                return wanted.withUnsafeBufferPointer { ids in
                    edgenav_osm_read(path, entities.rawValue, ids.baseAddress, ids.count, &callbacks, &header, &error)
                }
            }
            return edgenav_osm_read(path, entities.rawValue, nil, 0, &callbacks, &header, &error)
        }
        try check(code, error, url: url)
        var result = Header()
        if header.has_box != 0 {
            result.boundingBox = (header.min_lat, header.min_lon, header.max_lat, header.max_lon)
        }
        return result
    }

    static func check(_ code: Int32, _ error: edgenav_osm_error, url: URL) throws {
        guard code != Int32(EDGENAV_OSM_OK) else { return }
        var e = error
        let detail = withUnsafeBytes(of: &e.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let name = url.lastPathComponent
        switch Int(code) {
        case EDGENAV_OSM_ERR_OPEN: throw OSMImportError(.fileNotFound, "cannot open \(url.path): \(detail)")
        case EDGENAV_OSM_ERR_FORMAT: throw OSMImportError(.notOSM, "\(name) is not a readable OSM file: \(detail)")
        case EDGENAV_OSM_ERR_TRUNCATED: throw OSMImportError(.truncated, "\(name) is truncated: \(detail)")
        case EDGENAV_OSM_ERR_IO: throw OSMImportError(.io, "reading \(name) failed: \(detail)")
        case EDGENAV_OSM_ERR_CANCELLED: throw OSMImportError(.internal, "reading \(name) was stopped: \(detail)")
        default: throw OSMImportError(.internal, "reading \(name) failed: \(detail)")
        }
    }
}
