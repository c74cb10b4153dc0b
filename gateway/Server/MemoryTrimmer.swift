import ServiceHTTP

#if canImport(Glibc)
import CMalloc
#endif

/// Hands memory the gateway freed back to the system every few seconds.
///
/// glibc keeps freed memory in its per-thread arenas. After a burst (a thousand concurrent
/// streams, a flood of HTTP/2 control frames) the gateway's resident memory stayed at twice its
/// baseline although nothing was still allocated; `malloc_trim` returned it (91 → 51 MiB,
/// `docs/PERFORMANCE.md`). A trim with nothing to return costs microseconds.
enum MemoryTrimmer {
    static func service(every interval: Duration = .seconds(10)) -> PeriodicService {
        PeriodicService(interval: interval, runsAtStart: false) {
            #if canImport(Glibc)
            _ = malloc_trim(0)
            #endif
        }
    }
}
