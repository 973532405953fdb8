#!/bin/bash
# rxe-matrix.sh - jrdma's RoCEv2 transport against Linux rdma_rxe, both directions.
#
# Boots the interop rig (../shared/interop/rig.sh) with --tap in its own network namespace, runs
# each cell (a Linux tool in the guest against a jrdma peer from jrdma-rxe's test sources in the
# namespace), records the output and the guest's rxe1 hw counters before and after, stops the rig
# and prints one line per cell. Needs root (ip netns, /dev/net/tun) and a JDK 25.
#
# Usage: interop/rxe-matrix.sh [OUTDIR]
# Environment: RIG (path of rig.sh), NS (netns name, default rxet), RIG_STATE (default
# /tmp/rxet-rigstate), JAVA_HOME (default Temurin 25), SKIP_BUILD=1, KEEP_RIG=1 (do not stop a rig
# this script started), CELLS (space-separated subset of the cell names below).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RIG=${RIG:-$(cd "$ROOT/../../shared/interop" 2>/dev/null && pwd)/rig.sh}
[ -x "$RIG" ] || RIG=/work/shared/interop/rig.sh
NS=${NS:-rxet}
export RIG_STATE=${RIG_STATE:-/tmp/rxet-rigstate}
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
[ -x "$JAVA_HOME/bin/java" ] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export JAVA_HOME
OUT=${1:-$ROOT/interop/out/rxe-matrix-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
HOST=10.0.4.2
GUEST=10.0.4.15
CNT=/sys/class/infiniband/rxe1/ports/1/hw_counters
CP="$ROOT/jrdma-rxe/target/classes:$ROOT/jrdma-rxe/target/test-classes:$ROOT/jrdma-core/target/classes"
JAVA=(ip netns exec "$NS" "$JAVA_HOME/bin/java" -Djrdma.rxe.devices=rxe0:$HOST -cp "$CP")
ALL_CELLS="rping-c64 rping-s64 rping-c30000 rping-s30000 udaddy-c udaddy-s"
CELLS=${CELLS:-$ALL_CELLS}

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    echo "building jrdma-rxe (test-compile)..."
    (cd "$ROOT" && mvn -B -ntp -q test-compile -pl jrdma-rxe -am) || { echo "build failed"; exit 2; }
fi

started=0
if ! "$RIG" status 2>/dev/null | grep -q '^running'; then
    echo "starting the rig (netns $NS, state $RIG_STATE)..."
    "$RIG" start --netns "$NS" --timeout 3600 > "$OUT/rig-start.log" 2>&1 || { cat "$OUT/rig-start.log"; exit 2; }
    started=1
fi
stop_rig() {
    if [ "$started" = 1 ] && [ "${KEEP_RIG:-0}" != 1 ]; then
        "$RIG" stop > /dev/null 2>&1
    fi
}
trap stop_rig EXIT

gexec() { "$RIG" exec --timeout "${2:-120}" -- "$1"; }
counters() { gexec "for f in $CNT/*; do echo \$(basename \$f)=\$(cat \$f); done | tr '\n' ' '"; }

declare -A RESULT
declare -A DELTA
run_cell() {
    local name=$1 desc=$2
    echo "== $name: $desc"
    counters > "$OUT/$name.counters-before.txt"
    local rc
    case $name in
        rping-c64|rping-c30000)
            local size=64 count=10; [ "$name" = rping-c30000 ] && { size=30000; count=200; }
            gexec "rping -s -a $GUEST -v -V -C $count -S $size > /tmp/$name.guest.log 2>&1 & sleep 1"
            timeout 300 "${JAVA[@]}" io.jrdma.rxe.interop.RpingPeer -c -a $GUEST -C $count -S $size -v -V \
                > "$OUT/$name.jrdma.log" 2>&1
            rc=$?
            sleep 2
            gexec "cat /tmp/$name.guest.log" > "$OUT/$name.guest.log"
            grep -q "rping exit 0" "$OUT/$name.jrdma.log" || rc=1
            [ "$(grep -c 'server ping data' "$OUT/$name.guest.log")" = "$count" ] || rc=1
            ;;
        rping-s64|rping-s30000)
            local size=64 count=10; [ "$name" = rping-s30000 ] && { size=30000; count=200; }
            timeout 300 "${JAVA[@]}" io.jrdma.rxe.interop.RpingPeer -s -a $HOST -S $size -v \
                > "$OUT/$name.jrdma.log" 2>&1 &
            local jpid=$!
            sleep 2
            gexec "rping -c -a $HOST -v -V -C $count -S $size; echo rping-rc=\$?" 300 > "$OUT/$name.guest.log" 2>&1
            wait $jpid
            rc=$?
            grep -q "rping-rc=0" "$OUT/$name.guest.log" || rc=1
            grep -q "server: $count pings" "$OUT/$name.jrdma.log" || rc=1
            ;;
        udaddy-c)
            gexec "udaddy -b $GUEST > /tmp/$name.guest.log 2>&1 & sleep 1"
            timeout 120 "${JAVA[@]}" io.jrdma.rxe.interop.UdaddyPeer -s $GUEST > "$OUT/$name.jrdma.log" 2>&1
            rc=$?
            sleep 2
            gexec "cat /tmp/$name.guest.log" > "$OUT/$name.guest.log"
            grep -q "return status 0" "$OUT/$name.guest.log" || rc=1
            ;;
        udaddy-s)
            timeout 120 "${JAVA[@]}" io.jrdma.rxe.interop.UdaddyPeer -b $HOST > "$OUT/$name.jrdma.log" 2>&1 &
            local jpid=$!
            sleep 2
            gexec "udaddy -s $HOST; echo udaddy-rc=\$?" > "$OUT/$name.guest.log" 2>&1
            wait $jpid
            rc=$?
            grep -q "udaddy-rc=0" "$OUT/$name.guest.log" || rc=1
            ;;
        *) echo "unknown cell $name"; rc=1 ;;
    esac
    counters > "$OUT/$name.counters-after.txt"
    if [ $rc = 0 ]; then RESULT[$name]=PASS; else RESULT[$name]=FAIL; fi
    DELTA[$name]=$(delta "$OUT/$name.counters-before.txt" "$OUT/$name.counters-after.txt")
    echo "   ${RESULT[$name]}  guest rxe1: ${DELTA[$name]}"
    echo "   jrdma: $(grep -h '^counters' "$OUT/$name.jrdma.log" | head -1)"
}

