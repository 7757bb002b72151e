#!/bin/sh
# statctl show -o FILE (node_exporter's textfile collector): FILE gets
# exactly what stdout gets, through a new file renamed over it (a new
# inode, no temporary left behind, the old mode kept), so that a reader
# polling FILE while it is rewritten never sees it empty or cut short; a
# symbolic link at FILE is refused and left alone.
. "${srcdir:-.}/tests/tools/lib.sh"

settled_writer "stctl_textfile_$$" 2 1000
dir=$workdir/textfile
mkdir "$dir"
prom=$dir/statctr.prom

check_status "show -f prometheus to stdout" 0 "$STATCTL" show -f prometheus "$segment"
cp "$workdir/out" "$workdir/stdout.prom"
check_status "show -f prometheus -o FILE" 0 "$STATCTL" show -f prometheus "$segment" -o "$prom"
check "FILE holds what stdout gets" "" "$(diff "$workdir/stdout.prom" "$prom")"
check "a new file is 0644" 644 "$(stat -c %a "$prom")"
check_status "show --output=FILE (json, one table)" 0 \
	"$STATCTL" show -f json "$segment" totals --output="$dir/totals.json"
check "json to FILE: the table asked for" totals "$(jq -r '.segments[0].tables[0].name' "$dir/totals.json")"

chmod 0640 "$prom"
inode=$(stat -c %i "$prom")
check_status "show -o over an existing file" 0 "$STATCTL" show -f prometheus "$segment" -o "$prom"
check "replaced by rename: a new inode" yes "$([ "$(stat -c %i "$prom")" != "$inode" ] && echo yes)"
check "the replaced file keeps its mode" 640 "$(stat -c %a "$prom")"
check "no temporary file left in the directory" "statctr.prom totals.json" "$(ls "$dir" | tr '\n' ' ' | sed 's/ $//')"

# A reader polls FILE while it is rewritten 100 times: every read is whole.
lines=$(wc -l <"$prom")
(
	for _ in $(seq 100); do
		"$STATCTL" show -f prometheus "$segment" -o "$prom" || echo "write failed" >&2
	done
	touch "$workdir/done"
) 2>"$workdir/writes.err" &
rewriter=$!
bad=0 reads=0
while [ ! -e "$workdir/done" ] && [ "$reads" -lt 5000 ]; do
	n=$(wc -l <"$prom")
	reads=$((reads + 1))
	[ "$n" = "$lines" ] || bad=$((bad + 1))
done
wait "$rewriter"
check "concurrent reads (${reads}) all saw $lines lines" 0 "$bad"
check "every rewrite succeeded" "" "$(cat "$workdir/writes.err")"
check "the last rewrite equals stdout" "" "$(diff "$workdir/stdout.prom" "$prom")"

ln -s "$workdir/victim" "$dir/link.prom"
check_status "-o refuses a symbolic link" 1 "$STATCTL" show -f prometheus "$segment" -o "$dir/link.prom"
check "the message names the link" 1 "$(printf '%s\n' "$err" | grep -c "link.prom: is a symbolic link")"
check "the link's target was not created" no "$([ -e "$workdir/victim" ] && echo yes || echo no)"
cp "$prom" "$workdir/before.prom"
check_status "-o with an unreadable segment" 1 "$STATCTL" show -f prometheus "$workdir/nosuch" -o "$prom"
check "the message says FILE was kept" 1 "$(printf '%s\n' "$err" | grep -c "statctr.prom: not replaced")"
check "FILE keeps its last complete contents" "" "$(diff "$workdir/before.prom" "$prom")"
check_status "-o in a missing directory" 1 "$STATCTL" show -f prometheus "$segment" -o "$workdir/nodir/x.prom"
check "show -o without a FILE is a usage error" 2 \
	"$("$STATCTL" show -o 2>/dev/null; echo $?)"
finish
