# matrix-lib.sh - shared by interop/siw-matrix.sh and interop/rxe-matrix.sh (source it, do not run it).
#
# A cell runs one Linux tool in the interop guest (../shared/interop/rig.sh) against one jrdma tool on
# the host, in one of two directions:
#   gs  the Linux server in the guest, the jrdma client on the host (it connects only after the guest's
#       rdma_cm id is in state LISTEN, as the rig's known issues ask);
#   js  the jrdma server on the host, the Linux client in the guest (it starts once the jrdma server is
#       ready: a TCP listener for siw, a line of the server's output for rxe).
# Each cell keeps in OUT: NAME.linux.txt and NAME.jrdma.txt (output + "rc=N"; long lines cut at 200
# characters and long outputs cut to their first and last 25 lines, with the full line count and md5),
# one entry in commands.txt (both exact commands) and one line in summary.txt. A failed cell runs once
# more (TCG guests are slow under load); the first attempt stays as NAME.try1.{linux,jrdma}.txt.
#
# Exit codes of the scripts: 0 every cell passed, 1 a cell failed, 2 build or usage error,
# 125 the rig is unavailable (cannot set up, boot, or reach the guest; not an interop result).
#
# The caller sets: ROOT, OUT, RIG, RIG_STATE (exported), SCRATCH, and for each cell HOST_PREFIX (what
# runs the jrdma side: empty, or "ip netns exec NS"), HOST_ENV (e.g. "JRDMA_RXE=rxe0:10.0.4.2").

MATRIX_CELL_TIMEOUT=${MATRIX_CELL_TIMEOUT:-240}   # bound of one side of one cell, seconds
MATRIX_LISTEN_WAIT=${MATRIX_LISTEN_WAIT:-40}       # how long a server may take to listen, seconds
MATRIX_TRIES=${MATRIX_TRIES:-2}
RIG_EXIT_UNAVAILABLE=125
declare -a MATRIX_CELLS=()
declare -A MATRIX_RESULT=()
declare -A MATRIX_NOTE=()
declare -A MATRIX_EXTRA=()   # set by a CELL_AFTER hook: shown after the verdict (e.g. counter deltas)
declare -A MATRIX_FIG=()     # the perftest figure of a cell (from the client's result row)

say() { echo "$*" >&2; }

# gexec CMD [TIMEOUT]: run CMD in the guest, print its output, return its rc.
gexec() { "$RIG" exec --timeout "${2:-120}" -- "$1"; }

# The guest is up and answers: otherwise the run stops with 125 (rig unavailable).
rig_alive() {
    local out
    out=$(gexec 'echo alive' 20 2>&1) && [ "$out" = alive ]
}

# Boots the rig once for the whole run (unless MATRIX_RIG_SHARED=1: the caller did), with the --fwd
# ports of the siw matrix and the --tap namespace of the rxe matrix, so one guest serves both.
# RIG_ARGS: the start options. Exits 125 when the rig cannot be set up or booted.
MATRIX_RIG_OWNED=0
rig_up() {
    if [ "${MATRIX_RIG_SHARED:-0}" = 1 ]; then
        rig_alive || { say "the shared rig does not answer"; exit $RIG_EXIT_UNAVAILABLE; }
        return 0
    fi
    "$RIG" setup > "$OUT/rig-setup.log" 2>&1 || { cat "$OUT/rig-setup.log" >&2; say "rig setup failed"; exit $RIG_EXIT_UNAVAILABLE; }
    "$RIG" stop > /dev/null 2>&1 || true
    # shellcheck disable=SC2086
    if ! "$RIG" start $RIG_ARGS > "$OUT/rig-start.log" 2>&1; then
        cat "$OUT/rig-start.log" >&2
        say "rig start failed"
        "$RIG" stop > /dev/null 2>&1 || true
        exit $RIG_EXIT_UNAVAILABLE
    fi
    MATRIX_RIG_OWNED=1
    trap rig_down EXIT
    rig_alive || { say "the guest does not answer"; exit $RIG_EXIT_UNAVAILABLE; }
}

