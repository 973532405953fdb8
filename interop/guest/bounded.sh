#!/bin/bash
# bounded.sh SECONDS CMD... (runs in the interop guest): CMD, stopped with TERM (then KILL) after
# SECONDS. The guest's busybox timeout cannot be used: it fails at once with rc 1.
t=$1
shift
"$@" &
p=$!
(for i in $(seq 1 "$t"); do sleep 1; kill -0 $p 2>/dev/null || exit 0; done
 kill -TERM $p 2>/dev/null; sleep 5; kill -KILL $p 2>/dev/null) > /dev/null 2>&1 &
wait $p
