#!/bin/bash
# Prometheus names that promtool's style lint reports (docs/statctl.md,
# "Prometheus"): check-config warns of each, with FILE:LINE, and of no
# other; a declaration full of such names (columns "b", "d", "ms", a
# segment "s", a histogram) is written by a writer, shown with
# `statctl show -f prometheus`, and the families `promtool check metrics`
# reports as "abbreviated units" are exactly the ones check-config named.
. "${srcdir:-.}/tests/tools/lib.sh"
need_command promtool
IFWRITER=$top_builddir/tests/integration/ifwriter
need_program "$IFWRITER"

config=$workdir/lint.conf
cat >"$config" <<EOF
segments = (
  { name = "lint"; path = "$workdir/lint"; slots = 1;
    tables = (
      { name = "big"; rows = 1;
        columns = (
          { name = "b"; kind = "counter"; },
          { name = "d"; kind = "gauge"; },
          { name = "rxBytes"; kind = "counter"; },
          { name = "latencyMs"; kind = "histogram"; buckets = [ 1, 10 ]; } ); } ); },
  { name = "s"; path = "$workdir/s"; slots = 1;
    tables = ( { name = "t"; rows = 1; columns = ( { name = "packets"; kind = "counter"; } ); } ); }
);
EOF

check_status "check-config accepts the names" 0 "$STATCTL" check-config "$config"
warned=$(sed -n 's/.*warning: Prometheus name "\([^"]*\)".*/\1/p' <<<"$err" | sort)
check "check-config warns of these families" \
	"statctr_lint_big_b_total statctr_lint_big_d statctr_lint_big_latency_ms statctr_s_t_packets_total" \
	"$(echo $warned)"
check "each warning names FILE:LINE" 4 "$(grep -c "^$config:[0-9]*: .*warning: " <<<"$err")"
check_status "check-config: no warning for conf/statctr.conf" 0 "$STATCTL" check-config "$srcdir/conf/statctr.conf"
check "conf/statctr.conf: stderr" "" "$err"

# Both segments written, then shown and linted.
for seg in lint s; do
	mkfifo "$workdir/cmd.$seg"
	"$IFWRITER" "$config" "$seg" <"$workdir/cmd.$seg" >"$workdir/writer.$seg" 2>&1 &
	writer_pid="$! $writer_pid"
	eval "exec {fd_$seg}>\"\$workdir/cmd.\$seg\""
done
both_ready() { [ "$(cat "$workdir"/writer.* | grep -c '^ready')" = 2 ]; }
fx_wait 5 both_ready || true # checked next, with what the writers said
check "the writers are ready" 2 "$(cat "$workdir"/writer.* | grep -c '^ready')"
"$STATCTL" -c "$config" -f prometheus show >"$workdir/show.prom"
# shellcheck disable=SC2154 # fd_lint and fd_s are set by eval above
exec {fd_lint}>&- {fd_s}>&-
set +e
promtool check metrics <"$workdir/show.prom" >"$workdir/promtool.out" 2>&1
rc=$?
set -e
check "promtool check metrics: lint findings only (exit 3)" 3 "$rc"
# A counter column is two families, X_total and its X_created (the
# discontinuity time): check-config names the column's X_total once.
linted=$(sed -n 's/^\([a-z0-9_]*\) metric names should not contain abbreviated units$/\1/p' \
	"$workdir/promtool.out" | sed 's/_created$/_total/' | sort -u)
check "promtool reports the families check-config warned of" "$(echo $warned)" "$(echo $linted)"
check "promtool reports nothing else" "$(grep -c . "$workdir/promtool.out")" \
	"$(grep -c 'should not contain abbreviated units' "$workdir/promtool.out")"
finish
