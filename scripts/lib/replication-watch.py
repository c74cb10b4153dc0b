#!/usr/bin/env python3
"""Replication lag, as bench-replication measures it.

watch DATA REPLICA LOG STOP: every 10 ms, the newest transaction file Litestream has made for
each database locally (`<db>`'s `.<name>.sqlite-litestream/ltx/0/`) and the newest in a
file:// replica (`<replica>/<name>/ltx/0/`); each change is one line of LOG: `time local|replica
database txid`. Ends when STOP exists.

--report LOG H2LOAD:DATABASE...: for each write an h2load log records (start µs since the
epoch, status, duration µs), its lag: from its acknowledgement until the replica holds the
first transaction Litestream took from its database after it (a transaction file made 25 ms or
more after the acknowledgement holds the write: Litestream reads the WAL as the file is made).
Prints p50, p90, p99 and the largest, per database and over all.
"""
import os
import sys
import time

NAMES = ["auth", "media", "feed", "streak", "alerts", "moderation", "files"]


def local_dir(data, name):
    folder = os.path.join(data, "replica" if name == "files" else name)
    return os.path.join(folder, f".{name}.sqlite-litestream", "ltx", "0")


def newest(folder):
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return 0
    best = 0
    for name in names:
        if name.endswith(".ltx"):
            best = max(best, int(name.split(".")[0].split("-")[-1], 16))
    return best


def watch(data, replica, log, stop):
    seen = {}
    listed = {}
    started, cpu = time.time(), time.process_time()
    with open(log, "w") as out:
        while not os.path.exists(stop):
            now = time.time()
            for name in NAMES:
                for kind, folder in (("local", local_dir(data, name)),
                                     ("replica", os.path.join(replica, name, "ltx", "0"))):
                    # A folder is listed again only when it changed: its modification time moved,
                    # or moved within the last 50 ms (the kernel stamps it at a coarse tick, so
                    # a file made later in the same tick leaves the time as it was). Listing all
                    # fourteen folders every 10 ms cost the watcher 18.7 % of a core over a finished
                    # run's folders (282 files in feed's), from the stack it measures.
                    try:
                        changed = os.stat(folder).st_mtime_ns
                    except FileNotFoundError:
                        continue
                    if listed.get(folder) == changed and now - changed / 1e9 > 0.05:
                        continue
                    listed[folder] = changed
                    txid = newest(folder)
                    if txid and seen.get((kind, name)) != txid:
                        seen[(kind, name)] = txid
                        out.write(f"{now:.4f} {kind} {name} {txid}\n")
            time.sleep(0.01)
    print(f"  (the watcher used {(time.process_time() - cpu) / (time.time() - started) * 100:.1f} % of one core)",
          file=sys.stderr)


def percentile(values, fraction):
    return values[min(len(values) - 1, int((len(values) - 1) * fraction))]


def report(log, loads):
    events = {}
    for line in open(log):
        at, kind, name, txid = line.split()
        events.setdefault((kind, name), []).append((float(at), int(txid)))
    everything = []
    for spec in loads:
        path, name = spec.rsplit(":", 1)
        local, remote = events.get(("local", name), []), events.get(("replica", name), [])
        lags, unmatched = [], 0
        for line in open(path):
            start, status, duration = line.split()[:3]
            if int(status) >= 400:
                continue
            acknowledged = (int(start) + int(duration)) / 1e6
            after = next((txid for at, txid in local if at >= acknowledged + 0.025), None)
            shipped = next((at for at, txid in remote if after is not None and txid >= after), None)
            if shipped is None:
                unmatched += 1
                continue
            lags.append(shipped - acknowledged)
        lags.sort()
        everything += lags
        if lags:
            print(f"  lag {name:<6} {len(lags):6d} writes: p50 {percentile(lags, 0.5) * 1000:6.0f} ms, "
                  f"p90 {percentile(lags, 0.9) * 1000:6.0f} ms, p99 {percentile(lags, 0.99) * 1000:6.0f} ms, "
                  f"max {lags[-1] * 1000:6.0f} ms ({unmatched} at the end not matched)")
    everything.sort()
    if everything:
        print(f"  lag, every write: p50 {percentile(everything, 0.5) * 1000:.0f} ms, "
              f"p99 {percentile(everything, 0.99) * 1000:.0f} ms, max {everything[-1] * 1000:.0f} ms")


if sys.argv[1] == "--report":
    report(sys.argv[2], sys.argv[3:])
else:
    watch(*sys.argv[1:5])
