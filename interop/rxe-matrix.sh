#!/usr/bin/env bash
# rxe-matrix.sh - jrdma's RoCEv2 tools against Linux 6.1 rdma_rxe and rdma-core 44 / perftest 4.5 in the
# interop guest (../shared/interop/rig.sh), both directions of every pair, over the rig's --tap link (no
# NAT: the guest's rxe1 on eth1 10.0.4.15, jrdma's rxe0 on tap0 10.0.4.2 inside network namespace NS):
#   gs  Linux server in the guest, jrdma client in the namespace
#   js  jrdma server in the namespace, Linux client in the guest
# Cells: rping -v (1 and 1000 pings of 64 B, 4 KiB and 65535 B), ucmatose with 10 connections, udaddy (UD,
# SIDR), ib_send_bw (RC and UD), ib_write_bw, ib_read_bw, ib_atomic_bw and ib_write_lat with -R, and
# ib_write_bw/ib_read_bw -R with 1 MiB messages, rdma_server/rdma_client against the examples'
# RdmaServer/RdmaClient.
# Each cell also keeps the guest's rxe1 hw counters before and after (NAME.counters-{before,after}.txt)
# and shows their non-zero differences.
#
#   interop/rxe-matrix.sh [--smoke] [OUTDIR]     (default OUTDIR: interop/out/rxe-matrix-DATE)
# --smoke: rping 4 KiB x 100 and ib_write_bw -R, both directions (IPv4). CELLS="name ..." runs a subset.
# IPv6 (full run, rig with --tap-ipv6): rping, ucmatose and udaddy both ways between rxe0 on fd00:4::2 and
# rxe1 on fd00:4::15, ib_write_bw -R --ipv6-addr with PERFTEST_IPV6_DIR (perftest >= 23.07; see
# matrix-lib.sh), and perftest 4.5's refusal of an IPv6 -R address.
# The jrdma side: JRDMA_RXE=rxe0:10.0.4.2 bin/jrdma TOOL ... -d rxe0 (rping/cmatose/udaddy: --device
# rxe0; siw0 serves the address too and rdma_cm would pick iWARP first).
# Exit: 0 all cells passed, 1 a cell failed, 2 build/usage error, 125 the rig is unavailable.
# Needs root (ip netns, /dev/net/tun). Rig state RIG_STATE (default /tmp/interop-rigstate), netns NS
# (default interop), host ports 47700-47749 (the --fwd ports siw-matrix.sh uses; one guest serves both).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SMOKE=0
if [ "${1:-}" = --smoke ]; then SMOKE=1; shift; fi
case "${1:-}" in -*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;; esac
OUT=${1:-$ROOT/interop/out/rxe-matrix-$(date +%Y%m%d-%H%M%S)}
# RIG: rig.sh; when unset, the worktree's ../../shared/interop or /work/shared/interop (an RIG that is
# set but not there makes the run "unavailable", never another rig).
if [ -z "${RIG:-}" ]; then
    RIG=$(cd "$ROOT/../../shared/interop" 2>/dev/null && pwd)/rig.sh
    [ -x "$RIG" ] || RIG=/work/shared/interop/rig.sh
fi
export RIG_STATE=${RIG_STATE:-/tmp/interop-rigstate}
NS=${NS:-interop}
# shellcheck source=interop/matrix-lib.sh
. "$HERE/matrix-lib.sh"
RIG_ARGS=${RIG_ARGS:-"--fwd tcp:47700:7174 --fwd tcp:47701:18515 --fwd tcp:47702:7471 --fwd tcp:47703:7999 --netns $NS --timeout 3600"}
[ "$SMOKE" = 1 ] || [ "${MATRIX_RIG_SHARED:-0}" = 1 ] || RIG_ARGS="$RIG_ARGS $(rig_ipv6_args)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rxe-matrix.XXXXXX")
: > "$OUT/commands.txt"; : > "$OUT/summary.txt"
HOST=10.0.4.2
GUEST=10.0.4.15
CNT=/sys/class/infiniband/rxe1/ports/1/hw_counters

if ! { "$ROOT/bin/jrdma" --version > "$OUT/jrdma-version.txt" 2>&1 && "$ROOT/bin/jrdma-example" --build >> "$OUT/jrdma-version.txt" 2>&1; }; then
    cat "$OUT/jrdma-version.txt" >&2
    say "rxe-matrix: build failed"
    exit 2
fi