rig_down() {
    if [ "$MATRIX_RIG_OWNED" = 1 ] && [ "${KEEP_RIG:-0}" != 1 ]; then
        "$RIG" stop > /dev/null 2>&1
        MATRIX_RIG_OWNED=0
    fi
}

# Copies interop/guest/*.sh to the guest's /tmp: trim.sh (cuts long lines; rping -v prints up to
# 64 KiB per line) and bounded.sh (a time bound; the guest's busybox timeout fails).
guest_helpers() {
    local f
    for f in "$ROOT"/interop/guest/*.sh; do
        gexec "echo $(base64 -w0 < "$f") | base64 -d > /tmp/$(basename "$f") && chmod +x /tmp/$(basename "$f")" 30 \
            > /dev/null || { say "cannot copy $f to the guest"; exit $RIG_EXIT_UNAVAILABLE; }
    done
}

# host_trim FILE: the same for a host file.
host_trim() {
    echo "# $(wc -l < "$1") lines, $(wc -c < "$1") bytes, md5 $(md5sum < "$1" | cut -c1-32)"
    awk '{ if (length($0) > 200) print substr($0, 1, 200) "[... " length($0) " chars]"; else print }' "$1"
}

# keep FILE: what goes into OUT: at most the first and the last 25 lines (after the header).
keep() {
    local n
    n=$(wc -l < "$1")
    if [ "$n" -le 61 ]; then
        cat "$1"
    else
        head -n 26 "$1"
        echo "[... $((n - 51)) lines not kept here ...]"
        tail -n 25 "$1"
    fi
}

# Waits until a guest rdma_cm id listens on PORT (rdma res show cm_id). Returns 1 after the wait.
guest_wait_listen() {
    gexec "for i in \$(seq 1 $((MATRIX_LISTEN_WAIT * 5))); do
        rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN.*:$1 ' && exit 0; sleep 0.2; done; exit 1" \
        $((MATRIX_LISTEN_WAIT + 20)) > /dev/null 2>&1
}

# Waits until the host side is ready: "tcp:PORT" (a TCP listener in the namespace of HOST_PREFIX) or
# "text:REGEX" (a line in FILE). Also returns when the process PID ended.
host_wait_ready() {
    local ready=$1 file=$2 pid=$3 i
    for i in $(seq 1 $((MATRIX_LISTEN_WAIT * 5))); do
        kill -0 "$pid" 2>/dev/null || return 1
        case $ready in
            tcp:*) $HOST_PREFIX ss -ltnH "sport = :${ready#tcp:}" 2>/dev/null | grep -q LISTEN && return 0 ;;
            text:*) grep -qE "${ready#text:}" "$file" 2>/dev/null && return 0 ;;
        esac
        sleep 0.2
    done
    return 1
}

rc_of() { grep -o '^rc=[0-9a-z]*' "$1" 2>/dev/null | tail -1; }

# host_cmd CMD: the host command as the commands file shows it.
host_cmd() { echo "${HOST_PREFIX:+$HOST_PREFIX }${HOST_ENV:+$HOST_ENV }$1"; }

# run_host_bg CMD FILE: starts the jrdma side in the background; HOST_PID is its timeout's pid (ip
# netns exec, env and timeout exec one another, so it is one process).
HOST_PID=
run_host_bg() {
    # shellcheck disable=SC2086
    $HOST_PREFIX env JRDMA_NO_BUILD=1 $HOST_ENV timeout -k 5 "$MATRIX_CELL_TIMEOUT" \
        bash -c "cd '$ROOT' && exec $1" > "$2" 2>&1 < /dev/null &
    HOST_PID=$!
}

# attempt NAME DIR LINUX JRDMA READY CHECK...: one attempt of a cell; leaves SCRATCH/NAME.{linux,jrdma}.
# gs: LINUX is the guest server, JRDMA the host client; READY is the guest port to wait for.
# js: JRDMA is the host server, LINUX the guest client; READY is tcp:PORT or text:REGEX.
attempt() {
    local name=$1 dir=$2 lcmd=$3 jcmd=$4 ready=$5
    local lf="$SCRATCH/$name.linux" jf="$SCRATCH/$name.jrdma" prog=${3%% *} jp rc
    rm -f "$lf" "$jf" "$jf.raw"
    gexec "rm -f /tmp/cell.log" 20 > /dev/null
    if [ "$dir" = gs ]; then
        gexec "($lcmd > /tmp/cell.log 2>&1; echo \"rc=\$?\" >> /tmp/cell.log) > /dev/null 2>&1 &" 20 > /dev/null
        guest_wait_listen "$ready" || echo "matrix: the Linux server did not listen on port $ready within ${MATRIX_LISTEN_WAIT} s" >> "$jf.raw"
        run_host_bg "$jcmd" "$jf.out"
        jp=$HOST_PID
        wait "$jp"; rc=$?
        # The Linux server ends on its own once its client left; give it time, then stop it.
        if ! gexec "for i in \$(seq 1 150); do grep -q '^rc=' /tmp/cell.log && exit 0; sleep 0.2; done;
                kill \$(pidof $prog) 2>/dev/null; sleep 1; kill -9 \$(pidof $prog) 2>/dev/null;
                echo 'rc=killed (matrix: still running 30 s after the jrdma client ended)' >> /tmp/cell.log; exit 1" \
                60 > /dev/null 2>&1; then
            :
        fi
    else
        run_host_bg "$jcmd" "$jf.out"
        jp=$HOST_PID
        host_wait_ready "$ready" "$jf.out" "$jp" || echo "matrix: the jrdma server was not ready ($ready) within ${MATRIX_LISTEN_WAIT} s" >> "$jf.raw"
        gexec "/tmp/bounded.sh $MATRIX_CELL_TIMEOUT $lcmd > /tmp/cell.log 2>&1; echo \"rc=\$?\" >> /tmp/cell.log" \
            $((MATRIX_CELL_TIMEOUT + 30)) > /dev/null 2>&1
        # The jrdma server ends on its own once its client left; give it 30 s, then stop it.
        local i
        for i in $(seq 1 150); do kill -0 "$jp" 2>/dev/null || break; sleep 0.2; done
        if kill -0 "$jp" 2>/dev/null; then
            kill -TERM "$jp" 2>/dev/null
            echo "matrix: the jrdma server was still running 30 s after the Linux client ended; stopped" >> "$jf.raw"
        fi
        wait "$jp"; rc=$?
    fi
    { cat "$jf.out"; [ -f "$jf.raw" ] && cat "$jf.raw"; echo "rc=$rc"; } > "$jf.full"
    host_trim "$jf.full" > "$jf"
    gexec "/tmp/trim.sh /tmp/cell.log" 120 > "$lf" 2>&1 || echo "matrix: could not read the guest's log" >> "$lf"
    rm -f "$jf.out" "$jf.raw"
}

# cell NAME DIR LINUX JRDMA READY CHECK [ARGS...]: runs a cell (twice at most) and records it.
# CHECK is a function called as CHECK LINUXFILE JRDMAFILE ARGS...; it prints why a cell failed.
cell() {
    local name=$1 dir=$2 lcmd=$3 jcmd=$4 ready=$5 check=$6
    shift 6
    if [ -n "${CELLS:-}" ] && ! [[ " $CELLS " == *" $name "* ]]; then
        return 0
    fi
    MATRIX_CELLS+=("$name")
    rig_alive || { say "the guest stopped answering before cell $name"; exit $RIG_EXIT_UNAVAILABLE; }
    {
        echo "$name ($dir: $( [ "$dir" = gs ] && echo "Linux server in the guest, jrdma client on the host" \
            || echo "jrdma server on the host, Linux client in the guest"))"
        if [ "$dir" = gs ]; then
            echo "  guest server: $lcmd"
            echo "  host client:  $(host_cmd "$jcmd")"
        else
            echo "  host server:  $(host_cmd "$jcmd")"
            echo "  guest client: $lcmd"
        fi
    } >> "$OUT/commands.txt"
    local try why verdict=FAIL first=""
    for try in $(seq 1 "$MATRIX_TRIES"); do
        [ -n "${CELL_BEFORE:-}" ] && "$CELL_BEFORE" "$name"
        attempt "$name" "$dir" "$lcmd" "$jcmd" "$ready"
        [ -n "${CELL_AFTER:-}" ] && "$CELL_AFTER" "$name"
        why=$("$check" "$SCRATCH/$name.linux" "$SCRATCH/$name.jrdma" "$@")
        why=${why%; }
        if [ -z "$why" ]; then
            verdict=PASS
        fi
        keep "$SCRATCH/$name.linux" > "$OUT/$name.linux.txt"
        keep "$SCRATCH/$name.jrdma" > "$OUT/$name.jrdma.txt"
        if [ "$verdict" = PASS ] || [ "$try" = "$MATRIX_TRIES" ]; then
            break
        fi
        first="attempt 1 failed: $why"
        mv "$OUT/$name.linux.txt" "$OUT/$name.try1.linux.txt"
        mv "$OUT/$name.jrdma.txt" "$OUT/$name.try1.jrdma.txt"
        [ -n "${CELL_RETRY:-}" ] && "$CELL_RETRY" "$name"
        sleep 2
    done
    MATRIX_RESULT[$name]=$verdict
    if [ "$dir" = gs ]; then
        MATRIX_FIG[$name]=$(perf_figure "$SCRATCH/$name.jrdma")
    else
        MATRIX_FIG[$name]=$(perf_figure "$SCRATCH/$name.linux")
    fi
    local note=$why
    [ -n "$first" ] && note="${first}${why:+; attempt 2: $why}; attempt 2 ${verdict}"
    MATRIX_NOTE[$name]=$note
    printf '%-26s %-2s %-4s linux %-10s jrdma %-10s %-28s %s\n' "$name" "$dir" "$verdict" \
        "$(rc_of "$SCRATCH/$name.linux")" "$(rc_of "$SCRATCH/$name.jrdma")" "${MATRIX_FIG[$name]:--}" \
        "${note}${MATRIX_EXTRA[$name]:+${note:+; }${MATRIX_EXTRA[$name]}}" | tee -a "$OUT/summary.txt" >&2
}

# perf_figure FILE: the figure of perftest's last result row in FILE: "BW average" (MB/sec) of a
# bandwidth test, "t_typical" (usec) of a latency test; nothing when FILE has no result row.
perf_figure() {
    awk '/BW average\[/ { kind = "bw" } /t_typical\[/ { kind = "lat" }
         kind != "" && /^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ { row = $0; k = kind }
         END { if (row != "") { split(row, f, " ");
               if (k == "bw") printf "%s B: %s MB/s", f[1], f[4]; else printf "%s B: %s us typ", f[1], f[5] } }' "$1"
}

# ---- checks: print nothing when the cell passed, else why not.
both_rc0() {
    local l j
    l=$(rc_of "$1"); j=$(rc_of "$2")
    [ "$l" = rc=0 ] || echo -n "linux ${l:-no rc}; "
    [ "$j" = rc=0 ] || echo -n "jrdma ${j:-no rc}; "
}

# check_rping LINUX JRDMA DIR COUNT: rc 0 both, and pings 0 to COUNT-1 each printed once by the client
# ("ping data: rdma-ping-N") and by the server ("server ping data: rdma-ping-N"). Counted by match, not
# by line: Linux rping's stdout is block-buffered into the file, so its stderr ("client DISCONNECT
# EVENT...") can land in the middle of a ping's line, even inside "ping data" ("pinclient DISCONNECT
# EVENT...", then "g data: rdma-ping-983: ..."); those stderr lines are taken out before counting.
check_rping() {
    local dir=$3 count=$4 cf sf
    both_rc0 "$1" "$2"
    if [ "$dir" = gs ]; then cf=$2; sf=$1; else cf=$1; sf=$2; fi
    pings_ok "$cf" "$count" || echo -n "client printed $(pings_seen "$cf") of $count pings; "
    pings_ok "$sf" "$count" || echo -n "server printed $(pings_seen "$sf") of $count pings; "
}
# ping_ids FILE: the N of every "ping data: rdma-ping-N:" in FILE, rping's stderr lines taken out.
ping_ids() {
    perl -0pe 's/(?:client|server) DISCONNECT EVENT\.\.\.\n//g; s/wait for RDMA_READ_ADV state \d+\n//g' "$1" \
        | grep -oE 'ping data: rdma-ping-[0-9]+:' | grep -oE '[0-9]+'
}
pings_seen() { ping_ids "$1" | sort -u | wc -l; }
# pings_ok FILE COUNT: FILE shows exactly the pings 0..COUNT-1, each once.
pings_ok() {
    ping_ids "$1" | sort -n \
        | awk -v n="$2" '$1 != NR - 1 { bad = 1 } END { exit (bad || NR != n) }'
}

# check_status0 LINUX JRDMA: rc 0 both and "return status 0" on both sides (ucmatose, udaddy).
check_status0() {
    both_rc0 "$1" "$2"
    grep -q '^return status 0' "$1" || echo -n "linux: no 'return status 0'; "
    grep -q '^return status 0' "$2" || echo -n "jrdma: no 'return status 0'; "
}

# check_perf LINUX JRDMA [SERVER_ROWS]: rc 0 both and a result row on the client (and on the server
# unless SERVER_ROWS is "none").
check_perf() {
    local re='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
    both_rc0 "$1" "$2"
    grep -qE "$re" "$2" || echo -n "jrdma: no result row; "
    [ "${3:-}" = none ] || grep -qE "$re" "$1" || echo -n "linux: no result row; "
}

# check_example LINUX JRDMA: rc 0 both and "end 0" on both (rdma_server/rdma_client).
check_example() {
    both_rc0 "$1" "$2"
    grep -q 'end 0' "$1" || echo -n "linux: no 'end 0'; "
    grep -q 'end 0' "$2" || echo -n "jrdma: no 'end 0'; "
}

# ---- IPv6 (full runs only; --smoke stays IPv4): the rig's --tap link started with --tap-ipv6.
HOST6=fd00:4::2
GUEST6=fd00:4::15
# Whether the guest's eth1 has its IPv6 address (the rig was started with --tap-ipv6).
guest_ipv6() { gexec "ip -6 addr show dev eth1 2>/dev/null | grep -q ' $GUEST6/'" 20 > /dev/null 2>&1; }
# perftest 4.5 resolves its -R address as AF_INET only ("Address family for hostname not supported");
# perftest 23.07 and later take --ipv6-addr. PERFTEST_IPV6_DIR: a host directory with such an ib_write_bw
# and the libraries it needs beyond the guest's (libpci.so.3 and its own), shared at /mnt/host.
PT6="env LD_LIBRARY_PATH=/mnt/host /mnt/host/ib_write_bw"
guest_perftest6() {
    [ -n "${PERFTEST_IPV6_DIR:-}" ] && gexec "$PT6 --help 2>&1 | grep -q -- --ipv6-addr" 30 > /dev/null 2>&1
}
# The rig options for IPv6: --tap-ipv6 and, with PERFTEST_IPV6_DIR, its --share.
rig_ipv6_args() { echo "--tap-ipv6${PERFTEST_IPV6_DIR:+ --share $PERFTEST_IPV6_DIR}"; }
# check_af_refused LINUX JRDMA: the Linux tool refused the IPv6 address for its address family.
check_af_refused() {
    grep -q 'Address family for hostname not supported' "$1" \
        || echo -n "linux: no 'Address family for hostname not supported'; "
}

# Prints the table of this run and returns 0 when every cell passed.
matrix_report() {
    local title=$1 c fail=0
    echo
    echo "$title ($OUT):"
    for c in "${MATRIX_CELLS[@]}"; do
        printf '  %-26s %-4s %-28s %s\n' "$c" "${MATRIX_RESULT[$c]}" "${MATRIX_FIG[$c]:--}" \
            "${MATRIX_NOTE[$c]:+(${MATRIX_NOTE[$c]}) }${MATRIX_EXTRA[$c]:-}"
        [ "${MATRIX_RESULT[$c]}" = PASS ] || fail=1
    done
    return $fail
}
