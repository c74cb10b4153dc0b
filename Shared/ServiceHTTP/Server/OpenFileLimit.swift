import Glibc

/// Every executable raises its soft limit on open files to the hard limit at start, as Go's
/// runtime does for every program and nginx's `worker_rlimit_nofile` is set for: each
/// connection is a descriptor (a phone's, a kept-alive hop's, a live stream's), and the soft
/// limit a login shell or a systemd service gets (1,024) would refuse the gateway's thousandth
/// connection while the hard limit the operator set allows far more.
enum OpenFileLimit {
    /// Where the kernel's own ceiling (`fs.nr_open`, 1,048,576 by default) stands in for an
    /// unlimited hard limit (`RLIM_INFINITY`, all ones), which `setrlimit` refuses for open files.
    static let unlimitedStandIn: rlim_t = 1 << 20

    /// Raises the soft limit to the hard one. A limit that cannot be read or set is left as it
    /// is: the process runs with fewer connections, as it would have without this.
    static func raise() {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return }
        let target = limit.rlim_max == rlim_t.max ? max(limit.rlim_cur, unlimitedStandIn) : limit.rlim_max
        guard limit.rlim_cur < target else { return }
        limit.rlim_cur = target
        _ = setrlimit(resource, &limit)
    }
}