rig_up
guest_helpers
HOST_PREFIX="ip netns exec $NS"
HOST_ENV="JRDMA_RXE=rxe0:$HOST"
gexec "uname -r; rdma link; ibv_devinfo -d rxe1 | grep -E 'active_mtu|link_layer'; ib_write_bw --version 2>&1 | head -2" \
    > "$OUT/guest-env.txt" 2>&1
$HOST_PREFIX ip -br addr >> "$OUT/guest-env.txt" 2>&1

counters() { gexec "for f in $CNT/*; do echo \$(basename \$f)=\$(cat \$f); done | tr '\n' ' '" 30; }
# Non-zero differences of the guest's hw counters (lifespan excluded).
delta() {
    awk 'NR==FNR { for (i = 1; i <= NF; i++) { split($i, kv, "="); b[kv[1]] = kv[2] } next }
         { for (i = 1; i <= NF; i++) { split($i, kv, "="); d = kv[2] - b[kv[1]];
           if (d != 0 && kv[1] != "lifespan") printf "%s+%d ", kv[1], d } }' "$1" "$2"
}
before_cell() { counters > "$OUT/$1.counters-before.txt" 2>&1; }
after_cell() {
    counters > "$OUT/$1.counters-after.txt" 2>&1
    MATRIX_EXTRA[$1]="guest rxe1: $(delta "$OUT/$1.counters-before.txt" "$OUT/$1.counters-after.txt")"
}
retry_cell() {
    mv "$OUT/$1.counters-before.txt" "$OUT/$1.try1.counters-before.txt"
    mv "$OUT/$1.counters-after.txt" "$OUT/$1.try1.counters-after.txt"
}
CELL_BEFORE=before_cell
CELL_AFTER=after_cell
CELL_RETRY=retry_cell

J="bin/jrdma"
rping_pair() {  # rping_pair SIZE COUNT
    local size=$1 n=$2
    cell "rping-${size}x$n.gs" gs "rping -s -a $GUEST -v -S $size" \
        "$J rping -c -vV -a $GUEST -C $n -S $size --device rxe0" 7174 check_rping gs "$n"
    cell "rping-${size}x$n.js" js "rping -c -v -V -a $HOST -C $n -S $size" \
        "$J rping -s -v -d -a $HOST -S $size --device rxe0 --accept-timeout 60" "text:^rdma_listen" \
        check_rping js "$n"
}
perf_pair() {  # perf_pair CELLNAME TOOL "EXTRA FLAGS" [none: the server prints no row]
    local name=$1 t=$2 more=$3 j=${2/_/-}
    cell "$name.gs" gs "ib_$t -d rxe1 -R -n 200 $more" "$J $j -d rxe0 -R -n 200 $more $GUEST" 18515 check_perf ${4:-}
    cell "$name.js" js "ib_$t -d rxe1 -R -n 200 $more $HOST" "$J $j -d rxe0 -R -n 200 $more --bind $HOST" \
        "text:Waiting for client to connect" check_perf ${4:-}
}

if [ "$SMOKE" = 1 ]; then
    rping_pair 4096 100
    perf_pair ib_write_bw write_bw ""
