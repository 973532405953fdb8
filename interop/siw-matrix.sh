#!/usr/bin/env bash
# siw-matrix.sh - jrdma's iWARP tools against Linux 6.1 siw and rdma-core 44 / perftest 4.5 in the interop
# guest (../shared/interop/rig.sh), both directions of every pair:
#   gs  Linux server in the guest (10.0.2.15), jrdma client on the host through --fwd (127.0.0.1:177xx)
#   js  jrdma server on host 127.0.0.1, Linux client in the guest connecting to 10.0.2.2 (slirp's name
#       for the host's loopback)
# Cells: rping -v (1 and 1000 pings of 64 B, 4 KiB and 65535 B, the largest rping accepts:
# RPING_BUFSIZE - 1), ucmatose with 12 connections, ib_send_bw/ib_write_bw/ib_read_bw/ib_write_lat -R
# (64 KiB/2 B defaults and 1 MiB), ib_write_bw/ib_read_bw -R -b (bidirectional), rdma_server/rdma_client against the examples' RdmaServer/RdmaClient.
#
#   interop/siw-matrix.sh [--smoke] [OUTDIR]     (default OUTDIR: interop/out/siw-matrix-DATE)
# --smoke: rping 4 KiB x 100 and ib_write_bw -R, both directions (IPv4). CELLS="name ..." runs a subset.
# IPv6 (full run, rig with --tap-ipv6): siw over TCPv6 between jrdma's siw0 on fd00:4::2 (namespace NS) and
# Linux siw1 on eth1's fd00:4::15 (rxe1 steps aside meanwhile): rping and ucmatose both ways, and
# ib_write_bw -R --ipv6-addr with PERFTEST_IPV6_DIR.
# Output: OUTDIR/summary.txt (one line per cell), commands.txt (exact commands of both sides),
# NAME.{linux,jrdma}.txt, guest-env.txt, devices.{linux,jrdma}.txt.
# Exit: 0 all cells passed, 1 a cell failed, 2 build/usage error, 125 the rig is unavailable.
# Needs root (the rig's --tap namespace, shared with rxe-matrix.sh so that one guest serves both).
# Host ports 47700-47749, rig state RIG_STATE (default /tmp/interop-rigstate), netns NS (interop).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SMOKE=0
if [ "${1:-}" = --smoke ]; then SMOKE=1; shift; fi
case "${1:-}" in -*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;; esac
OUT=${1:-$ROOT/interop/out/siw-matrix-$(date +%Y%m%d-%H%M%S)}
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
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/siw-matrix.XXXXXX")
: > "$OUT/commands.txt"; : > "$OUT/summary.txt"

# Build once (the launcher builds jrdma.jar when stale; the example launcher the examples), then never.
if ! { "$ROOT/bin/jrdma" --version > "$OUT/jrdma-version.txt" 2>&1 && "$ROOT/bin/jrdma-example" --build >> "$OUT/jrdma-version.txt" 2>&1; }; then
    cat "$OUT/jrdma-version.txt" >&2
    say "siw-matrix: build failed"
    exit 2
fi

rig_up
guest_helpers
HOST_PREFIX=""
HOST_ENV=""
gexec 'uname -r; rdma link; rping -s -S 65536 -C 1 2>&1; echo "(rping -S 65536: rc=$?)"; ib_write_bw --version 2>&1 | head -2' \
    > "$OUT/guest-env.txt" 2>&1

J="bin/jrdma"
if [ "$SMOKE" = 1 ]; then
    cell rping-4096x100.gs gs "rping -s -a 10.0.2.15 -p 7174 -v -S 4096" \
        "$J rping -c -vV -a 127.0.0.1 -p 47700 -C 100 -S 4096" 7174 check_rping gs 100
    cell rping-4096x100.js js "rping -c -v -V -a 10.0.2.2 -p 47710 -C 100 -S 4096" \
        "$J rping -s -v -a 127.0.0.1 -p 47710 -S 4096 --accept-timeout 60" tcp:47710 check_rping js 100
    cell ib_write_bw.gs gs "ib_write_bw -d siw0 -R -n 200" "$J write-bw -R -n 200 -p 47701 127.0.0.1" 18515 check_perf
    cell ib_write_bw.js js "ib_write_bw -d siw0 -R -n 200 -p 47711 10.0.2.2" \
        "$J write-bw -R -n 200 -p 47711 --bind 127.0.0.1" tcp:47711 check_perf
