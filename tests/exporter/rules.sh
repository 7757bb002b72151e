#!/bin/bash
# contrib/prometheus/statctr.rules.yml: promtool check rules finds its 9
# rules valid, and promtool test rules (tests/exporter/rules_test.yml)
# proves each alert fires on the series statctr-exporter serves, when and
# with the labels and text it should, and not before.
TEST_NAME=rules
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/common.sh"
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v promtool >/dev/null || skip "promtool not found (Debian: apt-get install prometheus)"

rules=$top_srcdir/contrib/prometheus/statctr.rules.yml
out=$(promtool check rules "$rules" 2>&1) || fail_later "promtool check rules: $out"
echo "$out" | grep -q 'SUCCESS: 9 rules found' || fail_later "not 9 rules: $out"
for alert in StatctrExporterDown StatctrWriterGone StatctrSegmentDown StatctrSegmentUnreadable \
	StatctrSegmentBusy StatctrCounterReset StatctrWriterRestarted StatctrScrapeErrors \
	StatctrNotificationsLost; do
	grep -q "alertname: $alert\$" "$top_srcdir/tests/exporter/rules_test.yml" ||
		fail_later "$alert has no unit test"
done
out=$(cd "$top_srcdir/tests/exporter" && promtool test rules rules_test.yml 2>&1) ||
	fail_later "promtool test rules: $out"
echo "$out" | grep -q SUCCESS || fail_later "promtool test rules: $out"
[ "$test_failures" -eq 0 ] && echo "ok: 9 rules valid, each unit-tested"
test_finish
