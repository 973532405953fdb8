#!/usr/bin/env bash
# native-tools.sh - jrdma's tools and DiSNI applications over the kernel's devices (native:siw0) in the interop
# guest (../shared/interop/rig.sh: Linux 6.1, kernel siw0 and rxe0 on eth0 at 10.0.2.15, rdma-core 44), against
# Linux's own tools on the same kernel, through io.jrdma.cm and the kernel's rdma_cm.
#
#   interop/native-tools.sh [OUT] [STEP...]       STEP: rping (default), disni, rxe, udaddy, disni-rxe, perf, cross
#                                                 (rxe, udaddy, disni-rxe and perf delete siw0: run them last)
#
# rping: `jrdma rping -c --device native:siw0` against Linux `rping -s`, then `jrdma rping -s --device
#   native:siw0` against Linux `rping -c`, then the jrdma client without --device but with
#   -Djrdma.cm.provider=native (jrdma's software siw0 serves 10.0.2.15 too: the property hands the address to the
#   kernel's rdma_cm; rping -d names the id's device), each with -V (validation) and several pings.
# disni: DiSNI's own examples (SendRecv, Read, Verbs from DISNI_SRC, a checkout of github.com/zrlio/disni 2.1,
#   compiled unchanged against jrdma-disni), server and client as two JVMs over native:siw0 (10.0.2.15), with no
#   libdisni and no JNI; a step passes when both print their example's last result line. NATIVE_TOOLS_DISNI
#   picks examples (default "SendRecv Read Verbs").
# disni-rxe: the same over native:rxe0, siw0 deleted first.
# cross: jrdma over native:siw0 in the guest against jrdma's software siw0 on the host (host side started here,
#   host JVM on 127.0.0.1:47722, the guest's server reached through --fwd tcp:47723:7290), both directions.
# perf: jrdma write-lat/write-bw -R over native:rxe0 against perftest's on rxe0 (siw0 deleted), interleaved rounds;
#   prints the medians and the ratios jrdma/perftest.
# rxe: siw0 deleted, `jrdma rping --device native:rxe0` as client and as server against Linux rping: RoCE through the
#   kernel's rdma_cm (RTR/RTS from user space, rdma_establish).
# udaddy: siw0 deleted, `jrdma udaddy --device native:rxe0` as client and as server against Linux udaddy: the UDP
#   port space (SIDR) through the kernel's rdma_cm.
#
# Needs jrdma-tools/target/jrdma.jar (bin/jrdma builds it, or mvn package -pl jrdma-tools -am -DskipTests) and,
# for disni, `mvn install -pl jrdma-disni -am -DskipTests` with the same MAVEN_OPTS (local repository) and DISNI_SRC.
# OUT (default target/native-tools) gets guest.txt: the transcript, a "STEP name rc=N" line per step and the
# rig's rc. Every step is bounded in the guest (timeout), the whole VM by --timeout.
# Exit codes: 0 all steps passed, 1 a step failed, 2 build or usage error, 124 the guest timed out,
# 125 the rig is unavailable.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RIG=${RIG:-$ROOT/../shared/interop/rig.sh}
[ -x "$RIG" ] || RIG=/work/shared/interop/rig.sh
OUT=${1:-$ROOT/target/native-tools}
shift || true
STEPS=${*:-rping}
TIMEOUT=${NATIVE_TOOLS_TIMEOUT:-2400}
PINGS=${NATIVE_TOOLS_PINGS:-5}

[ -x "$RIG" ] || { echo "no interop rig at $RIG" >&2; exit 125; }
JAR=$ROOT/jrdma-tools/target/jrdma.jar
[ -f "$JAR" ] || { echo "build jrdma-tools first (bin/jrdma builds $JAR)" >&2; exit 2; }
mkdir -p "$OUT"
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/native-tools.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
cp "$JAR" "$STAGE/jrdma.jar"

