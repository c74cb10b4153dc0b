extension Duration {
    /// The duration in seconds, as a double (for gauges, logs and `Server-Timing`).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, as a double.
    public var inMilliseconds: Double { inSeconds * 1000 }
}
