import Logging

extension Logger {
    /// Logs that something failed with `error`, at `error` level; or at `debug` when the task
    /// was cancelled, which is how a graceful shutdown stops work under way (the database and
    /// HTTP client then throw their own cancellation errors). A normal stop must not read like
    /// a fault in an operator's logs.
    public func failure(_ message: Logger.Message, error: any Error, metadata: Logger.Metadata = [:]) {
        var metadata = metadata
        metadata["error"] = "\(error)"
        let stopping = Task.isCancelled || error is CancellationError
        log(level: stopping ? .debug : .error, message, metadata: metadata)
    }
}
