#!/usr/bin/env python3
"""Attacks the gateway the way a careless or hostile client would, one pattern at a time, while
other users call `GET /v1/me`; prints for each pattern what those users saw and what it cost the
gateway. Driven by scripts/robustness (which starts the stack); exits 1 when a goal is missed.

    robustness.py URL TOKEN GATEWAY_PID STACK_PID [--short]

ROBUSTNESS_ONLY=NAME runs that one pattern (its name as the table prints it).

Goals (issue 22): no 5xx for others, their p99 at most 2x idle (checked only in the full run:
debug builds and a busy CI machine make short-run latencies meaningless), prompt 4xx for bad
requests, file descriptors back to baseline within the idle timeout, memory at most 256 MiB over
its baseline during any pattern and back within 20 % of it afterwards, and legitimate concurrent
streams up to the advertised limit answered. The control row (the HEAD loop sent to a decoy
the gateway never sees) has no p99 goal: it shows what the attacker's own work takes from the
others on the machine's cores.
"""

import json
import multiprocessing
import os
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions

URL, TOKEN, GATEWAY_PID, STACK_PID = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
SHORT = "--short" in sys.argv
PARSED = urllib.parse.urlparse(URL)
HOST, PORT = PARSED.hostname, PARSED.port
TLS = PARSED.scheme == "https"
# Attackers and other users connect from addresses of their own (all of 127/8 is loopback):
# the gateway's per-address defences must not be what keeps the observers' requests apart.
ADDRESS = socket.gethostbyname(HOST)
SOURCE = "127.0.0.3"  # shutdown_while_held; the observers use 127.0.0.2, attacks 127.0.0.10 on
IDLE_TIMEOUT = float(os.environ.get("ROBUSTNESS_IDLE_TIMEOUT", "20"))
ATTACK_SECONDS = 3 if SHORT else 12
# What one attacker may make the gateway hold while the attack lasts.
PEAK_GROWTH_MIB = 256
FAILURES = []
# The one pattern that does not attack the gateway: its row is the floor the others' p99 stands
# on (``against_decoy``), and no goal is checked against its p99.
CONTROL = "HEAD loop to a decoy (control)"


# MARK: - The gateway process


def fds():
    return len(os.listdir(f"/proc/{GATEWAY_PID}/fd"))


def rss_mib():
    with open(f"/proc/{GATEWAY_PID}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds():
    """The gateway's user + system CPU time so far."""
    with open(f"/proc/{GATEWAY_PID}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# MARK: - Connections


def tls_context(alpn):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(alpn)
    return context


def connect(alpn=("http/1.1",), timeout=10, port=None):
    """A connection to the gateway (or, given its `port`, to another server on its address)."""
    sock = socket.create_connection((ADDRESS, port or PORT), timeout=timeout, source_address=(SOURCE, 0))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if TLS:
        sock = tls_context(list(alpn)).wrap_socket(sock, server_hostname=HOST)
    return sock


def read_http1_response(sock, deadline):
    """Reads one HTTP/1.1 response; returns (status, headers, body) or (None, {}, b"") when the
    connection ended first. Honours content-length and chunked bodies."""
    data = b""
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionError, ssl.SSLError, OSError):
            return None, {}, b""
        if not chunk:
            return None, {}, b""
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    chunked = headers.get("transfer-encoding", "") == "chunked"
    while (chunked and not body.endswith(b"0\r\n\r\n")) or (not chunked and len(body) < length):
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionError, ssl.SSLError, OSError):
            break
        if not chunk:
            break
        body += chunk
    return status, headers, body


# MARK: - Other users


