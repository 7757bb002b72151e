#!/bin/sh
# statctl's command line: exit codes (0 ok, 1 operational, 2 usage), --help
# for every command, and list in each format (a live segment, a declared
# one that is gone).
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

start_writer "stctl_cli_$$" 1 100
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
check "live segment listed alive" 1 \
	"$(printf "%s\n" "$out" | grep -c "^$segment  *alive  *$writer_pid  *4 ")"
check "declared absent segment listed gone" 1 "$(printf "%s\n" "$out" | grep -c "^${segment}_gone  *gone ")"
check_status "list json" 0 "$STATCTL" -c "$config" -f json list
check "json schema" '"statctr-list" 1' "$(printf "%s\n" "$out" | jq -c '.schema, .version' | tr '\n' ' ' | sed 's/ $//')"
check "json: our segment" "alive $writer_pid 4 155" \
	"$(printf "%s\n" "$out" | jq -r ".segments[] | select(.name == \"$segment\") | \"\(.status) \(.creator_pid) \(.nslots) \(.ncells)\"")"
check "json: gone segment" "gone true" \
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
check "up is 1 for ours" 1 "$(grep -c "^statctr_segment_up{segment=\"$segment\",.*status=\"alive\"} 1$" "$workdir/list.prom")"
check "up is 0 for the gone one" 1 "$(grep -c "^statctr_segment_up{segment=\"${segment}_gone\",.*status=\"gone\"} 0$" "$workdir/list.prom")"

check_status "show through the config's name" 0 "$STATCTL" -c "$config" show "$segment" totals
check_status "show by path" 0 "$STATCTL" show "/dev/shm/statctr.$segment" totals
check "path and name agree" 1 "$(printf "%s\n" "$out" | grep -c '^all  *100  ')"
finish
