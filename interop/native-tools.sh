#!/usr/bin/env bash
# native-tools.sh - jrdma's tools and DiSNI applications over the kernel's devices (native:siw0) in the interop
# guest (../shared/interop/rig.sh: Linux 6.1, kernel siw0 and rxe0 on eth0 at 10.0.2.15, rdma-core 44), against
# Linux's own tools on the same kernel, through io.jrdma.cm and the kernel's rdma_cm.
#
#   interop/native-tools.sh [OUT] [STEP...]       STEP: rping (default), disni, rxe (last: it deletes siw0)
#
# rping: `jrdma rping -c --device native:siw0` against Linux `rping -s`, then `jrdma rping -s --device
#   native:siw0` against Linux `rping -c`, then the jrdma client without --device but with
#   -Djrdma.cm.provider=native (jrdma's software siw0 serves 10.0.2.15 too: the property hands the address to the
#   kernel's rdma_cm; rping -d names the id's device), each with -V (validation) and several pings.
# disni: DiSNI's own examples (SendRecv, Read, Verbs from DISNI_SRC, a checkout of github.com/zrlio/disni 2.1,
#   compiled unchanged against jrdma-disni), server and client as two JVMs over native:siw0 (10.0.2.15), with no
#   libdisni and no JNI; a step passes when both print their example's last result line. NATIVE_TOOLS_DISNI
#   picks examples (default "SendRecv Read Verbs").
# rxe: siw0 deleted, `jrdma rping --device native:rxe0` as client and as server against Linux rping: RoCE through the
#   kernel's rdma_cm (RTR/RTS from user space, rdma_establish).
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
# Waits (bounded) for a background step's rc line in its log.
WAITRC='waitrc() { for i in $(seq 1 800); do grep -q "rc=" "$1" && return 0; sleep 0.5; done; return 1; }'
step() { echo "echo; echo \"=== $1\"; "; }
GUEST="cd /mnt/host && ulimit -l unlimited; $WAITPORT; $WAITRC; rc=0; rdma link; uname -r; java -version 2>&1 | head -1; \
$J devices"

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
sleep 3; $J rping -c -a 10.0.2.15 -p 7184 -C $PINGS -V -v -d --device native:rxe0 --timeout 60; r=\$?; \
echo \"jrdma rping client rc=\$r\"; waitrc /tmp/lr.log; cat /tmp/lr.log; grep -q 'rc=0' /tmp/lr.log || r=1; \
echo \"STEP rping-rxe-jrdma-client rc=\$r\"; [ \$r = 0 ] || rc=1"
        GUEST="$GUEST; $(step 'jrdma rping server over native:rxe0 against Linux rping -c')\
($J rping -s -a 10.0.2.15 -p 7185 -C $PINGS -V -v --device native:rxe0 --accept-timeout 180 > /tmp/jr.log 2>&1; \
echo \"jrdma rping server rc=\$?\" >> /tmp/jr.log) & for i in \$(seq 1 200); do grep -q 'rc=' /tmp/jr.log && break; \
timeout 60 rping -c -a 10.0.2.15 -p 7185 -C $PINGS -V -v > /tmp/lc.log 2>&1 && break; sleep 2; done; r=1; \
grep -q 'client DISCONNECT' /tmp/lc.log && r=0; cat /tmp/lc.log; echo \"linux rping client rc=\$r\"; \
waitrc /tmp/jr.log; cat /tmp/jr.log; grep -q 'rc=0' /tmp/jr.log || r=1; \
echo \"STEP rping-rxe-jrdma-server rc=\$r\"; [ \$r = 0 ] || rc=1"
        ;;
    disni)
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
        D="$JVM -cp 'disni/examples.jar:disni/jrdma-disni.jar:disni/jrdma-native.jar:disni/lib/*' \
-Djrdma.disni.devices=native:siw0"
        port=1919
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
                cds="-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/tmp/cds-$name"
                GUEST="$GUEST; $(step "DiSNI example ${name}Server / ${name}Client over native:siw0 ($round run)")\
(timeout 420 $D $cds-server.jsa com.ibm.disni.examples.${name}Server -a 10.0.2.15 -p $port > /tmp/ds.log 2>&1; \
echo \"${name}Server rc=\$?\" >> /tmp/ds.log) & waitport $port; \
timeout 300 $D $cds-client.jsa com.ibm.disni.examples.${name}Client -a 10.0.2.15 -p $port > /tmp/dc.log 2>&1; r=\$?; \
echo \"${name}Client rc=\$r\" >> /tmp/dc.log; waitrc /tmp/ds.log; echo '--- client'; cat /tmp/dc.log; echo '--- server'; \
cat /tmp/ds.log; grep -q '$cmark' /tmp/dc.log && grep -q '$smark' /tmp/ds.log && grep -q 'Server rc=0' /tmp/ds.log || r=1"
                if [ $round = measured ]; then
                    GUEST="$GUEST; echo \"STEP disni-$name rc=\$r\"; [ \$r = 0 ] || rc=1"
                else
                    GUEST="$GUEST; echo \"training run of $name: rc=\$r (not counted)\""
                fi
            done
        done
        ;;
    *) echo "unknown step $s (rping, disni, rxe)" >&2; exit 2 ;;
    esac
done
GUEST="$GUEST; exit \$rc"
echo "guest: $GUEST" > "$OUT/command.txt"
start=$(date +%s)
"$RIG" run --jdk --mem 2048 --timeout "$TIMEOUT" --share "$STAGE" -- "$GUEST" > "$OUT/guest.txt" 2>&1
rc=$?
echo "rc=$rc seconds=$(( $(date +%s) - start ))" >> "$OUT/guest.txt"
grep -E '^STEP|^rc=' "$OUT/guest.txt"
exit $rc