class Observers:
    """Threads that call GET /v1/me over HTTP/1.1 keep-alive connections, as other users do, and
    record each answer's status (0 = connection failed) and latency. They run in a process of
    their own: threads beside the attacker's would wait for Python's interpreter lock and
    measure the attacker, not the gateway."""

    def __init__(self, count=4):
        self.count = count
        self.results = []

    def worker(self, stop, results, lock):
        sock = None
        request = (
            f"GET /v1/me HTTP/1.1\r\nhost: {HOST}\r\nauthorization: Bearer {TOKEN}\r\n\r\n"
        ).encode()
        while not stop.is_set():
            start = time.monotonic()
            status = 0
            try:
                if sock is None:
                    sock = connect()
                sock.sendall(request)
                status, headers, _ = read_http1_response(sock, start + 10)
                if status is None or headers.get("connection") == "close":
                    sock.close()
                    sock = None
                status = status or 0
            except (OSError, ssl.SSLError):
                sock = None
            with lock:
                results.append((status, time.monotonic() - start))
            if status == 0:
                time.sleep(0.05)
        if sock:
            sock.close()

    def observe(self, stop, queue):
        """The observer process: runs the workers until `stop`, then sends their results."""
        global SOURCE
        SOURCE = "127.0.0.2"
        results, lock = [], threading.Lock()
        threads = [threading.Thread(target=self.worker, args=(stop, results, lock)) for _ in range(self.count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        queue.put(results)

    def sampler(self):
        """The gateway's highest resident memory while the observers run."""
        while not self.stop.is_set():
            self.peak_mib = max(self.peak_mib, rss_mib())
            time.sleep(0.1)

    def __enter__(self):
        context = multiprocessing.get_context("fork")
        self.stop, self.queue = context.Event(), context.Queue()
        self.process = context.Process(target=self.observe, args=(self.stop, self.queue), daemon=True)
        self.process.start()
        self.peak_mib = 0.0
        self.memory = threading.Thread(target=self.sampler, daemon=True)
        self.memory.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.results = self.queue.get()
        self.process.join()
        self.memory.join()

    def failures(self):
        """The failed answers by status (0: the connection failed)."""
        counts = {}
        for status, _ in self.results:
            if status == 0 or status >= 500:
                counts[status] = counts.get(status, 0) + 1
        return counts

    def summary(self):
        """Answers, failed answers, and the p99 and slowest latency in ms."""
        latencies = sorted(latency for _, latency in self.results)
        failed = sum(self.failures().values())
        p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000 if latencies else float("nan")
        slowest = latencies[-1] * 1000 if latencies else float("nan")
        return len(self.results), failed, p99, slowest


def run_attack(attack, seconds, number):
    """Runs `attack` in a child process at the lowest CPU priority, as a client on a machine of
    its own would: on these two cores its CPU would otherwise be taken from the gateway and the
    observers. Each pattern comes from an address of its own (`number`), so that one pattern's
    penalty does not stop the next. Returns what the attacker saw and the cores it kept busy."""
    queue = multiprocessing.get_context("fork").SimpleQueue()

    def child():
        global SOURCE
        SOURCE = f"127.0.0.{10 + number}"
        os.nice(19)
        already = len(FAILURES)
        try:
            note = attack(seconds)
        except (OSError, ssl.SSLError) as error:
            # The gateway closed the attacker's connection while it was still writing (as it
            # may, once a client breaks the protocol): an answer, not a crash of the pattern.
            note = f"the gateway closed the connection while the attacker wrote ({type(error).__name__})"
        queue.put((note, FAILURES[already:], time.process_time()))

    start = time.monotonic()
    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    note, failures, cpu = queue.get()
    process.join()
    FAILURES.extend(failures)
    return note, cpu / max(seconds, time.monotonic() - start)


# MARK: - HTTP/2 by hand, for frames no well-behaved library sends


PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + struct.pack(">BBI", kind, flags, stream) + payload


def hpack_int(value, prefix_bits):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([value])
    out = [limit]
    value -= limit
    while value >= 128:
        out.append((value % 128) + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def hpack(headers):
    """Literal header fields without indexing, no Huffman: what any HPACK decoder accepts."""
    block = b""
    for name, value in headers:
        name, value = name.encode(), value.encode()
        block += b"\x00" + hpack_int(len(name), 7) + name + hpack_int(len(value), 7) + value
    return block


def request_block(path="/v1/me", method="GET", extra=()):
    return hpack(
        [(":method", method), (":scheme", "https" if TLS else "http"), (":path", path), (":authority", HOST)]
        + list(extra)
    )


def h2_connect(settings=b"", port=None):
    sock = connect(alpn=("h2",), port=port)
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0, settings))
    return sock


def drain_nonblocking(sock):
    sock.setblocking(False)
    try:
        while sock.recv(1 << 20):
            pass
    except (BlockingIOError, ssl.SSLWantReadError, OSError):
        pass
    sock.setblocking(True)


# MARK: - Attacks: each runs for `seconds` and returns a short note of what the attacker saw


def head_loop(seconds, port=None):
    """An anonymous HEAD of a public route with a body, in a loop, over HTTP/1.1 and HTTP/2 (to
    the gateway, or to the server on `port`)."""
    sent = 0
    statuses = {}
    deadline = time.monotonic() + seconds
    h2_sock, stream = None, 1
    while time.monotonic() < deadline:
        try:
            sock = connect(port=port)
            sock.sendall(f"HEAD /.well-known/jwks.json HTTP/1.1\r\nhost: {HOST}\r\n\r\n".encode())
            # A HEAD answer has headers only; its content-length describes the GET.
            sock.settimeout(5)
            head = sock.recv(65536)
            status = int(head.split()[1]) if head.startswith(b"HTTP/1.1") else 0
            statuses[status] = statuses.get(status, 0) + 1
            sock.close()
            if h2_sock is None:
                h2_sock, stream = h2_connect(port=port), 1
            h2_sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, stream, request_block("/.well-known/jwks.json", "HEAD")))
            stream += 2
            drain_nonblocking(h2_sock)
            if stream > 999:
                h2_sock.close()
                h2_sock = None
            sent += 2
        except (OSError, ssl.SSLError):
            h2_sock = None
    return f"{sent} HEADs, HTTP/1.1 statuses {statuses}"


