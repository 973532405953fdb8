#!/bin/bash
# trim.sh FILE (runs in the interop guest): FILE with lines longer than 200 characters cut, after a
# header with its full size and md5 (rping -v prints up to 64 KiB per line).
echo "# $(wc -l < "$1") lines, $(wc -c < "$1") bytes, md5 $(md5sum < "$1" | cut -c1-32)"
awk '{ if (length($0) > 200) print substr($0, 1, 200) "[... " length($0) " chars]"; else print }' "$1"