# The tools allocate their buffers in Arena.ofShared() and close every region before its arena, which the
# native provider accepts with jrdma.native.closableArenas (jrdma-native/README.md).
JVM="java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData --enable-native-access=ALL-UNNAMED \
-Djrdma.native.closableArenas=true"
J="timeout 420 $JVM -jar /mnt/host/jrdma.jar"
# Waits (bounded) until something listens on TCP port $1: the kernel's iWARP CM listens on a real TCP port.
WAITPORT='waitport() { for i in $(seq 1 800); do ss -ltn | grep -q ":$1 " && return 0; sleep 0.5; done; return 1; }'
# Waits (bounded) until an rdma_cm id listens on port $1 (rdma resource show cm_id).
WAITCM='waitcm() { for i in $(seq 1 800); do rdma res show cm_id 2>/dev/null | grep LISTEN | grep -Eq ":$1( |$)" \
&& return 0; sleep 0.5; done; return 1; }'
# Waits (bounded) for a background step's rc line in its log.
WAITRC='waitrc() { for i in $(seq 1 800); do grep -q "rc=" "$1" && return 0; sleep 0.5; done; return 1; }'
step() { echo "echo; echo \"=== $1\"; "; }
GUEST="cd /mnt/host && ulimit -l unlimited; $WAITPORT; $WAITCM; $WAITRC; rc=0; rdma link; uname -r; java -version 2>&1 | head -1; \
$J devices"

