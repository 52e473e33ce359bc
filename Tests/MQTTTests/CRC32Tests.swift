import Testing

@testable import MQTT

@Suite("CRC32")
struct CRC32Tests {
    /// The byte-at-a-time definition the journal's checksum must keep matching (records written by earlier
    /// versions replay with it).
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (0xEDB8_8320 ^ (crc >> 1)) : (crc >> 1) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test("the standard check value: CRC-32 of \"123456789\" is 0xCBF43926")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test("slicing-by-8 equals the bitwise definition for every length 0–300 and at every offset in a slice")
    func matchesReference() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in 0...bytes.count {
            #expect(CRC32.checksum(Array(bytes[0..<length])) == Self.reference(Array(bytes[0..<length])))
        }
        for start in 0..<16 {
            let slice = bytes[start..<(start + 100)]
            #expect(CRC32.checksum(slice) == Self.reference(Array(slice)))
        }
    }
}
