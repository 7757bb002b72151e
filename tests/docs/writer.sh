# shellcheck shell=bash
# tests/docs/writer.sh, sourced by install.sh and prefix.sh: start_minimal
# MINIMAL STATCTL starts the writer MINIMAL (examples/minimal.c, built by the
# caller) on conf/statctr.conf with its segment in $TMP, sets WRITER to its
# pid, and polls STATCTL until it reads dp0's rxPackets above 0: sets GOT,
# or fails.  The caller's EXIT trap stops WRITER.
start_minimal() {
	local minimal=$1 statctl=$2
	sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$TMP/dataplane\";|" \
		"$top_srcdir/conf/statctr.conf" >"$TMP/statctr.conf"
	"$minimal" "$TMP/statctr.conf" >"$TMP/writer.log" 2>&1 &
	WRITER=$!
	GOT=""
	for _ in $(seq 400); do
		GOT=$("$statctl" -f json show "$TMP/dataplane" ifStats 2>/dev/null |
			jq -r '.segments[0].tables[0].rows[0].values.rxPackets' 2>/dev/null) || true
		[ -n "$GOT" ] && [ "$GOT" != null ] && [ "$GOT" -gt 0 ] && return 0
		kill -0 "$WRITER" 2>/dev/null || fail "the writer exited: $(cat "$TMP/writer.log")"
		sleep 0.05
	done
	fail "$statctl read no packets of the writer (got '$GOT')"
}
