import MQTT
import Testing

@Suite("BrokerURL parsing")
struct BrokerURLTests {
    @Test(
        "mqtt:// and mqtts:// with default and explicit ports",
        arguments: [
            ("mqtt://broker.local", BrokerURL.Scheme.mqtt, "broker.local", 1883),
            ("mqtts://broker.local", .mqtts, "broker.local", 8883),
            ("mqtt://10.0.0.5:1884", .mqtt, "10.0.0.5", 1884),
            ("MQTTS://Broker.Example.com:443/", .mqtts, "Broker.Example.com", 443),
            ("mqtt://[::1]:1883", .mqtt, "::1", 1883),
            ("mqtts://[fe80::1]", .mqtts, "fe80::1", 8883),
        ])
    func parses(text: String, scheme: BrokerURL.Scheme, host: String, port: Int) throws {
        let url = try BrokerURL(parsing: text)
        #expect(url.scheme == scheme)
        #expect(url.host == host)
        #expect(url.port == port)
        #expect(url.usesTLS == (scheme == .mqtts))
    }

    @Test("description round-trips")
    func description() throws {
        #expect(try BrokerURL(parsing: "mqtt://h").description == "mqtt://h:1883")
        #expect(try BrokerURL(parsing: "mqtts://[::1]").description == "mqtts://[::1]:8883")
        #expect(try BrokerURL(parsing: try BrokerURL(parsing: "mqtts://[::1]:9").description).port == 9)
    }

    @Test(
        "rejects malformed URLs with mqtt.invalidURL and says why",
        arguments: [
            ("broker:1883", "expected mqtt://"),
            ("http://broker", "unsupported scheme 'http'"),
            ("ws://broker:80", "unsupported scheme 'ws'"),
            ("mqtt://", "missing host"),
            ("mqtt://:1883", "missing host"),
            ("mqtt://broker:0", "outside 1…65535"),
            ("mqtt://broker:65536", "outside 1…65535"),
            ("mqtt://broker:abc", "not a number"),
            ("mqtt://broker:", "not a number"),
            ("mqtt://broker/path", "no path"),
            ("mqtt://broker?x=1", "no path"),
            ("mqtt://::1:1883", "brackets"),
            ("mqtt://[::1", "unterminated"),
        ])
    func rejects(text: String, reason: String) {
        #expect {
            _ = try BrokerURL(parsing: text)
        } throws: { error in
            guard let error = error as? MQTTError else { return false }
            return error.code == .invalidURL && error.message.contains(reason)
        }
    }

    @Test("credentials in the URL are refused without echoing the password")
    func credentialsRefused() {
        do {
            _ = try BrokerURL(parsing: "mqtt://vehicle:hunter2@broker:1883")
            Issue.record("accepted credentials in a URL")
        } catch {
            #expect(error.code == .invalidURL)
            #expect(!error.description.contains("hunter2"))
        }
    }
}
