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
