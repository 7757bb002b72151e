#!/bin/bash
# Regenerates the seed inputs of the "view" fuzz target in
# tests/fuzz/corpus/view/ from segments written by examples/pipeline: a
# 4-byte little-endian length, the segment file, then its control file.
# Not run by the build; run by hand after a change of the segment format:
#   tests/fuzz/make_view_seeds.sh BUILDDIR
set -euo pipefail
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: make_view_seeds.sh BUILDDIR}
out=$top_srcdir/tests/fuzz/corpus/view
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seed NAME SEGMENT-FILE [CONTROL-FILE]
seed() {
	local len
	len=$(stat -c %s "$2")
	{
		printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((len & 255)) $((len >> 8 & 255)) \
			$((len >> 16 & 255)) $((len >> 24 & 255)))"
		cat "$2"
		[ -z "${3:-}" ] || cat "$3"
	} >"$out/$1"
}

# write CONFIG NAME PIPELINE-ARGS...: a segment with final values in $tmp/NAME.
write() {
	local conf=$1 name=$2 pid
	shift 2
	"$build/examples/pipeline" -c "$conf" "$@" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 50); do [ -e "$tmp/$name.ctl" ] && break; sleep 0.1; done
	sleep 0.5
	cp "$tmp/$name" "$tmp/$name.seg"
	cp "$tmp/$name.ctl" "$tmp/$name.ctlcopy"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "$tmp/$name" "$tmp/$name.ctl"
}

sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$tmp/dataplane\";|" \
	"$top_srcdir/conf/statctr.conf" >"$tmp/a.conf"
write "$tmp/a.conf" dataplane -t 2 -n 1000 -g ifStats.queueDepth.1=-5
seed dataplane "$tmp/dataplane.seg" "$tmp/dataplane.ctlcopy"
seed dataplane-no-ctl "$tmp/dataplane.seg"
head -c 1000 "$tmp/dataplane.seg" >"$tmp/short"
seed dataplane-truncated "$tmp/short" "$tmp/dataplane.ctlcopy"
head -c 256 "$tmp/dataplane.seg" >"$tmp/header"
seed header-only "$tmp/header"
sed -e 's/slots = 4;/slots = 1;/' -e 's/rows = 64;/rows = 1;/' "$tmp/a.conf" >"$tmp/b.conf"
write "$tmp/b.conf" dataplane -t 1 -n 10
seed one-slot "$tmp/dataplane.seg" "$tmp/dataplane.ctlcopy"
ls -l "$out"
