# Shared by the benchmark scripts (sourced, not run): a release stack on fixed ports, CPU
# accounting per process, and one h2load run with its latency percentiles.

# Starts `pinhole up --tls` from $PINHOLE_BIN (default .build/release) over $work/data, the
# gateway on $STACK_PORT (default 18080) and the services on the next ports after
# $STACK_PORT + 20; sets gateway and up_pid.
start_stack() {
    local gateway_port=${STACK_PORT:-18080} base=$((${STACK_PORT:-18080} + 20)) service
    for service in auth media feed streak alerts moderation; do
        base=$((base + 1))
        export "SERVICES_$(echo "$service" | tr '[:lower:]' '[:upper:]')_URL=https://127.0.0.1:$base"
    done
    "${PINHOLE_BIN:-$PWD/.build/release}/pinhole" up --data-dir "$work/data" --gateway-port "$gateway_port" --tls \
        >"$work/up.log" 2>&1 &
    up_pid=$!
    for _ in $(seq 1 120); do
        grep -q "pinhole: gateway at" "$work/up.log" && break
        sleep 0.5
    done
    grep -q "pinhole: gateway at" "$work/up.log" || { cat "$work/up.log"; echo "stack did not start"; exit 1; }
    gateway="https://localhost:$gateway_port"
}

stop_stack() {
    [ -n "${up_pid:-}" ] && kill -INT "$up_pid" 2>/dev/null && wait "$up_pid" 2>/dev/null || true
}

# Registers (if needed) and signs in $1@example.com; prints the access token.
sign_in() {
    curl -sk -X POST "$gateway/v1/auth/register" -H 'content-type: application/json' \
        -d "{\"email\":\"$1@example.com\",\"password\":\"benchmark password\"}" >/dev/null
    curl -sk -X POST "$gateway/v1/auth/login" -H 'content-type: application/json' \
        -d "{\"email\":\"$1@example.com\",\"password\":\"benchmark password\"}" |
        sed -E 's/.*"accessToken":"([^"]+)".*/\1/'
}

# CPU time (clock ticks) used so far by every process with this name, or by this pid (a
# process that has exited counts nothing).
cpu_ticks() {
    local total=0 pid pids ticks
    if [[ "$1" =~ ^[0-9]+$ ]]; then pids=$1; else pids=$(pgrep -x "$1"); fi
    for pid in $pids; do
        ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) || ticks=0
        total=$((total + ${ticks:-0}))
    done
    echo "$total"
}

# Waits (up to 60 s) until PROCESS is idle - at most one clock tick of CPU in a second - so
# that a CPU-per-request figure holds no work left from seeding (an index rebuild, events).
settle() {
    local before after
    for _ in $(seq 1 60); do
        before=$(cpu_ticks "$1")
        sleep 1
        after=$(cpu_ticks "$1")
        [ $((after - before)) -le 1 ] && return 0
    done
    echo "($1 still busy after 60 s)" >&2
}

# More h2load arguments for `measure` (a request body, a method), set by the caller.
h2load_extra=()

# One h2load run: measure URL TOKEN REQUESTS CONNECTIONS STREAMS PROCESS...
# Prints "rps p50 p90 p99 failed" (latencies in ms) and then, for each PROCESS, its CPU time
# per request in µs.
measure() {
    local url=$1 token=$2 requests=$3 connections=$4 streams=$5
    shift 5
    local log="$work/h2load.log" before=() after=() process out rps failed cpu=""
    rm -f "$log"
    for process in "$@"; do before+=("$(cpu_ticks "$process")"); done
    out=$(h2load -n "$requests" -c "$connections" -m "$streams" -t 1 --log-file="$log" "${h2load_extra[@]}" \
        -H "authorization: Bearer $token" "$url")
    for process in "$@"; do after+=("$(cpu_ticks "$process")"); done
    for i in "${!before[@]}"; do
        cpu+=" $(awk -v t=$((after[i] - before[i])) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
            'BEGIN { printf "%.0f", t / hz / n * 1e6 }')"
    done
    rps=$(echo "$out" | sed -nE 's/^finished in [^,]+, ([0-9.]+) req\/s.*/\1/p')
    failed=$(echo "$out" | sed -nE 's/^requests: .* ([0-9]+) failed.*/\1/p')
    cut -f3 "$log" | sort -n | awk -v rps="$rps" -v failed="$failed" -v cpu="$cpu" '
        { v[NR] = $1 }
        END {
            printf "%s %.2f %.2f %.2f %s%s\n", rps, v[int(NR * 0.50)] / 1000, v[int(NR * 0.90)] / 1000,
                v[int(NR * 0.99)] / 1000, failed, cpu
        }'
}

# Latency of $work/NAME.us (one time in µs per line): prints n, mean, sd and percentiles in
# ms; mean, sd and n go to $work/NAME.stats for `welch`.
latency_summary() {
    sort -n "$work/$1.us" | awk -v name="$1" '
        { v[NR] = $1; s += $1; q += $1 * $1 }
        END {
            m = s / NR; sd = sqrt((q - NR * m * m) / (NR - 1))
            printf "%-16s n=%d  mean %.2f ms  sd %.2f  p50 %.2f  p90 %.2f  p99 %.2f\n", name, NR, m / 1000, sd / 1000,
                v[int(NR * 0.5)] / 1000, v[int(NR * 0.9)] / 1000, v[int(NR * 0.99)] / 1000
            print m, sd, NR > "/dev/stderr"
        }' 2>"$work/$1.stats"
}

# welch A B: both latencies, then B's mean less A's with Welch's t (|t| < 4.5: no difference
# a measurement of this size can tell apart).
welch() {
    latency_summary "$1"
    latency_summary "$2"
    local m1 s1 n1 m2 s2 n2
    read -r m1 s1 n1 <"$work/$1.stats"
    read -r m2 s2 n2 <"$work/$2.stats"
    awk -v a="$1" -v b="$2" -v m1="$m1" -v s1="$s1" -v n1="$n1" -v m2="$m2" -v s2="$s2" -v n2="$n2" 'BEGIN {
        se = sqrt(s1 * s1 / n1 + s2 * s2 / n2)
        printf "%s - %s: %+.3f ms (%+.2f %%), Welch t = %.2f\n", b, a, (m2 - m1) / 1000, (m2 - m1) / m1 * 100, (m2 - m1) / se
    }'
}