def against_decoy(attack):
    """`attack`, sent to a decoy instead of the gateway: a TLS server in the attacker's own
    process (at its priority) that answers every HTTP/1.1 request 405 and reads HTTP/2 without
    answering. The gateway sees none of it; what others see is what the attacker's work alone
    takes from them on these cores, the floor under the same attack on the gateway."""

    def run(seconds):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        pki = os.environ["ROBUSTNESS_PKI"]
        context.load_cert_chain(f"{pki}/public.crt", f"{pki}/public.key")
        context.set_alpn_protocols(["h2", "http/1.1"])
        listener = socket.create_server((ADDRESS, 0))

        def serve(raw):
            try:
                with context.wrap_socket(raw, server_side=True) as sock:
                    while data := sock.recv(65536):
                        if not data.startswith(PREFACE):
                            sock.sendall(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
            except (OSError, ssl.SSLError):
                pass

        def accept():
            while True:
                try:
                    raw, _ = listener.accept()
                except OSError:
                    return
                threading.Thread(target=serve, args=(raw,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        try:
            return attack(seconds, port=listener.getsockname()[1]) + " (to the decoy)"
        finally:
            listener.close()

    return run


def big_header_loop(seconds):
    """Requests with a 17 KB header on a public route, in a loop."""
    sent, statuses = 0, {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            sock = connect()
            sock.sendall(
                f"GET /.well-known/jwks.json HTTP/1.1\r\nhost: {HOST}\r\nx-filler: {'a' * 17000}\r\n\r\n".encode()
            )
            status, _, _ = read_http1_response(sock, time.monotonic() + 10)
            statuses[status] = statuses.get(status, 0) + 1
            sock.close()
            sent += 1
        except (OSError, ssl.SSLError):
            pass
    return f"{sent} requests, statuses {statuses}"


def one_request(raw, expect, within=2.0):
    """Sends raw HTTP/1.1 bytes once; the answer must be `expect` with the JSON error envelope,
    within `within` seconds."""

    def attack(_seconds):
        start = time.monotonic()
        sock = connect()
        sock.sendall(raw)
        status, headers, body = read_http1_response(sock, start + 40)
        elapsed = time.monotonic() - start
        sock.close()
        envelope = False
        try:
            envelope = "code" in json.loads(body).get("error", {})
        except (ValueError, AttributeError):
            pass
        if status != expect or elapsed > within or not envelope:
            FAILURES.append(f"{raw[:40]!r}: wanted {expect} with the JSON envelope within {within} s")
        return f"answered {status} in {elapsed:.2f} s, JSON envelope: {envelope}"

    return attack


def silent_connections(count, send=b""):
    """Opens `count` connections that send `send` (nothing, half a preface) and close."""

    def attack(_seconds):
        for _ in range(count):
            try:
                sock = socket.create_connection((ADDRESS, PORT), timeout=5, source_address=(SOURCE, 0))
                if send:
                    if TLS:
                        sock = tls_context(["h2"]).wrap_socket(sock, server_hostname=HOST)
                    sock.sendall(send)
                sock.close()
            except (OSError, ssl.SSLError):
                pass
        return f"{count} connections opened and closed"

    return attack


def still_open(sock):
    """Whether the gateway has not closed `sock` (no EOF, no reset)."""
    sock.settimeout(0.2)
    try:
        return sock.recv(65536) != b""
    except (socket.timeout, ssl.SSLWantReadError):
        return True
    except (OSError, ssl.SSLError):
        return False


def slowloris(count):
    """`count` connections that send a request's headers one byte every second and never end;
    the gateway must close them once the head has taken longer than its idle timeout."""

    def attack(seconds):
        socks = []
        for _ in range(count):
            try:
                sock = connect()
                sock.sendall(b"GET /v1/me HTTP/1.1\r\n")
                socks.append(sock)
            except (OSError, ssl.SSLError):
                pass
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for sock in socks:
                try:
                    sock.send(b"x")
                except (OSError, ssl.SSLError):
                    pass
            time.sleep(1)
        held = sum(1 for sock in socks if still_open(sock))
        for sock in socks:
            sock.close()
        if seconds > IDLE_TIMEOUT + 1 and held:
            FAILURES.append(f"slowloris: {held} of {count} connections still open after {seconds} s")
        return f"{count} slow connections, {held} still open after {seconds} s"

    return attack


def h2_flood(build, label):
    """Writes `build(i)` on one HTTP/2 connection as fast as the gateway takes it."""

    def attack(seconds):
        deadline = time.monotonic() + seconds
        frames, connections = 0, 0
        while time.monotonic() < deadline:
            try:
                sock = h2_connect()
                connections += 1
                i = 0
                while time.monotonic() < deadline:
                    sock.sendall(build(i))
                    i += 1
                    frames += 1
                    if i % 64 == 0:
                        drain_nonblocking(sock)
                sock.close()
            except (OSError, ssl.SSLError):
                pass
        return f"{label}: {frames} writes over {connections} connection(s)"

    return attack


def rapid_reset(i):
    stream = 2 * (i % 1_000_000) + 1
    return frame(HEADERS, END_STREAM | END_HEADERS, stream, request_block()) + frame(
        RST_STREAM, 0, stream, struct.pack(">I", 8)
    )


def continuation_flood(i):
    if i == 0:
        return frame(HEADERS, 0, 1, request_block())
    return frame(CONTINUATION, 0, 1, hpack([("x-flood", "a" * 4000)]))


def settings_flood(_i):
    return frame(SETTINGS, 0, 0, struct.pack(">HI", 3, 100))


def ping_flood(i):
    return frame(PING, 0, 0, struct.pack(">Q", i))


def huge_header_block(i):
    stream = 2 * i + 1
    block = request_block(extra=[("x-big", "a" * 16000)] * 64)
    chunks = [block[j : j + 16384] for j in range(0, len(block), 16384)]
    out = frame(HEADERS, END_STREAM if len(chunks) > 1 else END_STREAM | END_HEADERS, stream, chunks[0])
    for n, chunk in enumerate(chunks[1:], 1):
        out += frame(CONTINUATION, END_HEADERS if n == len(chunks) - 1 else 0, stream, chunk)
    return out


def many_streams(_seconds):
    """1,000 streams opened at once on one connection, then read."""
    sock = h2_connect()
    blob = b"".join(
        frame(HEADERS, END_STREAM | END_HEADERS, 2 * i + 1, request_block(extra=[("authorization", f"Bearer {TOKEN}")]))
        for i in range(1000)
    )
    sock.sendall(blob)
    time.sleep(2)
    drain_nonblocking(sock)
    sock.close()
    return "1000 streams written at once"


def zero_window(count, streams=1):
    """`count` connections that announce a zero stream window, ask for a body on `streams`
    streams each and never read."""

    def attack(seconds):
        socks = []
        for _ in range(count):
            try:
                sock = h2_connect(struct.pack(">HI", 4, 0))
                sock.sendall(b"".join(
                    frame(HEADERS, END_STREAM | END_HEADERS, 1 + 2 * index, request_block("/openapi.yaml"))
                    for index in range(streams)))
                socks.append(sock)
            except (OSError, ssl.SSLError):
                pass
        time.sleep(seconds)
        for sock in socks:
            sock.close()
        return f"{len(socks)} zero-window connections x {streams} streams held {seconds} s"

    return attack


def held_bodies(count, streams=100, framed=True, expect=False):
    """`count` connections that each open `streams` sign-ins announcing a body of 1 MiB and send
    as much of it as the gateway's flow-control windows let them, but never its last byte, on
    every stream at once, and hold: the first requests wait at the service for the rest of their
    body, the others for their connection's turns, and whatever the gateway takes for them
    meanwhile it holds until the attacker goes. `framed`: each stream declares its length (the
    relay takes it as frames); otherwise none is declared (the stream becomes a stream channel).
    `expect`: each asks `Expect: 100-continue` and sends its body anyway (the pipeline takes
    those, and they wait for their turn there)."""
    length = 1 << 20

    def attack(seconds):
        deadline = time.monotonic() + seconds
        headers = [(":method", "POST"), (":scheme", "https" if TLS else "http"), (":path", "/v1/auth/login"),
                   (":authority", HOST), ("content-type", "application/json")]
        if framed:
            headers.append(("content-length", str(length)))
        if expect:
            headers.append(("expect", "100-continue"))
        held, sent = [], 0

        def push(sock, conn, remaining):
            nonlocal sent
            for stream in list(remaining):
                try:
                    while remaining[stream] > 0:
                        piece = min(remaining[stream], conn.local_flow_control_window(stream), 16384)
                        if piece <= 0:
                            break
                        conn.send_data(stream, b"x" * piece)
                        remaining[stream] -= piece
                        sent += piece
                except h2.exceptions.StreamClosedError:
                    del remaining[stream]
            sock.sendall(conn.data_to_send())

        for _ in range(count):
            try:
                sock = connect(alpn=("h2",))
                conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
                conn.initiate_connection()
                remaining = {}
                for index in range(streams):
                    stream = conn.get_next_available_stream_id()
                    conn.send_headers(stream, headers)
                    remaining[stream] = length - 1
                push(sock, conn, remaining)
                held.append((sock, conn, remaining))
            except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
                pass
        # Whatever window the gateway opens is filled, until the attack's time is up.
        while time.monotonic() < deadline:
            for sock, conn, remaining in held:
                sock.setblocking(False)
                try:
                    while True:
                        data = sock.recv(65536)
                        if not data:
                            break
                        conn.receive_data(data)
                except (BlockingIOError, ssl.SSLWantReadError):
                    pass
                except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
                    continue
                sock.setblocking(True)
                try:
                    push(sock, conn, remaining)
                except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
                    pass
            time.sleep(0.05)
        for sock, _, _ in held:
            sock.close()
        return f"{len(held)} connections held, {sent >> 20} MiB of bodies sent"

    return attack


def concurrent_streams(connections=10, streams=100):
    """Legitimate load: `connections` HTTP/2 connections each with `streams` concurrent GETs.
    Every one must be answered 200 (the advertised stream limit queues or refuses the excess;
    a refused stream is retried, as clients do with REFUSED_STREAM)."""

    def attack(_seconds):
        counts = {}
        lock = threading.Lock()

        def one():
            sock = connect(alpn=("h2",))
            conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            conn.initiate_connection()
            sock.sendall(conn.data_to_send())
            pending = {}
            todo = streams
            done = 0
            sock.settimeout(30)

            def open_more():
                nonlocal todo
                while todo > 0 and len(pending) < conn.remote_settings.max_concurrent_streams:
                    stream = conn.get_next_available_stream_id()
                    conn.send_headers(
                        stream,
                        [(":method", "GET"), (":scheme", "https" if TLS else "http"), (":path", "/v1/me"),
                         (":authority", HOST), ("authorization", f"Bearer {TOKEN}")],
                        end_stream=True,
                    )
                    pending[stream] = None
                    todo -= 1

            open_more()
            sock.sendall(conn.data_to_send())
            while done < streams:
                data = sock.recv(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        pending[event.stream_id] = int(dict(event.headers)[b":status"])
                    elif isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        status = pending.pop(event.stream_id)
                        with lock:
                            counts[status] = counts.get(status, 0) + 1
                        done += 1
                    elif isinstance(event, h2.events.StreamReset):
                        if event.error_code == h2.errors.ErrorCodes.REFUSED_STREAM:
                            todo += 1
                        else:
                            with lock:
                                counts["reset"] = counts.get("reset", 0) + 1
                            done += 1
                        pending.pop(event.stream_id, None)
                open_more()
                sock.sendall(conn.data_to_send())
            sock.close()

        threads = [threading.Thread(target=one) for _ in range(connections)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        answered = counts.get(200, 0)
        if answered != connections * streams:
            FAILURES.append(f"concurrent streams: {answered} of {connections * streams} answered 200: {counts}")
        return f"{connections}x{streams} concurrent GETs: {counts} in {time.monotonic() - began:.1f} s"

    return attack


def shutdown_while_held(within=15.0):
    """Ctrl-C to `pinhole up` while clients hold connections in every state: before TLS,
    mid-preface, mid-request, idle keep-alive, a zero-window HTTP/2 stream. The gateway must
    be gone within `within` seconds."""
    held = []
    for send in (None, b"", PREFACE[:12], b"GET /v1/me HTTP/1.1\r\n", "keep-alive", "zero-window"):
        for _ in range(10):
            try:
                if send is None:
                    held.append(socket.create_connection((ADDRESS, PORT), timeout=5, source_address=(SOURCE, 0)))
                elif send == "keep-alive":
                    sock = connect()
                    sock.sendall(f"GET /health/live HTTP/1.1\r\nhost: {HOST}\r\n\r\n".encode())
                    read_http1_response(sock, time.monotonic() + 5)
                    held.append(sock)
                elif send == "zero-window":
                    sock = h2_connect(struct.pack(">HI", 4, 0))
                    sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1, request_block("/openapi.yaml")))
                    held.append(sock)
                else:
                    sock = connect(alpn=("h2",) if send.startswith(b"PRI") else ("http/1.1",))
                    sock.sendall(send)
                    held.append(sock)
            except (OSError, ssl.SSLError):
                pass
    start = time.monotonic()
    os.kill(STACK_PID, 2)
    while os.path.exists(f"/proc/{GATEWAY_PID}") and time.monotonic() - start < 120:
        with open(f"/proc/{GATEWAY_PID}/stat") as stat:
            if stat.read().split(") ")[1].startswith("Z"):
                break
        time.sleep(0.1)
    elapsed = time.monotonic() - start
    print(f"shutdown with {len(held)} connections held: gateway gone after {elapsed:.1f} s")
    if elapsed > within:
        FAILURES.append(f"shutdown took {elapsed:.1f} s with connections held (goal {within:.0f} s)")
    for sock in held:
        sock.close()


# MARK: - The run


def main():
    print(f"robustness against {URL} (gateway pid {GATEWAY_PID}){' — short form' if SHORT else ''}")
    # Idle is observed over as long as each pattern is: a p99 from a shorter window moved
    # 3.1-5.9 ms from run to run, and the 2x goal with it.
    window = ATTACK_SECONDS
    with Observers() as idle:
        gateway_cpu = cpu_seconds()
        time.sleep(window)
        gateway_cpu = (cpu_seconds() - gateway_cpu) / window
    _, idle_failed, idle_p99, _ = idle.summary()
    base_fds, base_rss = fds(), rss_mib()
    print(f"idle: others' p99 {idle_p99:.1f} ms, {idle_failed} failed; gateway {base_fds} fds, {base_rss:.0f} MiB,"
          f" {gateway_cpu:.2f} cores")

    attacks = [
        ("HEAD loop (anonymous)", head_loop),
        (CONTROL, against_decoy(head_loop)),
        ("17 KB header loop", big_header_loop),
        ("30 KB header", one_request(
            f"GET /v1/me HTTP/1.1\r\nhost: {HOST}\r\nauthorization: Bearer {TOKEN}\r\nx-filler: {'a' * 30000}\r\n\r\n".encode(), 431)),
        ("60 KB header", one_request(
            f"GET /v1/me HTTP/1.1\r\nhost: {HOST}\r\nauthorization: Bearer {TOKEN}\r\nx-filler: {'a' * 60000}\r\n\r\n".encode(), 431)),
        ("malformed chunk size", one_request(
            f"POST /v1/auth/login HTTP/1.1\r\nhost: {HOST}\r\ntransfer-encoding: chunked\r\n"
            "content-type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n".encode(), 400)),
        ("HTTP/1.1 framing error", one_request(
            f"GET /v1/me HTTP/1.1\r\nhost: {HOST}\r\nno colon here\r\n\r\n".encode(), 400)),
        ("500 silent connections", silent_connections(100 if SHORT else 500)),
        ("500 half HTTP/2 prefaces", silent_connections(100 if SHORT else 500, PREFACE[:12])),
        ("slowloris", slowloris(50)),
        ("rapid reset", h2_flood(rapid_reset, "HEADERS+RST_STREAM")),
        ("CONTINUATION flood", h2_flood(continuation_flood, "CONTINUATION")),
        ("SETTINGS flood", h2_flood(settings_flood, "SETTINGS")),
        ("PING flood", h2_flood(ping_flood, "PING")),
        ("1 MiB header blocks", h2_flood(huge_header_block, "1 MiB HEADERS")),
        ("1,000 streams on one connection", many_streams),
        ("zero-window holds", zero_window(50)),
        ("20 connections x 100 zero-window streams", zero_window(20, 100)),
        ("10 connections x 100 streams", concurrent_streams()),
        ("held bodies, declared lengths", held_bodies(10)),
        ("held bodies, no length", held_bodies(10, framed=False)),
        ("held bodies, Expect: 100-continue", held_bodies(10, expect=True)),
    ]
    if SHORT:
        keep = {"HEAD loop (anonymous)", "30 KB header", "malformed chunk size", "HTTP/1.1 framing error",
                "500 silent connections", "500 half HTTP/2 prefaces", "rapid reset", "CONTINUATION flood",
                "10 connections x 100 streams", "held bodies, declared lengths", "held bodies, no length"}
        attacks = [attack for attack in attacks if attack[0] in keep]
    only = os.environ.get("ROBUSTNESS_ONLY")
    if only:
        attacks = [attack for attack in attacks if attack[0] == only]
        if not attacks:
            sys.exit(f"no pattern named {only!r}")

    # CPU columns: cores the gateway and the attacker (niced; the observers run in a process of
    # their own) kept busy during the pattern; the machine has os.cpu_count() of them.
    print(f"\n{'pattern':34} {'others':>7} {'5xx':>5} {'p99 ms':>8} {'max ms':>8} {'peak MiB':>8} {'gw cpu':>6} {'attacker':>8}"
          f"  attacker saw ({os.cpu_count()} cores)")
    for number, (name, attack) in enumerate(attacks):
        with Observers() as observers:
            start, gateway_cpu = time.monotonic(), cpu_seconds()
            note, attacker_cpu = run_attack(attack, ATTACK_SECONDS, number)
            # One-shot patterns still get a full observation window.
            time.sleep(max(0, ATTACK_SECONDS - (time.monotonic() - start)))
            gateway_cpu = (cpu_seconds() - gateway_cpu) / (time.monotonic() - start)
        total, failed, p99, slowest = observers.summary()
        peak = observers.peak_mib
        print(f"{name:34} {total:7} {failed:5} {p99:8.1f} {slowest:8.1f} {peak:8.0f} {gateway_cpu:6.2f} {attacker_cpu:8.2f}  {note}")
        if peak > base_rss + PEAK_GROWTH_MIB:
            FAILURES.append(f"{name}: gateway memory peaked at {peak:.0f} MiB ({base_rss:.0f} MiB idle)")
        if failed:
            FAILURES.append(f"{name}: {failed} of {total} other requests failed {observers.failures()}")
        if not SHORT and name != CONTROL and p99 > 2 * idle_p99 and p99 > 5:
            FAILURES.append(f"{name}: others' p99 {p99:.1f} ms over 2x idle ({idle_p99:.1f} ms)")

    # Descriptors: every connection the attacks left must be released within the idle timeout.
    deadline = time.monotonic() + IDLE_TIMEOUT + 5
    while fds() > base_fds + 4 and time.monotonic() < deadline:
        time.sleep(1)
    after_fds = fds()
    # Memory: the gateway hands freed memory back every 10 s; give it two rounds.
    deadline = time.monotonic() + 25
    while rss_mib() > base_rss * 1.2 + 4 and time.monotonic() < deadline:
        time.sleep(1)
    after_rss = rss_mib()
    print(f"\ngateway file descriptors: {base_fds} before, {after_fds} after (idle timeout {IDLE_TIMEOUT:.0f} s)")
    print(f"gateway memory: {base_rss:.0f} MiB before, {after_rss:.0f} MiB after")
    if after_fds > base_fds + 4:
        FAILURES.append(f"file descriptors not released: {base_fds} before, {after_fds} after")
    if not SHORT and after_rss > base_rss * 1.2 + 4:
        FAILURES.append(f"memory not back within 20 %: {base_rss:.0f} MiB before, {after_rss:.0f} MiB after")

    shutdown_while_held()

    if FAILURES:
        print("\ngoals missed:")
        for failure in FAILURES:
            print(f"  - {failure}")
        sys.exit(1)
    print("\nevery goal met")


if __name__ == "__main__":
    main()
