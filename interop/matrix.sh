#!/usr/bin/env bash
# matrix.sh - both interop matrices on one guest: siw-matrix.sh (jrdma siw <-> Linux siw over TCP) and
# rxe-matrix.sh (jrdma rxe <-> Linux rdma_rxe, RoCEv2 over the rig's --tap link), then one table.
#
#   interop/matrix.sh [--smoke] [OUTDIR]     (default OUTDIR: interop/out/matrix-DATE)
# --smoke: 8 cells: rping 4 KiB x 100 and ib_write_bw -R, both directions, on siw and on rxe; about 2
#          minutes on a busy 2-core TCG host (121-133 s measured). IPv4 only.
# The full run boots the rig with --tap-ipv6 and adds each matrix's IPv6 cells (names with a 6:
# rping6-..., ucmatose6-..., udaddy6, ib_write_bw6); PERFTEST_IPV6_DIR (a directory with perftest 23.07 or
# later's ib_write_bw) adds ib_write_bw -R --ipv6-addr, which perftest 4.5 cannot do.
# OUTDIR/siw and OUTDIR/rxe hold each matrix's files (see those scripts); OUTDIR/table.txt the table.
# Exit: 0 every cell passed, 1 a cell failed, 2 build or usage error, 125 the rig is unavailable (no
# QEMU, no root for the --tap namespace, setup or boot failed, the guest stopped answering): CI can
# tell "could not run" from "failed".
# Needs root. Environment: RIG (rig.sh), RIG_STATE (default /tmp/interop-rigstate), NS (netns, default
# interop), KEEP_RIG=1, CELLS (subset, names of either matrix), JAVA_HOME (default Temurin 25),
# PERFTEST_IPV6_DIR.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SMOKE=()
if [ "${1:-}" = --smoke ]; then SMOKE=(--smoke); shift; fi
case "${1:-}" in -*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;; esac
OUT=${1:-$ROOT/interop/out/matrix-$(date +%Y%m%d-%H%M%S)}
# RIG: rig.sh; when unset, the worktree's ../../shared/interop or /work/shared/interop (an RIG that is
# set but not there makes the run "unavailable", never another rig).
if [ -z "${RIG:-}" ]; then
    RIG=$(cd "$ROOT/../../shared/interop" 2>/dev/null && pwd)/rig.sh
    [ -x "$RIG" ] || RIG=/work/shared/interop/rig.sh
fi
export RIG
export RIG_STATE=${RIG_STATE:-/tmp/interop-rigstate}
export NS=${NS:-interop}
if [ -z "${JAVA_HOME:-}" ] && [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
    export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
# shellcheck source=interop/matrix-lib.sh
. "$HERE/matrix-lib.sh"
mkdir -p "$OUT/siw" "$OUT/rxe"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)

# What the rig needs before it can boot: unavailable, not failed, when missing.
unavailable() { say "matrix: rig unavailable: $*"; exit $RIG_EXIT_UNAVAILABLE; }
[ -x "$RIG" ] || unavailable "no rig.sh (set RIG)"
[ "$(id -u)" = 0 ] || unavailable "needs root (ip netns and /dev/net/tun for --tap)"
[ -c /dev/net/tun ] || unavailable "no /dev/net/tun"
command -v ip > /dev/null || unavailable "no ip (iproute2)"

# One guest for both: the siw matrix's --fwd ports and the rxe matrix's namespace.
RIG_ARGS="--fwd tcp:47700:7174 --fwd tcp:47701:18515 --fwd tcp:47702:7471 --fwd tcp:47703:7999 --netns $NS --timeout 3600"
# The full run also has IPv6 on the tap link (the IPv6 cells of both matrices); the smoke stays IPv4.
[ ${#SMOKE[@]} -eq 0 ] && RIG_ARGS="$RIG_ARGS $(rig_ipv6_args)"
"$RIG" setup > "$OUT/rig-setup.log" 2>&1 || { tail -20 "$OUT/rig-setup.log" >&2; unavailable "rig.sh setup failed"; }
"$RIG" stop > /dev/null 2>&1 || true
# shellcheck disable=SC2086
if ! "$RIG" start $RIG_ARGS > "$OUT/rig-start.log" 2>&1; then
    tail -20 "$OUT/rig-start.log" >&2
    "$RIG" stop > /dev/null 2>&1 || true
    unavailable "rig.sh start failed"
fi
stop_rig() { [ "${KEEP_RIG:-0}" = 1 ] || "$RIG" stop > /dev/null 2>&1; }
trap stop_rig EXIT
rig_alive || unavailable "the guest does not answer"

export MATRIX_RIG_SHARED=1
"$HERE/siw-matrix.sh" "${SMOKE[@]}" "$OUT/siw"; siw_rc=$?
if [ "$siw_rc" = 2 ] || [ "$siw_rc" = "$RIG_EXIT_UNAVAILABLE" ]; then
    exit "$siw_rc"
fi
"$HERE/rxe-matrix.sh" "${SMOKE[@]}" "$OUT/rxe"; rxe_rc=$?
if [ "$rxe_rc" = 2 ] || [ "$rxe_rc" = "$RIG_EXIT_UNAVAILABLE" ]; then
    exit "$rxe_rc"
fi

# One table: matrix, cell, direction, verdict, perftest figure, note.
{
    echo "jrdma <-> Linux 6.1 interop matrix ($(date -u '+%Y-%m-%d %H:%M UTC'), $(( $(date +%s) - start )) s${SMOKE[*]:+, smoke})"
    printf '%-4s %-26s %-3s %-4s %-28s %s\n' rig cell dir res figure note
    for m in siw rxe; do
        awk -v m="$m" '{
            name = $1; dir = $2; res = $3
            rest = substr($0, index($0, $3) + length($3))
            sub(/^ +linux +[^ ]+ +jrdma +[^ ]+ +/, "", rest)
            printf "%-4s %-26s %-3s %-4s %s\n", m, name, dir, res, rest }' "$OUT/$m/summary.txt"
    done
    pass=$(cat "$OUT/siw/summary.txt" "$OUT/rxe/summary.txt" | awk '$3 == "PASS"' | wc -l)
    all=$(cat "$OUT/siw/summary.txt" "$OUT/rxe/summary.txt" | wc -l)
    echo "$pass of $all cells passed"
} | tee "$OUT/table.txt"
[ "$siw_rc" = 0 ] && [ "$rxe_rc" = 0 ]
