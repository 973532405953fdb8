#!/usr/bin/env bash
# Runs jrdma's tools against the Linux 6.1 tools (rdma-core 44 rping/ucmatose, perftest 4.5-0.20) in
# the interop guest (../shared/interop/rig.sh) over siw, in both directions, and keeps each side's
# exact command and output here:  NAME.{linux,jrdma}.txt, commands.txt, summary.txt.
#   interop/evidence-tools/run.sh [OUTDIR]        (default: this directory)
# Directions: "gs" = Linux server in the guest, jrdma client on the host through --fwd (the client
# connects only after the guest listens, as the rig's known issues ask); "js" = jrdma server on host
# 127.0.0.1, Linux client in the guest connecting to 10.0.2.2 (slirp's name for the host loopback).
# Host ports 17660-17669, rig state /tmp/toolsrdma-rigstate.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$here}"
rig="${RIG:-$root/../../shared/interop/rig.sh}"
[ -x "$rig" ] || rig=/work/shared/interop/rig.sh
export RIG_STATE=/tmp/toolsrdma-rigstate
mkdir -p "$out"
jrdma() { JRDMA_NO_BUILD=1 "$root/bin/jrdma" "$@"; }
"$root/bin/jrdma" --version >/dev/null            # build once
: > "$out/commands.txt"; : > "$out/summary.txt"

"$rig" stop >/dev/null 2>&1 || true
"$rig" start --fwd tcp:17660:7174 --fwd tcp:17661:18515 --fwd tcp:17665:7471 --timeout 3600 || exit 125
trap '"$rig" stop >/dev/null 2>&1' EXIT
"$rig" exec -- 'uname -r; rdma link; ib_write_bw --version | head -2' > "$out/guest-env.txt" 2>&1

# pair NAME DIRECTION "LINUX SERVER/CLIENT COMMAND" "JRDMA COMMAND"
# gs: LINUX is the guest server command, JRDMA the host client command.
# js: JRDMA is the host server command, LINUX the guest client command.
pair() {
    local name=$1 dir=$2 lcmd=$3 jcmd=$4 lrc jrc
    printf '%s (%s)\n  linux: %s\n  jrdma: bin/jrdma %s\n' "$name" "$dir" "$lcmd" "$jcmd" >> "$out/commands.txt"
    if [ "$dir" = gs ]; then
        "$rig" exec -- "($lcmd > /tmp/srv.log 2>&1; echo \"rc=\$?\" >> /tmp/srv.log) >/dev/null 2>&1 & sleep 2"
        # shellcheck disable=SC2086
        timeout 180 bash -c "JRDMA_NO_BUILD=1 '$root/bin/jrdma' $jcmd" > "$out/$name.jrdma.txt" 2>&1
        jrc=$?; echo "rc=$jrc" >> "$out/$name.jrdma.txt"
        sleep 3
        "$rig" exec -- 'cat /tmp/srv.log' > "$out/$name.linux.txt" 2>&1
    else
        # shellcheck disable=SC2086
        (timeout 180 bash -c "JRDMA_NO_BUILD=1 '$root/bin/jrdma' $jcmd" > "$out/$name.jrdma.txt" 2>&1;
            echo "rc=$?" >> "$out/$name.jrdma.txt") &
        local jp=$!
        sleep 2
        "$rig" exec --timeout 170 -- "$lcmd 2>&1; echo rc=\$?" > "$out/$name.linux.txt" 2>&1
        wait $jp
    fi
    lrc=$(grep -o '^rc=[0-9]*' "$out/$name.linux.txt" | tail -1)
    jrc=$(grep -o '^rc=[0-9]*' "$out/$name.jrdma.txt" | tail -1)
    local verdict=FAIL
    [ "$lrc" = rc=0 ] && [ "$jrc" = rc=0 ] && verdict=PASS
    printf '%-28s %-4s linux %-5s jrdma %-5s %s\n' "$name" "$dir" "$lrc" "$jrc" "$verdict" | tee -a "$out/summary.txt"
}

pair rping.gs gs "rping -s -a 10.0.2.15 -p 7174 -v -C 5" "rping -c -vV -a 127.0.0.1 -p 17660 -C 5"
pair rping.js js "rping -c -vV -a 10.0.2.2 -p 17662 -C 5" "rping -s -v -a 127.0.0.1 -p 17662"
for t in write_bw read_bw send_bw write_lat read_lat send_lat; do
    j=${t/_/-}
    pair "$j.gs" gs "ib_$t -d siw0 -R -n 200" "$j -R -n 200 127.0.0.1 -p 17661"
    pair "$j.js" js "ib_$t -d siw0 -R -n 200 10.0.2.2 -p 17663" "$j -R -n 200 -p 17663 --bind 127.0.0.1"
done
pair write-bw-a.gs gs "ib_write_bw -d siw0 -R -a -n 20 --report_gbits" "write-bw -R -a -n 20 --report_gbits 127.0.0.1 -p 17661"
pair write-bw-q2.js js "ib_write_bw -d siw0 -R -q 2 -n 200 10.0.2.2 -p 17663" "write-bw -R -q 2 -n 200 -p 17663 --bind 127.0.0.1"
pair send-lat-s4k.gs gs "ib_send_lat -d siw0 -R -s 4096 -n 200" "send-lat -R -s 4096 -n 200 127.0.0.1 -p 17661"
pair cmatose.gs gs "ucmatose -c 2 -C 10" "cmatose -s 127.0.0.1 -p 17665 -c 2 -C 10"
pair cmatose.js js "ucmatose -s 10.0.2.2 -p 17666 -c 2 -C 10" "cmatose -b 127.0.0.1 -p 17666 -c 2 -C 10"

# Side by side without a peer: device listings.
"$rig" exec -- 'ibv_devices; ibv_devinfo -d siw0' > "$out/devices.linux.txt" 2>&1
{ jrdma devices; jrdma devinfo -d siw0; } > "$out/devices.jrdma.txt" 2>&1
"$rig" exec -- 'dmesg | grep -ciE "warn|oops|bug:"' > "$out/guest-dmesg-warnings.txt" 2>&1
