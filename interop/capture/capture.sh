#!/usr/bin/env bash
# capture.sh NAME 'GUEST CMD' ROCEPEER-ARGS...
# Against a guest started with `RIG_STATE=$RIG_STATE rig.sh start --netns $NETNS`: capture tap0 in the
# namespace with dumpcap, run GUEST CMD in the guest in the background, run rocepeer.py in the namespace,
# then collect the guest's output and rxe1 hw counters. Output in $OUT/NAME.{pcap,peer.log,guest.log,jsonl}.
# Every process started here is ended by its own PID.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RIG=${RIG:-/work/shared/interop/rig.sh}
NETNS=${NETNS:-rxewire}
OUT=${OUT:-$HERE/out}
export RIG_STATE=${RIG_STATE:-/tmp/rxewire-rigstate}
name=$1; gcmd=$2; shift 2
mkdir -p "$OUT"
counters='cd /sys/class/infiniband/rxe1/ports/1/hw_counters && for f in *; do printf "%s=%s " $f $(cat $f); done; echo'
"$RIG" exec -- "$counters" > "$OUT/$name.counters-before.txt"
ip netns exec "$NETNS" dumpcap -q -P -i tap0 -w "$OUT/$name.pcap" > /dev/null 2>&1 &
dpid=$!
sleep 1.5
"$RIG" exec -- "($gcmd) > /tmp/$name.log 2>&1 & sleep ${GUEST_DELAY:-2}"
ip netns exec "$NETNS" python3 "$HERE/rocepeer.py" "$@" --record "$OUT/$name.jsonl" 2>&1 | tee "$OUT/$name.peer.log"
rc=${PIPESTATUS[0]}
sleep ${GUEST_LINGER:-3}
"$RIG" exec -- "cat /tmp/$name.log; echo '--- rxe1 counters after:'; $counters" > "$OUT/$name.guest.log"
"$RIG" exec -- "uname -a; rdma link; dmesg | tail -n 20" > "$OUT/$name.dmesg.txt"
sleep 0.5
kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
echo "peer rc=$rc; guest log:"; cat "$OUT/$name.guest.log"
exit $rc
