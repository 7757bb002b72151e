#!/bin/sh
# One verdict on a configuration: `statctl check-config FILE` and
# `statctr-agentx --check-config -c FILE` (what an ExecStartPre runs, and what
# a start checks) run the same code, mib/settings.c's settings_check().  For
# every file of tests/tools/corpus/, whose first line says "# expect: valid"
# or "# expect: line N", both must exit alike (0 or 1), print the same lines,
# and be right: valid files pass with their summary (and at most warnings
# on stderr), invalid ones fail with one line naming FILE:N and nothing on
# stdout.
. "${srcdir:-.}/tests/tools/lib.sh"

AGENT=${AGENT:-$top_builddir/agent/statctr-agentx}
need_program "$AGENT"

# verdicts FILE: both commands on FILE; sets s_rc, a_rc and compares their output.
verdicts() {
	set +e
	"$STATCTL" check-config "$1" >"$workdir/s.out" 2>"$workdir/s.err"
	s_rc=$?
	"$AGENT" --check-config -c "$1" >"$workdir/a.out" 2>"$workdir/a.err"
	a_rc=$?
	set -e
	check "$2: same exit status" "$s_rc" "$a_rc"
	check "$2: same stdout" "$(cat "$workdir/s.out")" "$(cat "$workdir/a.out")"
	check "$2: same stderr" "$(cat "$workdir/s.err")" "$(cat "$workdir/a.err")"
}

n=0
nvalid=0
for conf in "$TOOLS_TESTDIR"/corpus/*.conf; do
	name=$(basename "$conf")
	expect=$(sed -n '1s/^# expect: //p' "$conf")
	verdicts "$conf" "$name"
	case $expect in
	valid)
		check "$name: valid" 0 "$s_rc"
		check "$name: the summary line" 1 "$(grep -c "^$conf: valid: [0-9]* segments, [0-9]* tables, [0-9]* cells$" "$workdir/s.out")"
		# (but check-config's warnings of promtool's lint: the corpus's segment "s")
		check "$name: nothing on stderr but warnings" "" \
			"$(grep -v -e ': warning: Prometheus name ' -e '^[^ ]*: segments[^ ]*\.standard: warning: ' "$workdir/s.err" || true)"
		case $name in
		*deprecated*)
			# one warning, naming the `standard` line of each deprecated table
			check "$name: the deprecation warning names FILE:LINE" "1" \
				"$(grep -c -F "$conf:5: segments.[0].tables.[0].standard: warning: \`standard = \"if-mib\"\`" "$workdir/s.err")"
			check "$name: one warning per deprecated table" "2" \
				"$(grep -c 'is deprecated' "$workdir/s.err")" ;;
		*)
			check "$name: no deprecation warning" "0" "$(grep -c 'is deprecated' "$workdir/s.err" || true)" ;;
		esac
		nvalid=$((nvalid + 1))
		;;
	"line "*)
		line=${expect#line }
		check "$name: refused" 1 "$s_rc"
		check "$name: one line naming $conf:$line" "1 1" \
			"$(wc -l <"$workdir/s.err") $(grep -c -F "$conf:$line: " "$workdir/s.err")"
		check "$name: nothing on stdout" "" "$(cat "$workdir/s.out")"
		;;
	*)
		fail_later "$name: no '# expect: valid' or '# expect: line N' on its first line"
		;;
	esac
	n=$((n + 1))
done
check "the corpus has 30 files or more, valid and not" yes \
	"$([ "$n" -ge 30 ] && [ "$nvalid" -ge 10 ] && [ "$((n - nvalid))" -ge 20 ] && echo yes)"

# The seven files of the issue, by their verdicts: the rule each one tests.
for want in "issue-interval-5.conf: agent.interval_ms: 5 is out of range 10..3600000" \
	"issue-misspelled-key.conf: agent.intervall_ms: unknown setting (known: interval_ms," \
	"issue-master-empty.conf: agent.master: must be 1..1023 printable ASCII characters" \
	"issue-root-116-arcs.conf: agent.root_oid: must be a dotted OID below 1.3.6.1 of at most 100 numbers" \
	"issue-root-2.25.1.conf: agent.root_oid: must be a dotted OID below 1.3.6.1" \
	"issue-mib-module-double-hyphen.conf: agent.mib_module: must be an SMIv2 module name"; do
	name=${want%%: *}
	verdicts "$TOOLS_TESTDIR/corpus/$name" "$name"
	check "$name: the rule broken" 1 "$(grep -c -F "${want#*: }" "$workdir/s.err")"
done
verdicts "$TOOLS_TESTDIR/corpus/issue-root-leading-dot.conf" issue-root-leading-dot.conf
check "a leading dot is Net-SNMP's notation: valid" 0 "$s_rc"

# -n is --check-config; the example configuration; a file that is not there.
check_status "-n on the example" 0 "$AGENT" -n -c "$srcdir/conf/statctr.conf"
check "-n prints the summary" 1 "$(printf "%s\n" "$out" | grep -c "^$srcdir/conf/statctr.conf: valid: 1 segments, [0-9]* tables, [0-9]* cells$")"
verdicts "$srcdir/conf/statctr.conf" statctr.conf
check "-n is --check-config" "$out" "$(cat "$workdir/a.out")"
verdicts "$workdir/none.conf" "a missing file"
check "a missing file is refused" 1 "$s_rc"
check "the message names it" 1 "$(grep -c -F "$workdir/none.conf: " "$workdir/s.err")"
finish
