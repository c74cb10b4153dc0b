import Foundation

/// Resident and peak memory of a process, in MiB, from `/proc` (benchmarks print them); zeros
/// when the process is gone.
public func memory(of pid: Int32?) -> (rss: Double, peak: Double) {
    guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
        return (0, 0)
    }
    func field(_ name: String) -> Double {
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
    return (field("VmRSS"), field("VmHWM"))
}

/// The CPU time (user and system, in seconds) a process has used, from `/proc/<pid>/stat`; 0
/// when the process is gone. Benchmarks turn two readings into a share of a core.
public func cpuSeconds(of pid: Int32?) -> Double {
    guard let pid, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return 0 }
    // After the command name: state is field 3, utime and stime fields 14 and 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
