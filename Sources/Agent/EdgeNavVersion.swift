/// The agent's version, reported in `agent/status` and by `edgenav version`.
public enum EdgeNavVersion {
    public static let current = "0.2.0"
}
