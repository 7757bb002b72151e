#!/bin/sh
# statctl check-config: the example config is valid (exit 0); each class of
# bad config in tests/tools/bad/ gives exit 1 and a message naming
# file:line, where the file's first line says "# expect: line N".
. "${srcdir:-.}/tests/tools/lib.sh"

check_status "the example config is valid" 0 "$STATCTL" check-config "$srcdir/conf/statctr.conf"
check "summary line" "$srcdir/conf/statctr.conf: valid: 1 segments, 3 tables, 155 cells" "$out"

nbad=0
for conf in "$TOOLS_TESTDIR"/bad/*.conf; do
	line=$(sed -n '1s/^# expect: line \([0-9]*\)$/\1/p' "$conf")
	name=$(basename "$conf")
	check_status "$name is refused" 1 "$STATCTL" check-config "$conf"
	check "$name: message names $conf:$line" 1 "$(printf "%s\n" "$err" | grep -c -F "$conf:$line:")"
	check "$name: nothing on stdout" "" "$out"
	nbad=$((nbad + 1))
done
check "every class of bad config was tried" yes "$([ "$nbad" -ge 13 ] && echo yes)"

check_status "a missing file" 1 "$STATCTL" check-config "$workdir/none.conf"
check "message names the file" 1 "$(printf "%s\n" "$err" | grep -c -F "$workdir/none.conf")"
check_status "no FILE is a usage error" 2 "$STATCTL" check-config
check_status "two FILEs is a usage error" 2 "$STATCTL" check-config a b
check_status "--help" 0 "$STATCTL" check-config --help
check "help shows the synopsis" 1 "$(printf "%s\n" "$out" | grep -c '^Usage: statctl check-config FILE$')"
finish
