#!/bin/bash
# vocabulary.sh - the shell tests speak one vocabulary: skip, fail,
# fail_later and start_writer are defined in tests/common.sh, once each,
# and in no other shell file under tests/ (a *.sh, or a file whose first
# line is a sh or bash #!).  A file that defines its own (NAME() or
# function NAME, or an alias) is printed with its line and fails the test.
# The words do what tests/README.md says: skip exits 77, and 1 under
# CI=true; fail exits 1 at once after TEST_ON_FAIL's output; fail_later
# counts and goes on, test_finish exits 1 after one; start_writer returns
# once the writer made its path, or stops it and fails.  Positive control:
# the scan names each kind of definition planted in a copy, and only those.
set -euo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
STYLE_NAME=vocabulary
. "$top_srcdir/tests/style/lib.sh"

WORDS='fail|fail_later|skip|start_writer'
DEF="^[[:space:]]*((function[[:space:]]+)?($WORDS)[[:space:]]*\(\)|function[[:space:]]+($WORDS)([[:space:]]|\{|$)|alias[[:space:]]+($WORDS)=)"

# offenders DIR: "FILE:LINE:TEXT" of each definition of a word in a shell
# file under DIR, DIR/common.sh excepted.
offenders() {
	local f
	while IFS= read -r -d '' f; do
		[ "$f" = "$1/common.sh" ] && continue
		case $f in
		*.sh) ;;
		*) head -n 1 "$f" | grep -qE '^#!.*[/ ](ba)?sh([[:space:]]|$)' || continue ;;
		esac
		grep -HnE "$DEF" "$f" || true
	done < <(find "$1" -type f -print0 | sort -z)
}

work=$(mktemp -d "${TMPDIR:-/tmp}/statctr-vocabulary.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Positive control: one planted definition of each form, and a file that
# only uses the words or defines names that merely contain them.
plant=$work/tests
mkdir -p "$plant/sub"
cp "$top_srcdir/tests/common.sh" "$plant/common.sh"
printf 'fail() {\n\texit 1\n}\n' >"$plant/a.sh"
printf '#!/bin/bash\n  skip () { exit 77; }\n' >"$plant/sub/b"
printf 'function fail_later {\n\t:\n}\n' >"$plant/sub/c.sh"
printf 'alias start_writer=true\n' >"$plant/d.sh"
printf 'fail_message() { :; }\nfx_start_writer() { :; }\nsettled_writer() { :; }\nfail "x"\nskip "y"\n' \
	>"$plant/clean.sh"
printf 'fail() { :; }\n' >"$plant/notes.txt" # not a shell file
got=$(offenders "$plant" | cut -d: -f1 | sed "s|^$plant/||" | tr '\n' ' ')
[ "$got" = "a.sh d.sh sub/b sub/c.sh " ] ||
	fail_later "the scan found '$got' in the planted copy, not 'a.sh d.sh sub/b sub/c.sh '"

found=$(offenders "$top_srcdir/tests")
[ -z "$found" ] || fail_later "defined outside tests/common.sh (use its words):"$'\n'"$found"

for w in fail fail_later skip start_writer; do
	n=$(grep -cE "^$w\(\) \{" "$top_srcdir/tests/common.sh" || true)
	[ "$n" = 1 ] || fail_later "tests/common.sh defines $w() $n times, not once"
done

# run SCRIPT: SCRIPT run by bash after sourcing common.sh, as test "t";
# "STATUS" then its stderr's lines, joined by "|".
run() {
	local rc=0
	env -u CI ${RUN_ENV:-} TEST_NAME=t bash -c ". '$top_srcdir/tests/common.sh'; $1" \
		>/dev/null 2>"$work/err" || rc=$?
	echo "$rc|$(grep -v '^=*$' "$work/err" | tr '\n' '|')"
}
want() { # DESCRIPTION EXPECTED ACTUAL
	[ "$2" = "$3" ] || fail_later "$1: expected '$2', got '$3'"
}
want "skip" "77|SKIP: t: no tool|" "$(run 'skip no tool; exit 0')"
want "skip under CI=true" \
	"1|SKIP: t: no tool|FAIL: t: CI=true, and a skip is a failure in CI|" \
	"$(RUN_ENV=CI=true run 'skip no tool; exit 0')"
want "fail" "1|FAIL: t: broken|logs|" "$(run 'TEST_ON_FAIL="echo logs"; fail broken; exit 0')"
want "fail_later, test_finish" "1|FAIL: t: one|FAIL: t: two|" \
	"$(run 'fail_later one; fail_later two; [ "$test_failures" = 2 ] && test_finish; exit 3')"
want "test_finish without failures" "0|" "$(run 'test_finish; exit 3')"
want "start_writer" "0|" \
	"$(run "start_writer '$work/w.log' '$work/seg' sh -c 'echo up; : >\"$work/seg\"; exec sleep 30'
		[ \"\$(cat '$work/w.log')\" = up ] && kill \"\$STARTED_PID\" && exit 0; exit 3")"
want "start_writer, no segment" "1|FAIL: t: the writer did not create $work/none within N s (load L)|" \
	"$(run "start_writer '$work/w2.log' '$work/none' sleep 30; exit 0" |
		sed -E 's/within [0-9]+ s \(load [0-9.]+\)/within N s (load L)/')"

style_finish
echo "PASS: vocabulary: skip, fail, fail_later and start_writer are tests/common.sh's alone, and do what they say"
