#!/usr/bin/env bash
# native-suites.sh - runs jrdma-native's tests in the interop guest (../shared/interop/rig.sh, Linux 6.1 with
# kernel siw0 and rxe0, rdma-core 44), over the kernel's devices through libibverbs (native:siw0, native:rxe0).
#
#   interop/native-suites.sh [OUT] [TEST_CLASS...]
#
# Stages jrdma-native's classes and test classes and their test class path (built by
# `mvn install -pl jrdma-core,jrdma-testkit,jrdma-native -DskipTests` first) in a directory the guest
# mounts, runs io.jrdma.kernel.NativeSuiteMain there with the host's JDK (--jdk), and keeps the output
# in OUT (default target/native-suites): guest.txt has a PASS/SKIP/FAILED line per test and the counts
# (RESULT tests=... passed=... skipped=... failed=...).
# Exit codes: 0 all passed, 1 a test failed, 2 build or usage error, 124 the guest timed out,
# 125 the rig is unavailable.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RIG=${RIG:-$ROOT/../shared/interop/rig.sh}
[ -x "$RIG" ] || RIG=/work/shared/interop/rig.sh
OUT=${1:-$ROOT/target/native-suites}
shift || true
# The build's local repository: run with the MAVEN_OPTS the modules were installed with.
# The provider's own tests run as a program would; the conformance suites with Arena.ofShared() regions
# allowed (the testkit allocates them so, and closes every region before its arena), without the
# MemoryLifetime group, whose tests close arenas under registered regions on purpose.
CLASSES=${1:+$*}
OWN=${CLASSES:-io.jrdma.kernel.NativeProviderTest io.jrdma.kernel.NativeMisuseTest io.jrdma.kernel.NativeAllocationTest \
io.jrdma.kernel.NativeCmSockaddrTest io.jrdma.kernel.NativeCmTest io.jrdma.kernel.NativeCmOptionsTest \
io.jrdma.kernel.NativeCmDatagramTest io.jrdma.kernel.NativeCmLinuxPeerTest io.jrdma.kernel.NativeSiwQueueKeyTest}
SUITES=${CLASSES:+none}
SUITES=${SUITES:-io.jrdma.kernel.NativeRxeVerbsConformanceTest io.jrdma.kernel.NativeSiwVerbsConformanceTest}
TIMEOUT=${NATIVE_SUITES_TIMEOUT:-3600}   # the suites take tens of minutes under TCG
# NATIVE_SUITES_GROUPS='QpStateMachine|Flushing' runs only those nested groups of the conformance suites.
GROUPS_RE=${NATIVE_SUITES_GROUPS:-}
EXCLUDE='.*MemoryLifetime.*'
[ -n "$GROUPS_RE" ] && EXCLUDE=".*(MemoryLifetime|nested-class:(?!($GROUPS_RE)\\]).*).*"
# NATIVE_SUITES_SUITES='io.jrdma.kernel.NativeRxeVerbsConformanceTest' runs only those suites, without the
# provider's own tests.
# NATIVE_SUITES_LINKS='rxe0:rxe:eth0' gives the guest those RDMA links instead of the rig's default (siw0 then rxe0,
# where rdma_cm binds 10.0.2.15 to siw0): with rxe0 alone the CM tests run over RoCE.
[ -n "${NATIVE_SUITES_SUITES:-}" ] && { SUITES=$NATIVE_SUITES_SUITES; OWN=; }

[ -x "$RIG" ] || { echo "no interop rig at $RIG" >&2; exit 125; }
MOD=$ROOT/jrdma-native
[ -d "$MOD/target/test-classes" ] || { echo "build jrdma-native first (mvn install -DskipTests)" >&2; exit 2; }
mkdir -p "$OUT"
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/native-suites.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
(cd "$ROOT" && mvn -o -B -ntp -q dependency:build-classpath -Dmdep.outputFile="$STAGE/cp.txt" \
    -Dmdep.includeScope=test -pl jrdma-native) >&2 || { echo "cannot compute the class path" >&2; exit 2; }
mkdir -p "$STAGE/lib"
tr ':' '\n' < "$STAGE/cp.txt" | while read -r j; do [ -n "$j" ] && cp "$j" "$STAGE/lib/"; done
cp -r "$MOD/target/classes" "$STAGE/classes"
cp -r "$MOD/target/test-classes" "$STAGE/test-classes"
JAVA="java -Xss1m -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED -cp 'classes:test-classes:lib/*'"
# The rig disables IPv6 on eth0, which leaves rxe0's GID 0 (fe80::, from the MAC) unroutable: the suite's
# tests that build an address vector to GID 0 would get ENETUNREACH. Give eth0 its link-local address.
IPV6="echo 0 > /proc/sys/net/ipv6/conf/eth0/accept_dad; echo 0 > /proc/sys/net/ipv6/conf/all/disable_ipv6; \
echo 0 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6; sleep 2"
GUEST="cd /mnt/host && ulimit -l unlimited; $IPV6; rdma link; rc=0"
[ -n "$OWN" ] && GUEST="$GUEST; $JAVA io.jrdma.kernel.NativeSuiteMain $OWN; rc=\$?"
if [ "$SUITES" != none ]; then
    GUEST="$GUEST; $JAVA -Djrdma.native.closableArenas=true '-Dnative.suite.exclude=$EXCLUDE' \
 io.jrdma.kernel.NativeSuiteMain $SUITES || rc=1"
fi
GUEST="$GUEST; exit \$rc"
echo "guest: $GUEST" > "$OUT/command.txt"
start=$(date +%s)
LINKS=()
[ -n "${NATIVE_SUITES_LINKS:-}" ] && LINKS=(--links "$NATIVE_SUITES_LINKS")
"$RIG" run --jdk --mem 2048 --timeout "$TIMEOUT" "${LINKS[@]}" --share "$STAGE" -- "$GUEST" > "$OUT/guest.txt" 2>&1
rc=$?
echo "rc=$rc seconds=$(( $(date +%s) - start ))" >> "$OUT/guest.txt"
grep -E '^RESULT|^rc=' "$OUT/guest.txt"
exit $rc
