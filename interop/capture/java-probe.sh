#!/usr/bin/env bash
# java-probe.sh: run JavaCmProbe (jrdma-rxe's codecs on a Java UDP socket) against the guest's
# `rping -s`, with dumpcap on tap0, against a guest started with
#   RIG_STATE=/tmp/rxewire-rigstate /work/shared/interop/rig.sh start --netns rxewire
# Output: out/java-probe.{pcap,log,guest.log}. Needs `mvn -pl jrdma-rxe -am verify` first (classes).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RIG=${RIG:-/work/shared/interop/rig.sh}
NETNS=${NETNS:-rxewire}
OUT=${OUT:-$HERE/out}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
export RIG_STATE=${RIG_STATE:-/tmp/rxewire-rigstate}
mkdir -p "$OUT"
counters='cat /sys/class/infiniband/rxe1/ports/1/hw_counters/rcvd_pkts /sys/class/infiniband/rxe1/ports/1/hw_counters/sent_pkts'
echo "rxe1 rcvd_pkts/sent_pkts before: $("$RIG" exec -- "$counters" | tr '\n' ' ')"
ip netns exec "$NETNS" dumpcap -q -P -i tap0 -w "$OUT/java-probe.pcap" > /dev/null 2>&1 &
dpid=$!
sleep 1.5
"$RIG" exec -- "(rping -s -a 10.0.4.15 -C 1 -v) > /tmp/java-probe.log 2>&1 & sleep 3"
ip netns exec "$NETNS" "$JAVA" -cp "$ROOT/jrdma-rxe/target/classes:$ROOT/jrdma-core/target/classes" \
    "$HERE/JavaCmProbe.java" 2>&1 | tee "$OUT/java-probe.log"
rc=${PIPESTATUS[0]}
sleep 2
"$RIG" exec -- "cat /tmp/java-probe.log" > "$OUT/java-probe.guest.log"
echo "rxe1 rcvd_pkts/sent_pkts after: $("$RIG" exec -- "$counters" | tr '\n' ' ')" | tee -a "$OUT/java-probe.log"
kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
python3 "$HERE/pcap2hex.py" list "$OUT/java-probe.pcap" | tee -a "$OUT/java-probe.log"
exit $rc