# Non-zero differences of the guest's hw counters (lifespan excluded).
delta() {
    awk 'NR==FNR { for (i = 1; i <= NF; i++) { split($i, kv, "="); b[kv[1]] = kv[2] } next }
         { for (i = 1; i <= NF; i++) { split($i, kv, "="); d = kv[2] - b[kv[1]];
           if (d != 0 && kv[1] != "lifespan") printf "%s+%d ", kv[1], d } }' "$1" "$2"
}

for c in $CELLS; do
    case $c in
        rping-c64) run_cell $c "guest rping -s (64 B x 10) <- jrdma RpingPeer -c" ;;
        rping-s64) run_cell $c "jrdma RpingPeer -s <- guest rping -c (64 B x 10)" ;;
        rping-c30000) run_cell $c "guest rping -s (30000 B x 200) <- jrdma RpingPeer -c" ;;
        rping-s30000) run_cell $c "jrdma RpingPeer -s <- guest rping -c (30000 B x 200)" ;;
        udaddy-c) run_cell $c "guest udaddy server <- jrdma UdaddyPeer client (SIDR, UD)" ;;
        udaddy-s) run_cell $c "jrdma UdaddyPeer server <- guest udaddy -s (SIDR, UD)" ;;
        *) echo "unknown cell $c"; RESULT[$c]=FAIL ;;
    esac
done

echo
echo "rxe interop matrix ($OUT):"
fail=0
for c in $CELLS; do
    printf '  %-14s %s  %s\n' "$c" "${RESULT[$c]}" "${DELTA[$c]:-}"
    [ "${RESULT[$c]}" = PASS ] || fail=1
done
gexec "dmesg | grep -i rxe | tail -5" > "$OUT/guest-dmesg-rxe.txt" 2>&1
exit $fail
