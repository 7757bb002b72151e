#!/bin/sh
# statctl on CPU slots (cpu_slots), against a writer of known counts
# (cpu_rec.c): each format names the CPU slots cpuN (collapse 1) or cpuA-B
# (collapse 2), the slots add up to the totals, the header tells the CPU
# slots and their aborted sequences, and a reset works across them.
. "${srcdir:-.}/tests/tools/lib.sh"

CPU_REC=${CPU_REC:-$top_builddir/tests/tools/cpu_rec}
need_program "$CPU_REC"
need_command jq
ncpus=$(getconf _NPROCESSORS_CONF)

# run_writer SLOTS CPU_SLOTS: a cpu_rec writer of a fresh segment; waits
# (bounded: 10 s) for its "ready".
run_writer() {
	segment=stctl_cpu_$$_$1
	config=$workdir/cpu.conf
	cat >"$config" <<CONF
segments = ( { name = "$segment"; slots = $1; cpu_slots = $2;
  tables = ( { name = "t"; rows = 1; columns = (
    { name = "n"; kind = "counter"; }, { name = "level"; kind = "gauge"; } ); } ); } );
CONF
	"$CPU_REC" "$config" "$segment" >"$workdir/rec.out" 2>"$workdir/rec.err" &
	writer_pid=$!
	fx_wait 10 said_or_gone "$workdir/rec.out" '^ready' "$writer_pid" || true
	grep -q '^ready' "$workdir/rec.out" && return 0
	cat "$workdir/rec.err" >&2
	fail "cpu_rec did not start ($2)"
}

stop_writer() {
	kill "$writer_pid"
	wait "$writer_pid" || true
	writer_pid=
}

# --- collapse 1, one thread slot: slots 0, shared, cpu0 .. cpuN-1.
run_writer 1 true
names=$(seq 0 $((ncpus - 1)) | sed 's/^/cpu/' | tr '\n' ' ' | sed 's/ $//')
check_status "show --slots" 0 "$STATCTL" show --slots "$segment"
cat "$workdir/out"
check "text: total of t.n" 10005 "$(awk '$1 == "0" { print $2; exit }' "$workdir/out")"
check "text: the level" 5 "$(awk '$1 == "0" { print $3; exit }' "$workdir/out")"
check "text: slot rows named" "slot shared $names" \
	"$(awk '/^  (slot|shared|cpu)/ { print $1 }' "$workdir/out" | tr '\n' ' ' | sed 's/ $//')"
check "text: the header tells the CPU slots" 1 \
	"$(grep -c "^$ncpus CPU slots, [0-9]* restartable sequences aborted$" "$workdir/out")"
check "text: the CPU slots add up to 10000" 10000 \
	"$(awk '/^  cpu/ { s += $2 } END { print s }' "$workdir/out")"

check_status "show --slots json" 0 "$STATCTL" show --slots -f json "$segment"
cp "$workdir/out" "$workdir/show.json"
check "json: slot_names" "0 shared $names" \
	"$(jq -r '.segments[0].slot_names | join(" ")' "$workdir/show.json")"
check "json: cpu_slots" "$ncpus" "$(jq '.segments[0].cpu_slots' "$workdir/show.json")"
check "json: slots add up to the value" 10005 \
	"$(jq '.segments[0].tables[0].rows[0].slots.n | add' "$workdir/show.json")"
check "json: as many slot values as names" true \
	"$(jq '.segments[0] | (.tables[0].rows[0].slots.n | length) == (.slot_names | length)' "$workdir/show.json")"

check_status "show --slots prometheus" 0 "$STATCTL" show --slots -f prometheus "$segment"
check "prometheus: a sample per CPU slot" "$ncpus" \
	"$(grep -c '_t_n_by_slot_total{.*slot="cpu[0-9]*"} ' "$workdir/out")"
check "prometheus: the shared slot" 1 "$(grep -c '_t_n_by_slot_total{.*slot="shared"} 0$' "$workdir/out")"

# A reset takes the CPU slots' counts into its baseline.
check_status "reset t" 0 "$STATCTL" reset "$segment" t
check_status "show after the reset" 0 "$STATCTL" show -f json "$segment"
check "t.n is 0 after the reset" 0 "$(printf "%s\n" "$out" | jq '.segments[0].tables[0].rows[0].values.n')"
stop_writer

# --- collapse 2, no thread slot: shared, then cpu0-1 ...
run_writer 0 "{ collapse = 2; }"
check "collapse 2: locked adds (mode 0)" "ready 0" "$(cat "$workdir/rec.out")"
check_status "show --slots json, collapse 2" 0 "$STATCTL" show --slots -f json "$segment"
if [ "$ncpus" -ge 2 ]; then
	check "json: the first CPU slot covers cpu0-1" cpu0-1 \
		"$(printf "%s\n" "$out" | jq -r '.segments[0].slot_names[1]')"
fi
check "json: collapse 2 slots" "$(((ncpus + 1) / 2))" "$(printf "%s\n" "$out" | jq '.segments[0].cpu_slots')"
check "json: total without thread slots" 10000 \
	"$(printf "%s\n" "$out" | jq '.segments[0].tables[0].rows[0].values.n')"
stop_writer
finish