else
    for size in 64 4096 65535; do
        for n in 1 1000; do
            cell "rping-${size}x$n.gs" gs "rping -s -a 10.0.2.15 -p 7174 -v -S $size" \
                "$J rping -c -vV -a 127.0.0.1 -p 47700 -C $n -S $size" 7174 check_rping gs "$n"
            cell "rping-${size}x$n.js" js "rping -c -v -V -a 10.0.2.2 -p 47710 -C $n -S $size" \
                "$J rping -s -v -a 127.0.0.1 -p 47710 -S $size --accept-timeout 60" tcp:47710 check_rping js "$n"
        done
    done
    cell ucmatose-c12.gs gs "ucmatose -c 12 -C 10" "$J cmatose -s 127.0.0.1 -p 47702 -c 12 -C 10" 7471 check_status0
    cell ucmatose-c12.js js "ucmatose -s 10.0.2.2 -p 47712 -c 12 -C 10" \
        "$J cmatose -b 127.0.0.1 -p 47712 -c 12 -C 10" tcp:47712 check_status0
    for t in send_bw write_bw read_bw write_lat; do
        j=${t/_/-}
        cell "ib_$t.gs" gs "ib_$t -d siw0 -R -n 200" "$J $j -R -n 200 -p 47701 127.0.0.1" 18515 check_perf
        cell "ib_$t.js" js "ib_$t -d siw0 -R -n 200 -p 47711 10.0.2.2" \
            "$J $j -R -n 200 -p 47711 --bind 127.0.0.1" tcp:47711 check_perf
    done
    for t in send_bw write_bw read_bw write_lat; do
        j=${t/_/-}
        cell "ib_$t-1M.gs" gs "ib_$t -d siw0 -R -s 1048576 -n 50" "$J $j -R -s 1048576 -n 50 -p 47701 127.0.0.1" \
            18515 check_perf
        cell "ib_$t-1M.js" js "ib_$t -d siw0 -R -s 1048576 -n 50 -p 47711 10.0.2.2" \
            "$J $j -R -s 1048576 -n 50 -p 47711 --bind 127.0.0.1" tcp:47711 check_perf
    done
    # -b: both sides post (perftest's duplex); each prints the sum of both sides' reports.
    for t in write_bw read_bw; do
        j=${t/_/-}
        cell "ib_$t-b.gs" gs "ib_$t -d siw0 -R -b -n 200" "$J $j -R -b -n 200 -p 47701 127.0.0.1" 18515 check_perf
        cell "ib_$t-b.js" js "ib_$t -d siw0 -R -b -n 200 -p 47711 10.0.2.2" \
            "$J $j -R -b -n 200 -p 47711 --bind 127.0.0.1" tcp:47711 check_perf
    done
    cell rdma_server.gs gs "rdma_server -p 7999" "bin/jrdma-example RdmaClient -s 127.0.0.1 -p 47703" 7999 check_example
    cell rdma_client.js js "rdma_client -s 10.0.2.2 -p 47713" "bin/jrdma-example RdmaServer -p 47713" tcp:47713 \
        check_example

    # siw over TCPv6 on the tap link: Linux siw1 on eth1 (fd00:4::15), jrdma's siw0 in the namespace
    # (fd00:4::2). rxe1 steps aside while they run: rdma_cm picks the device registered first.
    if guest_ipv6; then
        gexec "rdma link del rxe1 && rdma link add siw1 type siw netdev eth1 && rdma link" 30 \
            > "$OUT/guest-links-ipv6.txt" 2>&1
        HOST_PREFIX="ip netns exec $NS"
        cell rping6-4096x100.gs gs "rping -s -a $GUEST6 -v -S 4096" \
            "$J rping -c -vV -a $GUEST6 -C 100 -S 4096 --device siw0" 7174 check_rping gs 100
        cell rping6-4096x100.js js "rping -c -v -V -a $HOST6 -C 100 -S 4096" \
            "$J rping -s -v -a $HOST6 -S 4096 --device siw0 --accept-timeout 60" tcp:7174 check_rping js 100
        cell ucmatose6-c4.gs gs "ucmatose -b $GUEST6 -c 4 -C 10" "$J cmatose -s $GUEST6 -c 4 -C 10 --device siw0" \
            7471 check_status0
        cell ucmatose6-c4.js js "ucmatose -s $HOST6 -c 4 -C 10" "$J cmatose -b $HOST6 -c 4 -C 10 --device siw0" \
            tcp:7471 check_status0
        if guest_perftest6; then
            cell ib_write_bw6.gs gs "$PT6 -d siw1 -R --ipv6-addr -n 200" \
                "$J write-bw -d siw0 -R --ipv6-addr -n 200 $GUEST6" 18515 check_perf
            cell ib_write_bw6.js js "$PT6 -d siw1 -R --ipv6-addr -n 200 $HOST6" \
                "$J write-bw -d siw0 -R --ipv6-addr -n 200 --bind $HOST6" tcp:18515 check_perf
        fi
        HOST_PREFIX=""
        gexec "rdma link del siw1; rdma link add rxe1 type rxe netdev eth1; rdma link" 30 \
            >> "$OUT/guest-links-ipv6.txt" 2>&1
    else
        say "siw-matrix: no IPv6 on the tap link (start the rig with --tap-ipv6): IPv6 cells left out"
    fi

    # Side by side, no peer: the device listings.
    gexec 'ibv_devices; ibv_devinfo -d siw0' > "$OUT/devices.linux.txt" 2>&1
    (cd "$ROOT" && JRDMA_NO_BUILD=1 bin/jrdma devices && JRDMA_NO_BUILD=1 bin/jrdma devinfo -d siw0) \
        > "$OUT/devices.jrdma.txt" 2>&1
fi
gexec 'dmesg | grep -iE "warn|oops|bug:|siw" | tail -20' > "$OUT/guest-dmesg.txt" 2>&1
rm -rf "$SCRATCH"
matrix_report "siw interop matrix"