else
    for size in 64 4096 65535; do
        for n in 1 1000; do
            rping_pair "$size" "$n"
        done
    done
    cell ucmatose-c10.gs gs "ucmatose -b $GUEST -c 10 -C 10" "$J cmatose -s $GUEST -c 10 -C 10 --device rxe0" 7471 \
        check_status0
    cell ucmatose-c10.js js "ucmatose -s $HOST -c 10 -C 10" "$J cmatose -b $HOST -c 10 -C 10 --device rxe0" \
        "text:^cmatose: starting server" check_status0
    cell udaddy.gs gs "udaddy -b $GUEST" "$J udaddy -s $GUEST --device rxe0" 7174 check_status0
    cell udaddy.js js "udaddy -s $HOST" "$J udaddy -b $HOST --device rxe0" "text:^udaddy: starting server" check_status0
    perf_pair ib_send_bw send_bw ""
    perf_pair ib_send_bw-ud send_bw "-c UD -s 1024"
    perf_pair ib_write_bw write_bw ""
    perf_pair ib_read_bw read_bw ""
    perf_pair ib_atomic_bw atomic_bw ""
    perf_pair ib_write_lat write_lat ""
    perf_pair1m() {  # perf_pair1m CELLNAME TOOL: 1 MiB messages, 50 iterations
        local name=$1 t=$2 j=${2/_/-}
        cell "$name.gs" gs "ib_$t -d rxe1 -R -s 1048576 -n 50" "$J $j -d rxe0 -R -s 1048576 -n 50 $GUEST" 18515 \
            check_perf
        cell "$name.js" js "ib_$t -d rxe1 -R -s 1048576 -n 50 $HOST" \
            "$J $j -d rxe0 -R -s 1048576 -n 50 --bind $HOST" "text:Waiting for client to connect" check_perf
    }
    perf_pair1m ib_write_bw-1M write_bw
    perf_pair1m ib_read_bw-1M read_bw
    # librdmacm's examples against the examples module's twins. RdmaServer prints its start before it
    # listens and rxe has no TCP listener to wait for, so the guest client waits 2 s more.
    cell rdma_server.gs gs "rdma_server -p 7999" "bin/jrdma-example RdmaClient -s $GUEST -p 7999 -d rxe0" 7999 \
        check_example
    cell rdma_client.js js "bash -c 'sleep 2; exec rdma_client -s $HOST -p 7999'" \
        "bin/jrdma-example RdmaServer -p 7999 -d rxe0" "text:^rdma_server: start" check_example

    # RoCEv2 over IPv6: jrdma's rxe0 on tap0's fd00:4::2, Linux rxe1 on eth1's fd00:4::15 (its GID 2).
    if guest_ipv6; then
        HOST_ENV="JRDMA_RXE=rxe0:[$HOST6]"
        cell rping6-4096x100.gs gs "rping -s -a $GUEST6 -v -S 4096" \
            "$J rping -c -vV -a $GUEST6 -C 100 -S 4096 --device rxe0" 7174 check_rping gs 100
        cell rping6-4096x100.js js "rping -c -v -V -a $HOST6 -C 100 -S 4096" \
            "$J rping -s -v -d -a $HOST6 -S 4096 --device rxe0 --accept-timeout 60" "text:^rdma_listen" \
            check_rping js 100
        cell ucmatose6-c4.gs gs "ucmatose -b $GUEST6 -c 4 -C 10" "$J cmatose -s $GUEST6 -c 4 -C 10 --device rxe0" \
            7471 check_status0
        cell ucmatose6-c4.js js "ucmatose -s $HOST6 -c 4 -C 10" "$J cmatose -b $HOST6 -c 4 -C 10 --device rxe0" \
            "text:^cmatose: starting server" check_status0
        cell udaddy6.gs gs "udaddy -b $GUEST6" "$J udaddy -s $GUEST6 --device rxe0" 7174 check_status0
        cell udaddy6.js js "udaddy -s $HOST6" "$J udaddy -b $HOST6 --device rxe0" "text:^udaddy: starting server" \
            check_status0
        if guest_perftest6; then
            cell ib_write_bw6.gs gs "$PT6 -d rxe1 -R --ipv6-addr -n 200" \
                "$J write-bw -d rxe0 -R --ipv6-addr -n 200 $GUEST6" 18515 check_perf
            cell ib_write_bw6.js js "$PT6 -d rxe1 -R --ipv6-addr -n 200 $HOST6" \
                "$J write-bw -d rxe0 -R --ipv6-addr -n 200 --bind $HOST6" "text:Waiting for client to connect" \
                check_perf
        fi
        # What perftest 4.5 (the guest's) makes of an IPv6 -R address: it refuses it at once.
        cell ib_write_bw6-perftest45.js js "ib_write_bw -d rxe1 -R -n 200 $HOST6" \
            "$J write-bw -d rxe0 -R --ipv6-addr -n 200 --bind $HOST6 --accept-timeout 20" \
            "text:Waiting for client to connect" check_af_refused
        HOST_ENV="JRDMA_RXE=rxe0:$HOST"
    else
        say "rxe-matrix: no IPv6 on the tap link (start the rig with --tap-ipv6): IPv6 cells left out"
    fi

    # Side by side, no peer: the device listings.
    gexec 'ibv_devices; ibv_devinfo -d rxe1' > "$OUT/devices.linux.txt" 2>&1
    (cd "$ROOT" && $HOST_PREFIX env JRDMA_NO_BUILD=1 $HOST_ENV bin/jrdma devices \
        && $HOST_PREFIX env JRDMA_NO_BUILD=1 $HOST_ENV bin/jrdma devinfo -d rxe0) > "$OUT/devices.jrdma.txt" 2>&1
fi
gexec 'dmesg | grep -iE "rxe|warn|oops|bug:" | tail -20' > "$OUT/guest-dmesg.txt" 2>&1
# Frames the guest's NIC dropped (a TCG guest cannot always keep up with a burst from the host).
gexec 'ip -s -s link show eth1; cat /sys/class/net/eth1/statistics/rx_dropped' > "$OUT/guest-eth1.txt" 2>&1
rm -rf "$SCRATCH"
matrix_report "rxe interop matrix"
