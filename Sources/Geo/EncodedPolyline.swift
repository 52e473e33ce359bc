import Foundation

/// Why an encoded polyline could not be decoded.
public struct EncodedPolylineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable code: "polyline.invalid_character", "polyline.truncated" or "polyline.invalid_precision".
    public let code: String
    public let message: String
    public var description: String { "\(code): \(message)" }
}

/// Google's encoded polyline algorithm format. Precision 5 is Google's; precision 6 is OSRM's / Valhalla's
/// polyline6. Values are (latitude, longitude) pairs, deltas zig-zag encoded in 5-bit chunks + 63.
public enum EncodedPolyline {
    public static func encode(_ line: [Coordinate], precision: Int = 6) -> String {
        let factor = pow(10.0, Double(precision))
        var out = [UInt8]()
        out.reserveCapacity(line.count * 8)
        var prevLat = 0, prevLon = 0
        for c in line {
            let lat = Int((c.latitude * factor).rounded())
            let lon = Int((c.longitude * factor).rounded())
            append(lat - prevLat, to: &out)
            append(lon - prevLon, to: &out)
            prevLat = lat
            prevLon = lon
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ value: Int, to out: inout [UInt8]) {
        var v = value < 0 ? ~(value << 1) : (value << 1)
        while v >= 0x20 {
            out.append(UInt8((0x20 | (v & 0x1f)) + 63))
            v >>= 5
        }
        out.append(UInt8(v + 63))
    }

    public static func decode(_ s: String, precision: Int = 6) throws -> [Coordinate] {
        guard (0...10).contains(precision) else {
            throw EncodedPolylineError(code: "polyline.invalid_precision", message: "precision \(precision) outside 0...10")
        }
        let factor = pow(10.0, Double(precision))
        let bytes = Array(s.utf8)
        var index = 0
        var lat = 0, lon = 0
        var result = [Coordinate]()
        func next() throws -> Int {
            var shift = 0
            var value = 0
            while true {
                guard index < bytes.count else {
                    throw EncodedPolylineError(code: "polyline.truncated", message: "string ends inside a value at byte \(index)")
                }
                let b = Int(bytes[index]) - 63
                guard b >= 0 && b < 64 else {
                    throw EncodedPolylineError(code: "polyline.invalid_character",
                                               message: "byte \(bytes[index]) at \(index) is not a polyline character")
                }
                index += 1
                guard shift < 60 else {
                    throw EncodedPolylineError(code: "polyline.truncated", message: "value too long at byte \(index)")
                }
                value |= (b & 0x1f) << shift
                shift += 5
                if b < 0x20 { break }
            }
            return (value & 1) != 0 ? ~(value >> 1) : (value >> 1)
        }
        while index < bytes.count {
            lat += try next()
            guard index < bytes.count else {
                throw EncodedPolylineError(code: "polyline.truncated", message: "latitude without longitude")
            }
            lon += try next()
            result.append(Coordinate(latitude: Double(lat) / factor, longitude: Double(lon) / factor))
        }
        return result
    }
}
