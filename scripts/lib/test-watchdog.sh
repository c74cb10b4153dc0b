# Sourced by scripts/test: runs `swift test` with Swift Testing's event stream written to a
# file, and stops the run when no test has started or ended for a while — a test that awaits
# something that never comes would otherwise hold CI until its own limit, and the console
# (block-buffered through a pipe) would not say which test it was.

# The IDs of the tests and test cases in event stream $1 that started and have not ended.
unfinished_tests() {
    local events=$1
    comm -23 \
        <(grep -E '"kind":"test(Case)?Started"' "$events" | sed -E 's/.*"testID":"([^"]*)".*/\1/' | sort) \
        <(grep -E '"kind":"test(Case)?Ended"' "$events" | sed -E 's/.*"testID":"([^"]*)".*/\1/' | sort) |
        sed 's#\\/#/#g'
}

# Every process below $1, the deepest first.
descendants() {
    local child
    for child in $(pgrep -P "$1"); do
        descendants "$child"
        echo "$child"
    done
}

# `swift test "$@"`, stopped (and failed) when its event stream at $events has not moved for
# $quiet seconds: the tests still running are printed, then the run and everything it started
# is killed.
swift_test_watched() {
    local events=$1 quiet=$2
    shift 2
    rm -f "$events"
    swift test --event-stream-output-path "$events" "$@" &
    local test_pid=$! last now
    while kill -0 "$test_pid" 2>/dev/null; do
        sleep 15
        [ -f "$events" ] || continue
        last=$(stat -c %Y "$events")
        now=$(date +%s)
        if [ $((now - last)) -ge "$quiet" ]; then
            {
                echo "test: no test started or ended for $((now - last)) s; still running:"
                unfinished_tests "$events" | sed 's/^/  /'
                echo "test: stopping the run"
            } >&2
            # shellcheck disable=SC2046
            kill -KILL $(descendants "$test_pid") "$test_pid" 2>/dev/null || true
            wait "$test_pid" 2>/dev/null || true
            return 1
        fi
    done
    wait "$test_pid"
}
