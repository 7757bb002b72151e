#!/bin/bash
# collectd_block.sh FRAGMENT - runs a collectd.conf fragment of the docs as
# written (tests/docs/run_docs.sh, inside its namespace, snmpd and the agent
# serving): a collectd.conf of this script (csv plugin storing values as
# read, its own BaseDir) Includes it; `collectd -t` must accept it; then
# collectd runs until the csv plugin has a value of each <Data> of Type
# "derive", and each value must lie between snmpget's values of its OID
# before collectd started and after it wrote (the writer keeps counting).
set -euo pipefail
frag=$(realpath "$1")
d=$frag.d
mkdir -p "$d/csv"
cat >"$d/collectd.conf" <<EOF
Interval 1
BaseDir "$d"
PIDFile "$d/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
LoadPlugin csv
<Plugin csv>
  DataDir "$d/csv"
  StoreRates false
</Plugin>
Include "$frag"
EOF
collectd -t -C "$d/collectd.conf"

# "HOST ADDRESS COMMUNITY" of the first <Host>, "TYPEINSTANCE OID" per DERIVE <Data>.
unquote() { sed -e 's/#.*//' -e 's/^[^"]*"//' -e 's/".*//'; }
host=$(sed -n 's/^ *<Host "\([^"]*\)">.*/\1/p' "$frag" | head -n 1)
address=$(grep -m1 '^ *Address ' "$frag" | unquote)
community=$(grep -m1 '^ *Community ' "$frag" | unquote)
awk '/<Data /{ t = ""; ti = "" }
	$1 == "Type" { t = $2 }
	$1 == "TypeInstance" { ti = $2 }
	$1 == "Values" && t == "\"derive\"" { gsub(/"/, "", ti); gsub(/"/, "", $2); print ti, $2 }' \
	"$frag" >"$d/derives"
[ -s "$d/derives" ] || { echo "the fragment collects no DERIVE value" >&2; exit 1; }
[ -n "$host" ] && [ -n "$address" ] && [ -n "$community" ] ||
	{ echo "no Host, Address or Community in the fragment" >&2; exit 1; }
get() { snmpget -v2c -c "$community" -Oqv "$address" "$1"; }
while read -r ti oid; do get "$oid" >"$d/before.$ti"; done <"$d/derives"

collectd -f -C "$d/collectd.conf" &
pid=$!
csv() { cat "$d/csv/$host/snmp/derive-$1"-* 2>/dev/null | grep -v '^epoch' | tail -n 1; }
all_written() {
	local ti oid
	while read -r ti oid; do [ -n "$(csv "$ti")" ] || return 1; done <"$d/derives"
}
for _ in $(seq 1 400); do all_written && break; sleep 0.1; done
kill "$pid"
wait "$pid" || true
while read -r ti oid; do
	value=$(csv "$ti" | cut -d, -f2)
	before=$(cat "$d/before.$ti") after=$(get "$oid")
	echo "$host $ti ($oid): collectd $value, snmpget $before before and $after after"
	[ -n "$value" ] || { echo "collectd wrote no value of $ti within 40 s" >&2; exit 1; }
	awk -v v="$value" -v b="$before" -v a="$after" 'BEGIN { exit !(v + 0 >= b + 0 && v + 0 <= a + 0) }' ||
		{ echo "$ti: collectd's $value is not between $before and $after" >&2; exit 1; }
done <"$d/derives"
