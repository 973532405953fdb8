#!/usr/bin/env bash
# run_captures.sh [OUTDIR] - capture jrdma-siw's golden frames from real Linux siw in the interop rig.
#
# Boots one guest (private RIG_STATE, host ports 17100-17199 only), runs `rping -s -P` on siw0, plays
# every client scenario of siw_probe.py against it (scenario i connects from host port 17101+i), then
# every server scenario (the guest's `rping -c` connects to the probe on 17180+j), keeps the guest's
# dmesg after each scenario (siw dynamic debug on), stops the guest, and cuts the pcap into fixtures:
#   OUTDIR/session.pcap, OUTDIR/probe.log, OUTDIR/guest.log, OUTDIR/manifest, OUTDIR/golden/...
# Then copy OUTDIR/golden/* into jrdma-siw/src/test/resources/golden/ (see its README.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RIG=${RIG:-/work/shared/interop/rig.sh}
OUT=${1:-/tmp/siw-wire-cap/final}
export RIG_STATE=${RIG_STATE:-/tmp/siw-wire-rigstate}
PROBE="python3 $HERE/siw_probe.py"
# CLIENT_SCENARIOS / SERVER_SCENARIOS (space-separated) replace the lists, e.g. to capture new ones only.
CLIENT=(${CLIENT_SCENARIOS:-rping-small rping-large rping-crc rping-crc-large mpa-v1 mpa-v2-pdata mpa-pd256 mpa-pd257
        mpa-markers mpa-markers-v1 mpa-rev3 mpa-badkey
        term-write-stag term-write-stag-crc term-send-msn term-send-qn term-read-stag term-read-msn
        term-opcode term-ddp-version term-rdmap-version term-bad-crc term-to-siw-rfc term-to-siw-siw
        mpa-h-short0 mpa-h-short2 mpa-depths-huge mpa-extra-data})
SERVER=(${SERVER_SCENARIOS:-rping rping-crc ord-huge bad-key reject reject-short})
CRC_ON=" rping-crc rping-crc-large term-write-stag-crc term-bad-crc guest-client-rping-crc "

rm -rf "$OUT"; mkdir -p "$OUT"
cleanup() { "$RIG" stop > /dev/null 2>&1 || true; }
trap cleanup EXIT
"$RIG" start --fwd tcp:17174:7174 --pcap "$OUT/session.pcap" --timeout 1500
gx() { "$RIG" exec --timeout "${T:-60}" -- "$1"; }
{
    echo "### guest: uname -r; siw module; rdma link"
    gx 'uname -a; modinfo -F srcversion siw 2>/dev/null; cat /sys/module/siw/taint 2>/dev/null; rdma link; ip link show eth0'
    gx 'echo "module siw +p" > /sys/kernel/debug/dynamic_debug/control; dmesg -c > /dev/null'
    gx 'rping -s -P -a 10.0.2.15 -p 7174 -v -S 65535 > /tmp/rs.log 2>&1 & sleep 1; echo rping server started'
} >> "$OUT/guest.log" 2>&1

: > "$OUT/manifest"
fail=0
for i in "${!CLIENT[@]}"; do
    sc=${CLIENT[$i]}; port=$((17101 + i))
    $PROBE client --port 17174 --src-base $((17100 + i)) --gap 0.5 "$sc" >> "$OUT/probe.log" 2>&1 || fail=1
    crc=off; [[ "$CRC_ON" == *" $sc "* ]] && crc=on
    echo "$sc 7174 $port $crc" >> "$OUT/manifest"
    { echo "### dmesg after client scenario $sc"
      gx 'dmesg -c | grep -i "term\|crc\|msn\|qn\|stag\|unknown\|version\|mpa\|reject\|rts\|rreq\|rresp" | grep -v "reg_user_mr\|dereg_mr\|free_mem"'
    } >> "$OUT/guest.log" 2>&1 || true
done
for j in "${!SERVER[@]}"; do
    sc=${SERVER[$j]}; port=$((17180 + j))
    $PROBE server --port $port --timeout 40 "$sc" >> "$OUT/probe.log" 2>&1 &
    ppid=$!
    sleep 0.5
    { echo "### guest rping -c for server scenario $sc (host port $port)"
      # no `timeout` here: the guest's busybox timeout returns 1 at once (timeout 5 true -> rc 1)
      T=60 gx "rping -c -a 10.0.2.2 -p $port -C 1 -S 8000 -V > /tmp/rc.log 2>&1; echo rping rc=\$?; cut -c1-200 /tmp/rc.log"
      gx 'dmesg -c | grep -i "term\|crc\|ird\|ord\|mpa\|reject\|rts\|rresp" | grep -v "reg_user_mr\|dereg_mr\|free_mem"'
    } >> "$OUT/guest.log" 2>&1 || true
    wait $ppid || fail=1
    crc=off; [[ "$CRC_ON" == *" guest-client-$sc "* ]] && crc=on
    echo "guest-client-$sc 0 $port $crc" >> "$OUT/manifest"
done
{ echo "### rping -s log"; gx 'cut -c1-200 /tmp/rs.log'; } >> "$OUT/guest.log" 2>&1 || true
"$RIG" stop
trap - EXIT
python3 "$HERE/extract_golden.py" "$OUT/session.pcap" "$OUT/manifest" "$OUT/golden" | tee "$OUT/extract.log"
grep '^summary\|FAILED' "$OUT/probe.log" || true
echo "probe scenarios: $([ $fail = 0 ] && echo all ok || echo SOME FAILED)"
exit $fail
