#!/bin/bash
# Includes across folders follow the layers (docs/design.md, "Layers"):
#   common <- lib <- mib <- {agent, tools}: common (the error channel, safe
#   files, readiness: libc alone) below everything; exporter (statctr-exporter) above tools, whose
#   walk and Prometheus renderer it links (tools/walk.h).
# Each folder may include its own headers and those of the folders below
# it, never one above or beside it.  A quoted include is resolved as the
# compiler does: the including file's folder first, then the folders of the
# -I flags (every product folder here); a name no folder has (config.h, the
# build's) is no layer's.
set -euo pipefail
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
STYLE_NAME=layers
. "$top_srcdir/tests/style/lib.sh"

declare -A below=(
	[common]="common"
	[lib]="common lib"
	[mib]="common lib mib"
	[agent]="lib mib common agent"
	[tools]="lib mib common tools"
	[exporter]="lib mib common tools exporter"
)
folders="lib mib common agent tools exporter"

# The folder that provides quoted include NAME for a file of folder FROM.
provider() {
	local from=$1 name=$2 f
	case $name in
	../*/*) f=${name#../}; echo "${f%%/*}"; return ;;
	esac
	[ -f "$top_srcdir/$from/$name" ] && { echo "$from"; return; }
	for f in $folders; do
		[ -f "$top_srcdir/$f/$name" ] && { echo "$f"; return; }
	done
	return 0
}

checked=0
for from in $folders; do
	for file in "$top_srcdir/$from"/*.[ch]; do
		[ -f "$file" ] || continue
		while IFS= read -r name; do
			to=$(provider "$from" "$name")
			[ -n "$to" ] || continue
			checked=$((checked + 1))
			case " ${below[$from]} " in
			*" $to "*) ;;
			*) fail_later "$from/${file##*/} includes \"$name\" of $to/: $from may include only ${below[$from]}" ;;
			esac
		done < <(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$file")
	done
done
[ "$checked" -gt 0 ] || fail_later "no include found under $top_srcdir (wrong top_srcdir?)"
[ "$test_failures" -eq 0 ] && echo "ok: $checked quoted includes across lib, mib, common, agent, tools, exporter follow the layers"
style_finish
