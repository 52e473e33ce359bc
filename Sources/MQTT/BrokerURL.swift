/// Where the broker is: `mqtt://host[:port]` (plain TCP, default port 1883) or
/// `mqtts://host[:port]` (TLS, default port 8883). IPv6 literals go in brackets: `mqtt://[::1]:1883`.
public struct BrokerURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable {
        case mqtt
        case mqtts
        public var defaultPort: Int { self == .mqtt ? 1883 : 8883 }
    }

    public let scheme: Scheme
    /// Host name or IP literal, without brackets.
    public let host: String
    public let port: Int
    public var usesTLS: Bool { scheme == .mqtts }

    public init(scheme: Scheme, host: String, port: Int? = nil) throws(MQTTError) {
        guard !host.isEmpty else { throw BrokerURL.invalid("missing host", in: "\(scheme.rawValue)://") }
        let port = port ?? scheme.defaultPort
        guard (1...65535).contains(port) else {
            throw BrokerURL.invalid("port \(port) is outside 1…65535", in: "\(scheme.rawValue)://\(host)")
        }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Parses `mqtt://host:port` / `mqtts://host:port`. Paths, queries, and credentials in the URL are
    /// rejected: credentials belong in `MQTTConfiguration.credentials`, never in a string that gets logged.
    public init(parsing text: String) throws(MQTTError) {
        guard let separator = text.range(of: "://") else {
            throw BrokerURL.invalid("expected mqtt://host:port or mqtts://host:port", in: text)
        }
        let schemeText = text[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else {
            throw BrokerURL.invalid("unsupported scheme '\(schemeText)' (use mqtt or mqtts)", in: text)
        }
        var authority = Substring(text[separator.upperBound...])
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains("@") {
            // Do not echo the text: it contains a secret.
            throw MQTTError(
                code: .invalidURL, message: "credentials are not allowed in the URL; configure them separately",
                operation: "BrokerURL")
        }
        if authority.contains("/") || authority.contains("?") || authority.contains("#") {
            throw BrokerURL.invalid("a broker URL has no path, query or fragment", in: text)
        }
        let host: Substring
        var portText: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw BrokerURL.invalid("unterminated IPv6 literal", in: text)
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw BrokerURL.invalid("unexpected text after ']'", in: text) }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            if host.contains(":") {
                throw BrokerURL.invalid("IPv6 literals must be written in brackets", in: text)
            }
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw BrokerURL.invalid("missing host", in: text) }
        var port: Int? = nil
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
                let value = Int(portText)
            else { throw BrokerURL.invalid("port '\(portText)' is not a number", in: text) }
            port = value
        }
        try self.init(scheme: scheme, host: String(host), port: port)
    }

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(shownHost):\(port)"
    }

    private static func invalid(_ reason: String, in text: String) -> MQTTError {
        MQTTError(code: .invalidURL, message: "\(reason): '\(text)'", operation: "BrokerURL")
    }
}
