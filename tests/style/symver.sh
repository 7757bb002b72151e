#!/bin/bash
# libstatctr.so exports exactly the symbols lib/libstatctr.map lists, each in
# the version node the map puts it in (docs/abi.md): a public function added
# without a map line, or a map line whose function is gone, fails here.
set -euo pipefail
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
top_builddir=${top_builddir:-.}
STYLE_NAME=symver
. "$top_srcdir/tests/style/lib.sh"
so=$top_builddir/lib/.libs/libstatctr.so
map=$top_srcdir/lib/libstatctr.map

command -v nm >/dev/null || skip "nm not found (Debian: apt-get install binutils)"
[ -f "$so" ] || skip "no $so (configured with --disable-shared?)"

# NAME@@NODE for every global of the map, by the node it stands in.
want=$(sed -e 's,/\*.*\*/,,' -e '/\/\*/,/\*\//d' "$map" | awk '
	/^[A-Z][A-Z0-9_.]* *\{/ { node = $1; sub(/\{$/, "", node); next }
	/^[ \t]*global:/ { global = 1; next }
	/^[ \t]*local:/ { global = 0; next }
	global && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ { gsub(/[ \t;]/, ""); print $0 "@@" node }
' | sort -u)
got=$(nm -D --defined-only "$so" | awk 'NF == 3 && $3 !~ /^STATCTR_[0-9.]*$/ { print $3 }' | sort -u)

[ -n "$want" ] || fail_later "no symbol parsed from $map"
if [ "$want" = "$got" ]; then
	echo "ok: libstatctr.so exports the $(wc -l <<<"$got") symbols of libstatctr.map, each in its node"
else
	fail_later "libstatctr.so and libstatctr.map differ (< map only, > library only): $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
fi
style_finish
