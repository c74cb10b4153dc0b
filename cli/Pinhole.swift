import ArgumentParser
import Foundation

/// `pinhole`: the operator's command line.
@main
struct Pinhole: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinhole",
        abstract: "Run and inspect a Pinhole stack.",
        subcommands: [
            Init.self, Up.self, Status.self, Backup.self, Restore.self, Replicate.self, Keys.self, Admin.self,
            Mail.self,
        ]
    )
}

/// Writes one line to standard output at once (unbuffered), so that announcements and the
/// prefixed log lines of children interleave in the order they happen.
func say(_ line: String) {
    Supervisor.write(line)
}