disni_stage() {
    [ -f "$STAGE/disni/examples.jar" ] && return 0
    DMOD=$ROOT/jrdma-disni
    SRC=${DISNI_SRC:-}
    [ -n "$SRC" ] && [ -d "$SRC/src/test/java/com/ibm/disni/examples" ] || { echo "set DISNI_SRC to a checkout of \
https://github.com/zrlio/disni (v2.1): its examples are compiled unchanged against jrdma-disni" >&2; exit 2; }
    [ -d "$DMOD/target/classes" ] || { echo "build jrdma-disni first (mvn install -pl jrdma-disni -am -DskipTests)" >&2; exit 2; }
    (cd "$ROOT" && mvn -o -B -ntp -q dependency:build-classpath -Dmdep.outputFile="$STAGE/disni-cp.txt" \
        -Dmdep.includeScope=test -pl jrdma-disni) >&2 || { echo "cannot compute jrdma-disni's class path" >&2; exit 2; }
    mkdir -p "$STAGE/disni/lib"
    tr ':' '\n' < "$STAGE/disni-cp.txt" | grep -E 'jrdma-(core|siw|rxe)|slf4j|commons-cli' | while read -r j; do
        [ -n "$j" ] && cp "$j" "$STAGE/disni/lib/"; done
    # Jars: loading classes from one file each is much faster over the guest's 9p mount than from directories.
    EX=$SRC/src/test/java/com/ibm/disni
    mkdir -p "$STAGE/disni/ex-classes"
    "${JAVA_HOME:+$JAVA_HOME/bin/}javac" -proc:none -nowarn -d "$STAGE/disni/ex-classes" -cp "$DMOD/target/classes:$STAGE/disni/lib/*" \
        "$EX/CmdLineCommon.java" "$EX"/examples/*.java >&2 || { echo "DiSNI's examples do not compile" >&2; exit 2; }
    # DiSNI's examples and the command line they share, as DiSNI ships them (AffinityTest needs libdisni).
    (cd "$STAGE/disni/ex-classes" && "${JAVA_HOME:+$JAVA_HOME/bin/}jar" cf ../examples.jar .) && rm -rf "$STAGE/disni/ex-classes"
    (cd "$DMOD/target/classes" && "${JAVA_HOME:+$JAVA_HOME/bin/}jar" cf "$STAGE/disni/jrdma-disni.jar" .)
    (cd "$ROOT/jrdma-native/target/classes" && "${JAVA_HOME:+$JAVA_HOME/bin/}jar" cf "$STAGE/disni/jrdma-native.jar" .)
}

# Appends DiSNI's examples over native:$1 to the guest command, each as a training and a measured run.
disni_examples() {
    local dev=$1 wait=waitport
    # The kernel's iWARP CM listens on a real TCP port; on RoCE the listening cm_id is all there is to see.
    [ "$dev" = siw0 ] || wait=waitcm
    D="$JVM -cp 'disni/examples.jar:disni/jrdma-disni.jar:disni/jrdma-native.jar:disni/lib/*' \
-Djrdma.disni.devices=native:$dev"
    for ex in SendRecv:'Message from the server':'Message from the client' \
            Read:'read memory from server':'final message' Verbs:'read memory from server':'VerbsServer::done'; do
        name=${ex%%:*}; marks=${ex#*:}; cmark=${marks%%:*}; smark=${marks#*:}
        case " ${NATIVE_TOOLS_DISNI:-SendRecv Read Verbs} " in *" $name "*) ;; *) continue ;; esac
        # The kernel's siw gives an MPA request 10 s for its reply, and a JVM under TCG takes longer than that
        # to load the classes of its first accept. So each pair runs twice: the first run (its output kept,
        # its outcome not counted) writes a class-data archive per JVM (AutoCreateSharedArchive), the second
        # starts from it.
        for round in training measured; do
            port=$((port + 1))
            cds="-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/tmp/cds-$dev-$name"
            GUEST="$GUEST; $(step "DiSNI example ${name}Server / ${name}Client over native:$dev ($round run)")\
(timeout 420 $D $cds-server.jsa com.ibm.disni.examples.${name}Server -a 10.0.2.15 -p $port > /tmp/ds.log 2>&1; \
echo \"${name}Server rc=\$?\" >> /tmp/ds.log) & $wait $port; \
timeout 300 $D $cds-client.jsa com.ibm.disni.examples.${name}Client -a 10.0.2.15 -p $port > /tmp/dc.log 2>&1; r=\$?; \
echo \"${name}Client rc=\$r\" >> /tmp/dc.log; waitrc /tmp/ds.log; echo '--- client'; cat /tmp/dc.log; echo '--- server'; \
cat /tmp/ds.log; grep -q '$cmark' /tmp/dc.log && grep -q '$smark' /tmp/ds.log && grep -q 'Server rc=0' /tmp/ds.log || r=1"
            if [ $round = measured ]; then
                GUEST="$GUEST; echo \"STEP disni-$dev-$name rc=\$r\"; [ \$r = 0 ] || rc=1"
            else
                GUEST="$GUEST; echo \"training run of $name over $dev: rc=\$r (not counted)\""
            fi
        done
    done
}

port=1919
for s in $STEPS; do
    case $s in
    rping)
        GUEST="$GUEST; $(step 'jrdma rping client over native:siw0 against Linux rping -s')\
(timeout 420 rping -s -a 10.0.2.15 -p 7174 -C $PINGS -V -v > /tmp/ls.log 2>&1; echo \"linux rping server rc=\$?\" >> /tmp/ls.log) & \
waitport 7174; $J rping -c -a 10.0.2.15 -p 7174 -C $PINGS -V -v --device native:siw0 --timeout 60; r=\$?; \
echo \"jrdma rping client rc=\$r\"; waitrc /tmp/ls.log; cat /tmp/ls.log; grep -q 'rc=0' /tmp/ls.log || r=1; \
echo \"STEP rping-jrdma-client rc=\$r\"; [ \$r = 0 ] || rc=1"
        GUEST="$GUEST; $(step 'jrdma rping server over native:siw0 against Linux rping -c')\
($J rping -s -a 10.0.2.15 -p 7175 -C $PINGS -V -v --device native:siw0 --accept-timeout 180 > /tmp/js.log 2>&1; \
echo \"jrdma rping server rc=\$?\" >> /tmp/js.log) & waitport 7175; \
timeout 120 rping -c -a 10.0.2.15 -p 7175 -C $PINGS -V -v; r=\$?; echo \"linux rping client rc=\$r\"; \
waitrc /tmp/js.log; cat /tmp/js.log; grep -q 'rc=0' /tmp/js.log || r=1; \
echo \"STEP rping-jrdma-server rc=\$r\"; [ \$r = 0 ] || rc=1"
        GUEST="$GUEST; $(step 'jrdma rping client without --device, -Djrdma.cm.provider=native, against Linux rping -s')\
(timeout 420 rping -s -a 10.0.2.15 -p 7176 -C 2 -V > /tmp/ls2.log 2>&1; echo \"linux rping server rc=\$?\" >> /tmp/ls2.log) & \
waitport 7176; timeout 420 $JVM -Djrdma.cm.provider=native -jar /mnt/host/jrdma.jar rping -c -a 10.0.2.15 -p 7176 -C 2 -V -d \
--timeout 60 > /tmp/jc.log 2>&1; r=\$?; cat /tmp/jc.log; echo \"jrdma rping client rc=\$r\"; \
grep -q 'device native:siw0' /tmp/jc.log || r=1; waitrc /tmp/ls2.log; cat /tmp/ls2.log; grep -q 'rc=0' /tmp/ls2.log || r=1; \
echo \"STEP rping-kernel-by-property rc=\$r\"; [ \$r = 0 ] || rc=1"
        ;;
    rxe)
        # RoCE through the kernel's rdma_cm: the QP goes to RTR/RTS from user space with rdma_init_qp_attr, the
        # active side completes with rdma_establish. With siw0 and rxe0 on one netdev rdma_cm binds siw0 (the
        # one registered first), so siw0 is deleted first: run this step last.
        GUEST="$GUEST; $(step 'jrdma rping client over native:rxe0 against Linux rping -s (siw0 deleted)')\
rdma link del siw0; rdma link; \
(timeout 420 rping -s -a 10.0.2.15 -p 7184 -C $PINGS -V -v > /tmp/lr.log 2>&1; echo \"linux rping server rc=\$?\" >> /tmp/lr.log) & \
waitcm 7184; $J rping -c -a 10.0.2.15 -p 7184 -C $PINGS -V -v -d --device native:rxe0 --timeout 60; r=\$?; \
echo \"jrdma rping client rc=\$r\"; waitrc /tmp/lr.log; cat /tmp/lr.log; grep -q 'rc=0' /tmp/lr.log || r=1; \
echo \"STEP rping-rxe-jrdma-client rc=\$r\"; [ \$r = 0 ] || rc=1"
        GUEST="$GUEST; $(step 'jrdma rping server over native:rxe0 against Linux rping -c')\
($J rping -s -a 10.0.2.15 -p 7185 -C $PINGS -V -v --device native:rxe0 --accept-timeout 180 > /tmp/jr.log 2>&1; \
echo \"jrdma rping server rc=\$?\" >> /tmp/jr.log) & waitcm 7185; timeout 120 rping -c -a 10.0.2.15 -p 7185 -C $PINGS -V -v > /tmp/lc.log 2>&1; r=\$?; cat /tmp/lc.log; echo \"linux rping client rc=\$r\"; \
waitrc /tmp/jr.log; cat /tmp/jr.log; grep -q 'rc=0' /tmp/jr.log || r=1; \
echo \"STEP rping-rxe-jrdma-server rc=\$r\"; [ \$r = 0 ] || rc=1"
        ;;
    udaddy)
        # The UDP port space through the kernel's rdma_cm: SIDR gives each side the other's QP number and Q_Key,
        # UD sends go through address handles made from what the kernel reports. iWARP has no UDP port space, so
        # siw0 is deleted first (rdma_cm binds 10.0.2.15 to rxe0 then). Linux udaddy listens on port 7174.
        GUEST="$GUEST; $(step 'jrdma udaddy client over native:rxe0 against Linux udaddy (siw0 deleted)')\
rdma link del siw0 2>/dev/null; rdma link; \
(timeout 300 udaddy -b 10.0.2.15 > /tmp/lu.log 2>&1; echo \"linux udaddy server rc=\$?\" >> /tmp/lu.log) & \
waitcm 7174; $J udaddy -s 10.0.2.15 --device native:rxe0 > /tmp/ju.log 2>&1; r=\$?; cat /tmp/ju.log; \
echo \"jrdma udaddy client rc=\$r\"; grep -q 'return status 0' /tmp/ju.log || r=1; waitrc /tmp/lu.log; cat /tmp/lu.log; \
grep -q 'rc=0' /tmp/lu.log || r=1; echo \"STEP udaddy-rxe-jrdma-client rc=\$r\"; [ \$r = 0 ] || rc=1"
        GUEST="$GUEST; $(step 'jrdma udaddy server over native:rxe0 against Linux udaddy -s')\
($J udaddy -b 10.0.2.15 --device native:rxe0 > /tmp/js.log 2>&1; echo \"jrdma udaddy server rc=\$?\" >> /tmp/js.log) & \
waitcm 7174; timeout 120 udaddy -s 10.0.2.15 > /tmp/lc.log 2>&1; r=\$?; cat /tmp/lc.log; echo \"linux udaddy client rc=\$r\"; \
grep -q 'return status 0' /tmp/lc.log || r=1; waitrc /tmp/js.log; cat /tmp/js.log; grep -q 'rc=0' /tmp/js.log || r=1; \
echo \"STEP udaddy-rxe-jrdma-server rc=\$r\"; [ \$r = 0 ] || rc=1"
        ;;
    perf)
        # jrdma write-lat/write-bw -R over native:rxe0 against perftest's ib_write_lat/ib_write_bw -R on rxe0,
        # in one boot, NATIVE_TOOLS_ROUNDS interleaved rounds (perftest, then jrdma, each server and client on
        # the guest): a "PERF tool test round value" line per run (t_typical in usec for latency, BW average
        # in MB/s for bandwidth); the host prints the medians and their ratios. Absolute figures under TCG
        # mean little, the ratio is the point.
        # jrdma's JVM with both compilers (the other steps stop at C1 to start faster): the measured loop is
        # compiled as a user's would be; both tools run the same iterations (NATIVE_TOOLS_LAT_ITERS, _BW_ITERS).
        JP="timeout 420 ${JVM/-XX:TieredStopAtLevel=1 /} -jar /mnt/host/jrdma.jar"
        LAT_ITERS=${NATIVE_TOOLS_LAT_ITERS:-10000}
        BW_ITERS=${NATIVE_TOOLS_BW_ITERS:-5000}
        GUEST="$GUEST; $(step 'write-lat/write-bw -R: jrdma over native:rxe0 against perftest on rxe0 (siw0 deleted)')\
rdma link del siw0 2>/dev/null; rdma link"
        for round in $(seq 1 "${NATIVE_TOOLS_ROUNDS:-3}"); do
            for t in lat bw; do
                # lat: t_typical is the 5th column of the row of 2-byte messages; bw: BW average the 4th of 65536
                if [ $t = lat ]; then col=5; size=2; iters=$LAT_ITERS; else col=4; size=65536; iters=$BW_ITERS; fi
                for tool in perftest jrdma; do
                    port=$((port + 1))
                    if [ $tool = perftest ]; then
                        srv="timeout 300 ib_write_$t -R -d rxe0 -p $port -n $iters"
                        cli="timeout 300 ib_write_$t -R -d rxe0 -p $port -n $iters 10.0.2.15"
                    else
                        srv="$JP write-$t -R -d native:rxe0 -p $port -n $iters --accept-timeout 200"
                        cli="$JP write-$t -R -d native:rxe0 -p $port -n $iters 10.0.2.15"
                    fi
                    GUEST="$GUEST; ($srv > /tmp/ps.log 2>&1; echo \"server rc=\$?\" >> /tmp/ps.log) & waitcm $port; \
$cli > /tmp/pc.log 2>&1; r=\$?; for i in \$(seq 1 60); do grep -q rc= /tmp/ps.log && break; sleep 0.5; done; \
pkill -f -- '-p $port' 2>/dev/null; waitrc /tmp/ps.log; cat /tmp/pc.log; \
v=\$(awk '\$1==$size && NF>=$col && \$2 ~ /^[0-9]+\$/ {print \$$col; exit}' /tmp/pc.log); \
echo \"PERF $tool $t $round \${v:-none} rc=\$r\"; [ \$r = 0 ] && [ -n \"\$v\" ] || rc=1"
                done
            done
        done
        ;;
    cross)
        # Across the slirp link: jrdma over native:siw0 in the guest against jrdma's own software siw0 on the
        # host, both directions (host 127.0.0.1 is 10.0.2.2 in the guest; the guest's 7290 is host 47723).
        CROSS=1
        GUEST="$GUEST; $(step 'jrdma rping client over native:siw0 (guest) against jrdma rping -s over software siw0 (host)')\
$J rping -c -a 10.0.2.2 -p 47722 -C $PINGS -V -v --device native:siw0 --timeout 60; r=\$?; \
echo \"jrdma rping client (guest, native:siw0) rc=\$r\"; waitrc /mnt/host/cross-host-server.txt; \
cat /mnt/host/cross-host-server.txt; grep -q 'rc=0' /mnt/host/cross-host-server.txt || r=1; \
echo \"STEP cross-guest-client rc=\$r\"; [ \$r = 0 ] || rc=1"
        GUEST="$GUEST; $(step 'jrdma rping server over native:siw0 (guest) against jrdma rping -c over software siw0 (host)')\
($J rping -s -a 10.0.2.15 -p 7290 -C $PINGS -V -v --device native:siw0 --accept-timeout 180 > /tmp/xs.log 2>&1; \
echo \"jrdma rping server rc=\$?\" >> /tmp/xs.log) & waitport 7290; touch /mnt/host/cross-ready; \
waitrc /tmp/xs.log; cat /tmp/xs.log; r=0; grep -q 'rc=0' /tmp/xs.log || r=1; \
waitrc /mnt/host/cross-host-client.txt; cat /mnt/host/cross-host-client.txt; \
grep -q 'rc=0' /mnt/host/cross-host-client.txt || r=1; echo \"STEP cross-guest-server rc=\$r\"; [ \$r = 0 ] || rc=1"
        ;;
    disni)
        disni_stage; disni_examples siw0
        ;;
    disni-rxe)
        # As disni, over native:rxe0: siw0 is deleted first (rdma_cm binds the device registered first).
        disni_stage
        GUEST="$GUEST; rdma link del siw0 2>/dev/null; rdma link"
        disni_examples rxe0
        ;;
    *) echo "unknown step $s (rping, disni, rxe, udaddy, disni-rxe, perf, cross)" >&2; exit 2 ;;
    esac
done
GUEST="$GUEST; exit \$rc"
echo "guest: $GUEST" > "$OUT/command.txt"
start=$(date +%s)
RIG_EXTRA=()
if [ "${CROSS:-0}" = 1 ]; then
    # The host's halves of the cross step: a server for the guest's client, and a client that starts once the
    # guest's server listens (the guest touches cross-ready in the shared directory). Each writes its rc line
    # into the shared directory for the guest to read.
    HJ="${JAVA_HOME:+$JAVA_HOME/bin/}java -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -Djrdma.siw.addresses=127.0.0.1 -jar $JAR"
    (timeout "$TIMEOUT" $HJ rping -s -a 127.0.0.1 -p 47722 -C "$PINGS" -V -v --accept-timeout "$TIMEOUT" \
        > "$STAGE/cross-host-server.part" 2>&1; echo "jrdma rping server (host, software siw0) rc=$?" \
        >> "$STAGE/cross-host-server.part"; mv "$STAGE/cross-host-server.part" "$STAGE/cross-host-server.txt") &
    (for _ in $(seq 1 "$TIMEOUT"); do [ -e "$STAGE/cross-ready" ] && break; sleep 1; done
     timeout 300 $HJ rping -c -a 127.0.0.1 -p 47723 -C "$PINGS" -V -v --timeout 60 > "$STAGE/cross-host-client.part" 2>&1
     echo "jrdma rping client (host, software siw0) rc=$?" >> "$STAGE/cross-host-client.part"
     mv "$STAGE/cross-host-client.part" "$STAGE/cross-host-client.txt") &
    RIG_EXTRA=(--fwd tcp:47723:7290)
fi
"$RIG" run --jdk --mem 2048 --timeout "$TIMEOUT" --share "$STAGE" "${RIG_EXTRA[@]}" -- "$GUEST" > "$OUT/guest.txt" 2>&1
rc=$?
if [ "${CROSS:-0}" = 1 ]; then
    # end the host's halves if the guest did not (its client then fails at once: nothing listens any more)
    pkill -f "rping -s -a 127.0.0.1 -p 47722" 2>/dev/null
    touch "$STAGE/cross-ready"; wait
    cp "$STAGE"/cross-host-*.txt "$OUT/" 2>/dev/null
fi
echo "rc=$rc seconds=$(( $(date +%s) - start ))" >> "$OUT/guest.txt"
grep -a -E '^STEP|^rc=' "$OUT/guest.txt"
if grep -a -q '^PERF ' "$OUT/guest.txt"; then
    # medians per test and tool, then jrdma/perftest (latency: <= 1.15 wanted; bandwidth: >= 0.9)
    median() { grep -a "^PERF $1 $2 " "$OUT/guest.txt" | awk '$5 ~ /^[0-9.]+$/ {print $5}' | sort -g \
        | awk '{v[NR]=$1} END {if (NR) print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2, NR}'; }
    for t in lat bw; do
        p=$(median perftest $t); j=$(median jrdma $t)
        echo "write-$t median: perftest ${p:-none} runs, jrdma ${j:-none} runs"
        [ -n "$p" ] && [ -n "$j" ] && awk -v p="${p% *}" -v j="${j% *}" -v t="$t" \
            'BEGIN {printf "RATIO write-%s jrdma/perftest %.3f\n", t, j/p}'
    done | tee "$OUT/perf.txt"
fi
exit $rc
