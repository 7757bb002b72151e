#!/bin/sh
# statctl's command line: exit codes (0 ok, 1 operational, 2 usage), --help
# for every command, and list in each format (a live segment, a declared
# one that is absent, then the live one after its writer died).  The status
# words are the vocabulary of docs/statctl.md, "Segment status".
. "${srcdir:-.}/tests/tools/lib.sh"
need_command jq

check_status "no command" 2 "$STATCTL"
check_status "unknown command" 2 "$STATCTL" frobnicate
check "message names it" 1 "$(printf "%s\n" "$err" | grep -c "unknown command 'frobnicate'")"
check_status "--help" 0 "$STATCTL" --help
for cmd in list show watch reset check-config mib; do
	check "--help lists $cmd" 1 "$(printf "%s\n" "$out" | grep -c "^  $cmd ")"
done
for cmd in list show watch reset check-config mib; do
	check_status "$cmd --help" 0 "$STATCTL" "$cmd" --help
	check "$cmd --help synopsis" 1 "$(printf "%s\n" "$out" | grep -c "^Usage: statctl $cmd")"
	check_status "$cmd with a bad option" 2 "$STATCTL" "$cmd" --no-such-option
done
check_status "--version" 0 "$STATCTL" --version
check_status "bad --format" 2 "$STATCTL" --format xml list
check_status "bad --format after the command" 2 "$STATCTL" list -f xml
check_status "list with an argument" 2 "$STATCTL" list extra

settled_writer "stctl_cli_$$" 1 100
# The config declares a second segment that no writer created.
python3 - "$config" "$segment" <<'PY'
import sys
path, seg = sys.argv[1], sys.argv[2]
text = open(path).read()
gone = """segments = (
  { name = "%s_gone"; oid = 2;
    tables = ( { name = "t"; oid = 1; rows = 1;
                 columns = ( { name = "c"; kind = "counter"; } ); } ); },""" % seg
assert text.count("segments = (") == 1
open(path, "w").write(text.replace("segments = (", gone))
PY

check_status "list" 0 "$STATCTL" list -c "$config"
check "live segment listed active" 1 \
	"$(printf "%s\n" "$out" | grep -c "^$segment  *active  *$writer_pid  *4 ")"
check "declared missing segment listed absent" 1 "$(printf "%s\n" "$out" | grep -c "^${segment}_gone  *absent ")"
check_status "list json" 0 "$STATCTL" -c "$config" -f json list
check "json schema" '"statctr-list" 1' "$(printf "%s\n" "$out" | jq -c '.schema, .version' | tr '\n' ' ' | sed 's/ $//')"
check "json: our segment" "active $writer_pid 4 472" \
	"$(printf "%s\n" "$out" | jq -r ".segments[] | select(.name == \"$segment\") | \"\(.status) \(.creator_pid) \(.nslots) \(.ncells)\"")"
check "json: missing segment" "absent true" \
	"$(printf "%s\n" "$out" | jq -r ".segments[] | select(.name == \"${segment}_gone\") | \"\(.status) \(.declared)\"")"
check_status "list prometheus" 0 "$STATCTL" list -c "$config" -f prometheus
printf "%s\n" "$out" >"$workdir/list.prom"
valid=no
python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import formats
e = formats.Exposition().parse(sys.argv[2])
assert e.type["statctr_segment_up"] == "gauge"
print(len(e.samples))' "$TOOLS_TESTDIR" "$workdir/list.prom" >"$workdir/n" && valid=yes
check "list prometheus is valid" yes "$valid"
check "up is 1 for ours" 1 "$(grep -c "^statctr_segment_up{segment=\"$segment\",.*status=\"active\"} 1$" "$workdir/list.prom")"
check "up is 0 for the missing one" 1 "$(grep -c "^statctr_segment_up{segment=\"${segment}_gone\",.*status=\"absent\"} 0$" "$workdir/list.prom")"

check_status "show through the config's name" 0 "$STATCTL" -c "$config" show "$segment" totals
check_status "show by path" 0 "$STATCTL" show "/dev/shm/statctr.$segment" totals
check "path and name agree" 1 "$(printf "%s\n" "$out" | grep -c '^all  *100  ')"
check "show says the writer is active" 1 \
	"$(printf "%s\n" "$out" | grep -c "^segment $segment (.*): writer $writer_pid active, 4 slots")"

# The writer killed without closing: the segment stays, its status is gone
# (the MIB's writerGone), its values final.
dead_pid=$writer_pid
kill -KILL "$writer_pid"
wait "$writer_pid" 2>/dev/null || true
writer_pid=
shm=/dev/shm/statctr.$segment
trap 'rm -f "$shm" "$shm.ctl" "$shm.lock"; cleanup' EXIT
check_status "list after the writer died" 0 "$STATCTL" list -c "$config"
check "dead writer's segment listed gone" 1 \
	"$(printf "%s\n" "$out" | grep -c "^$segment  *gone  *$dead_pid  *4 ")"
check_status "list json after the writer died" 0 "$STATCTL" -c "$config" -f json list
check "json: dead writer's segment" "gone $dead_pid" \
	"$(printf "%s\n" "$out" | jq -r ".segments[] | select(.name == \"$segment\") | \"\(.status) \(.creator_pid)\"")"
check_status "list prometheus after the writer died" 0 "$STATCTL" list -c "$config" -f prometheus
check "up is 0, status gone" 1 \
	"$(printf "%s\n" "$out" | grep -c "^statctr_segment_up{segment=\"$segment\",.*status=\"gone\"} 0$")"
check_status "show a gone segment" 0 "$STATCTL" show "$segment" totals
check "show says the writer is gone, values final" "1 1" \
	"$(printf "%s\n" "$out" | grep -c "^segment $segment (.*): writer $dead_pid gone, ") $(printf "%s\n" "$out" | grep -c '^all  *100  ')"
finish
