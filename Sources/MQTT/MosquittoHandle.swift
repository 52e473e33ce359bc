import CMosquitto
import Foundation

/// `mosquitto_lib_init` exactly once per process. A `static let` initialiser runs under `swift_once`,
/// which is thread-safe, so concurrent first uses cannot race. (Never cleaned up: the library's global
/// state lives as long as the process, and `mosquitto_lib_cleanup` while another handle exists is unsafe.)
enum MosquittoLibrary {
    static let initialized: Bool = {
        mosquitto_lib_init()
        return true
    }()
}

/// The single owner of a `struct mosquitto *`. Not `Sendable`: it is created, used and destroyed on the
/// client's network thread only (see `NetworkLoop`), so libmosquitto never sees two threads at once.
final class MosquittoHandle {
    let raw: OpaquePointer
    private let clientID: String
    private let cleanStart: Bool
    private let userdata: UnsafeMutableRawPointer

    init(clientID: String, cleanStart: Bool, userdata: UnsafeMutableRawPointer) throws(MQTTError) {
        _ = MosquittoLibrary.initialized
        guard let raw = mosquitto_new(clientID, cleanStart, userdata) else {
            throw MQTTError(
                mosquittoReturnCode: errno == ENOMEM ? MOSQ_ERR_NOMEM.rawValue : MOSQ_ERR_INVAL.rawValue,
                operation: "mosquitto_new", errno: errno)
        }
        self.raw = raw
        self.clientID = clientID
        self.cleanStart = cleanStart
        self.userdata = userdata
    }

    deinit {
        mosquitto_destroy(raw)
    }

    /// Closes any socket and discards every packet and message libmosquitto holds, options and callbacks
    /// included. Done before each connect attempt so that the outbox is the only source of retransmissions
    /// (libmosquitto would otherwise replay its own in-flight copies ahead of our birth message).
    /// Never call this from inside a libmosquitto callback.
    func reset() throws(MQTTError) {
        try mosquittoCheck(mosquitto_reinitialise(raw, clientID, cleanStart, userdata), "mosquitto_reinitialise")
    }

    var socket: Int32 { mosquitto_socket(raw) }
    var wantsWrite: Bool { mosquitto_want_write(raw) }
}
