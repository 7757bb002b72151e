#!/bin/bash
# Docs match the tree: every source file of the product has its row in a
# module table ("| `file` | owns | never |"): lib/, mib/, common/ and tools/
# in docs/design.md, agent/ in docs/agent.md, exporter/ in docs/exporter.md.  A new file without its row,
# or a row whose file is gone, fails.
STYLE_NAME=modules
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/style/lib.sh"

# rows DOC: the file names of DOC's module table rows, as written.
rows() {
	sed -n 's/^| `\([^`]*\.c\)`.*/\1/p' "$top_srcdir/$1"
}

# check DOC PREFIX FOLDER...: every FOLDER/*.c has a row in DOC (named
# FOLDER/x.c, or x.c where PREFIX is FOLDER/), and every row a file.
check() {
	local doc=$1 prefix=$2 f name
	shift 2
	for f in "$@"; do
		name=${f#"$top_srcdir"/}
		rows "$doc" | grep -qxF -e "$name" -e "${name#"$prefix"}" ||
			fail_later "$name has no row in $doc's module table"
	done
	for name in $(rows "$doc"); do
		[ -f "$top_srcdir/$name" ] || [ -f "$top_srcdir/$prefix$name" ] ||
			fail_later "$doc lists $name, which is not in the tree"
	done
}

shopt -s nullglob
check docs/design.md "" "$top_srcdir"/lib/*.c "$top_srcdir"/mib/*.c "$top_srcdir"/common/*.c \
	"$top_srcdir"/tools/*.c
check docs/agent.md agent/ "$top_srcdir"/agent/*.c
check docs/exporter.md exporter/ "$top_srcdir"/exporter/*.c
style_finish
