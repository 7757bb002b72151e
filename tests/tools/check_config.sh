#!/bin/sh
# statctl check-config: the example config is valid (exit 0), the command
# line is checked.  Every class of bad config (tests/tools/corpus/) is run
# by verdicts.sh, through this command and the agent's --check-config.
. "${srcdir:-.}/tests/tools/lib.sh"

check_status "the example config is valid" 0 "$STATCTL" check-config "$srcdir/conf/statctr.conf"
check "summary line" "$srcdir/conf/statctr.conf: valid: 1 segments, 5 tables, 472 cells" "$out"

check_status "a missing file" 1 "$STATCTL" check-config "$workdir/none.conf"
check "message names the file" 1 "$(printf "%s\n" "$err" | grep -c -F "$workdir/none.conf")"
check_status "no FILE is a usage error" 2 "$STATCTL" check-config
check_status "two FILEs is a usage error" 2 "$STATCTL" check-config a b
check_status "--help" 0 "$STATCTL" check-config --help
check "help shows the synopsis" 1 "$(printf "%s\n" "$out" | grep -c '^Usage: statctl check-config FILE$')"
finish
