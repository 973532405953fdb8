#!/usr/bin/env bash
# capture-all.sh: every capture scenario behind jrdma-rxe's golden fixtures, against one guest.
#   RIG_STATE=/tmp/rxewire-rigstate /work/shared/interop/rig.sh start --netns rxewire
#   ./capture-all.sh            # writes out/*.pcap, *.peer.log, *.guest.log, *.jsonl
#   RIG_STATE=/tmp/rxewire-rigstate /work/shared/interop/rig.sh stop
set -uo pipefail
cd "$(dirname "$0")"
fail=0
run() { echo "=== $1"; ./capture.sh "$@" > /dev/null 2>&1 || { echo "FAILED: $1"; fail=1; }; tail -n 1 "out/$1.peer.log"; }
export GUEST_DELAY=1
run p-rping-64 'rping -c -a 10.0.4.2 -v -C 1 -S 64' passive-rping --size 64 --count 1 --timeout 40
run p-rping-2500-duprep 'rping -c -a 10.0.4.2 -v -C 2 -S 2500' passive-rping --size 2500 --count 2 --timeout 40 --dup-rep
run p-udaddy 'udaddy -s 10.0.4.2 -C 2 -S 100' passive-udaddy --size 100 --count 2 --timeout 40
GUEST_DELAY=0 GUEST_LINGER=0 run rej-no-listener 'true' reject-probe --port 7999
export GUEST_DELAY=3
run a-rping-64-dupreq 'rping -s -a 10.0.4.15 -v -C 1 -S 64' active-rping --size 64 --count 1 --timeout 40 --dup-req
run a-rping-2500 'rping -s -a 10.0.4.15 -v -C 1 -S 2500' active-rping --size 2500 --count 1 --timeout 40
run a-ucmatose-3000 'ucmatose -b 10.0.4.15 -S 3000 -C 2' active-ucmatose --port 7471 --size 3000 --count 2 --timeout 40
run a-udaddy 'udaddy -b 10.0.4.15 -C 2 -S 100' active-udaddy --size 100 --count 2 --timeout 40
exit $fail
