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
# CPU slots (collapse 2) after the shared slot.
sed -e 's/slots = 1;/slots = 1; cpu_slots = { collapse = 2; };/' "$tmp/b.conf" >"$tmp/c.conf"
write "$tmp/c.conf" dataplane -t 1 -n 10
seed cpu-slots "$tmp/dataplane.seg" "$tmp/dataplane.ctlcopy"

# A segment with a dynamic table: rows added, one removed and its index
# reused, counts on present rows; the writer copies its own files.
cat >"$tmp/dyn.conf" <<CONF
segments = ( { name = "dyn"; path = "$tmp/dyn"; slots = 2; tables = (
  { name = "ports"; rows = [ "p0", "p1" ]; columns = ( { name = "rx"; kind = "counter"; } ); },
  { name = "tunnels"; rows = { max = 3; }; columns = ( { name = "rx"; kind = "counter"; },
    { name = "depth"; kind = "gauge"; } ); } ); } );
CONF
cat >"$tmp/dyn.c" <<'PROGRAM'
#include <statctr.h>
#include <stdio.h>
#include <stdlib.h>
static void copy(const char *from, const char *to)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	if (system(cmd) != 0)
		exit(1);
}
static void add_counted(struct statctr_seg *seg, const char *name, uint64_t n)
{
	uint32_t row;
	statctr_id rx;
	if (statctr_row_add(seg, "tunnels", name, &row) != 0 ||
	    statctr_seg_lookup(seg, "tunnels", "rx", row, &rx) != 0)
		exit(1);
	statctr_shared_add(seg, rx, n);
}
int main(int argc, char **argv)
{
	struct statctr_seg *seg;
	char ctl[512];
	if (argc != 5 || statctr_seg_create(argv[1], "dyn", &seg) != 0)
		return 1;
	add_counted(seg, "vxlan1", 4);
	add_counted(seg, "vxlan2", 9);
	statctr_row_remove(seg, "tunnels", 1);
	add_counted(seg, "gre7", 0);
	add_counted(seg, "gre8", 5); /* index 1 again */
	statctr_shared_add(seg, 0, 3);
	snprintf(ctl, sizeof(ctl), "%s.ctl", argv[2]);
	copy(argv[2], argv[3]);
	copy(ctl, argv[4]);
	statctr_seg_destroy(seg);
	return 0;
}
PROGRAM
"${CC:-cc}" -I"$top_srcdir/lib" -o "$tmp/dynwriter" "$tmp/dyn.c" -L"$build/lib/.libs" -lstatctr \
	-Wl,-rpath,"$build/lib/.libs"
"$tmp/dynwriter" "$tmp/dyn.conf" "$tmp/dyn" "$tmp/dyn.seg" "$tmp/dyn.ctlcopy"
seed dynamic-rows "$tmp/dyn.seg" "$tmp/dyn.ctlcopy"
ls -l "$out"
