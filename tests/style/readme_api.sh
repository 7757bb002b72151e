#!/bin/bash
# The README's "The API on one screen" compiles and works: its ```c block
# defines writer(len) and reader(), and this test adds only the includes
# printf needs and a main(), points the block's "statctr.conf" and
# "dataplane" at a private copy of conf/statctr.conf and its segment, and
# compiles it with -std=c11 -Wall -Wextra -Werror against the built
# library.  One process runs writer(1500) and stays alive; another runs
# reader(), which must print 1 (the writer's one statctr_inc); the
# segment must also hold the writer's 1500 octets (examples/reader).
set -euo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
libs=$top_builddir/lib/.libs
CC=${CC:-cc}

STYLE_NAME=readme_api
. "$top_srcdir/tests/style/lib.sh"
# Here a failure ends the test at once (fail): each step needs the one before.

command -v "$CC" >/dev/null || skip "no C compiler ($CC)"
[ -f "$libs/libstatctr.so" ] || skip "no $libs/libstatctr.so (configured with --disable-shared?)"
[ -x "$top_builddir/examples/reader" ] || skip "examples/reader not built"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/statctr-readme.XXXXXX")
WRITER=""
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	if [ -n "$WRITER" ]; then
		kill "$WRITER" 2>/dev/null || true
		wait "$WRITER" 2>/dev/null || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# The block between the heading and the next ``` line.
awk '/^## The API on one screen/ { h = 1; next }
	h && /^```c$/ { c = 1; next }
	c && /^```$/ { exit }
	c { print }' "$top_srcdir/README.md" >"$TMP/snippet.c"
[ -s "$TMP/snippet.c" ] || fail "no \`\`\`c block under \"## The API on one screen\" in README.md"
for fn in 'void writer(uint64_t len)' 'void reader(void)'; do
	grep -qF "$fn" "$TMP/snippet.c" || fail "the README snippet does not define $fn"
done

# A private segment: the project's declaration with the file moved into $TMP.
sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$TMP/dataplane\";|" \
	"$top_srcdir/conf/statctr.conf" >"$TMP/statctr.conf"
grep -qF "path = \"$TMP/dataplane\"" "$TMP/statctr.conf" || fail "cannot move the segment into $TMP"
sed -e "s|statctr_seg_create(\"statctr.conf\"|statctr_seg_create(\"$TMP/statctr.conf\"|" \
	-e "s|statctr_view_open(\"dataplane\"|statctr_view_open(\"$TMP/dataplane\"|" \
	"$TMP/snippet.c" >"$TMP/snippet-local.c"
[ "$(grep -cF "\"$TMP/" "$TMP/snippet-local.c")" = 2 ] ||
	fail "the snippet must call statctr_seg_create(\"statctr.conf\", ...) and statctr_view_open(\"dataplane\", ...)"

{
	echo '#define _POSIX_C_SOURCE 200809L'
	echo '#include <inttypes.h>'
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	echo '#include <unistd.h>'
	echo '#line 1 "README.md snippet"'
	cat "$TMP/snippet-local.c"
	cat <<'EOF'
void writer(uint64_t len);
void reader(void);

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "writer")) {
		writer(1500);
		puts("written");
		fflush(stdout);
		sleep(30); /* keeps the segment active until the test stops it */
		return 0;
	}
	reader();
	return 0;
}
EOF
} >"$TMP/readme.c"
# A sanitizer build's library needs its runtime linked into the program too.
case ${SANITIZER:-none} in
asan) san="-fsanitize=address,undefined" ;;
tsan) san="-fsanitize=thread" ;;
*) san="" ;;
esac
# shellcheck disable=SC2086 # $san is a list of flags
"$CC" -std=c11 -Wall -Wextra -Werror $san -I"$top_srcdir/lib" "$TMP/readme.c" -o "$TMP/readme" \
	-L"$libs" -lstatctr || fail "the README snippet does not compile with -Wall -Wextra -Werror"
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

"$TMP/readme" writer >"$TMP/writer.out" 2>&1 &
WRITER=$!
fx_wait 5 said_or_gone "$TMP/writer.out" '^written$' "$WRITER" || true
grep -q '^written$' "$TMP/writer.out" || {
	kill -0 "$WRITER" 2>/dev/null || fail "the writer exited: $(cat "$TMP/writer.out")"
	fail "the writer did not finish within $(fx_loaded 5) s (load $(cut -d' ' -f1 /proc/loadavg))"
}

out=$(timeout 10 "$TMP/readme" reader 2>&1) || fail "the reader failed: $out"
[ "$out" = 1 ] || fail "the reader printed '$out', not the writer's 1 packet"
octets=$(timeout 10 "$top_builddir/examples/reader" -1 "$TMP/dataplane" |
	awk '$1 == "ifStats.rxOctets.dp0" { print $2 }')
[ "$octets" = 1500 ] || fail "ifStats.rxOctets.dp0 is '$octets', not the writer's 1500"
echo "PASS: readme_api: the README's writer and reader compile (-Wall -Wextra -Werror) and" \
	"read back 1 packet and 1500 octets"
