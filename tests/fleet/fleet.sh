# shellcheck shell=bash
# fleet.sh - what the fleet tests that run Debian's snmp_exporter generator
# and a Prometheus server share (exporter.sh, histogram.sh, naming.sh);
# sourced after tests/fault/lib.sh.  fleet_need checks the tools and finds
# the SMI modules, fleet_generate turns $TMP/statctr.conf into the MIB, the
# generator.yml and the generator's snmp.yml, fleet_prometheus starts a
# Prometheus with $TMP/prometheus.yml; metrics_up and prometheus_ready are
# their fx_on_free_port checks.
STATCTL=$top_builddir/tools/statctl

# fleet_need [TOOL...]: the fleet's tools and these, statctl, the SMI modules
# ($smi) and NET-SNMP-MIB ($netsnmp_mib), or a loud skip.
fleet_need() {
	fx_need snmpget curl jq prometheus-snmp-generator prometheus-snmp-exporter prometheus promtool \
		"$@"
	[ -x "$STATCTL" ] || skip "$STATCTL not built"
	smi=$("$top_srcdir/scripts/get-smi-mibs.sh" 2>"$TMP/smi.log") ||
		skip "SMI modules unavailable: $(cat "$TMP/smi.log")"
	netsnmp_mib=/usr/share/snmp/mibs/NET-SNMP-MIB.txt # STATCTR-MIB imports it
	[ -f "$netsnmp_mib" ] || skip "$netsnmp_mib missing (Debian: apt-get install libsnmp-base)"
}

http_ok() { curl -sf -o /dev/null "http://127.0.0.1:$1$2"; }
metrics_up() { http_ok "$1" /metrics; }
prometheus_ready() { http_ok "$1" /-/ready; }

# fleet_generate MIB_NAME MODULE: statctl mib of $TMP/statctr.conf as
# $mibs/MIB_NAME.txt beside the modules it imports, statctl
# exporter-config as $gen/generator.yml, and the generator's $gen/snmp.yml,
# which must hold MODULE.
fleet_generate() {
	gen=$TMP/gen mibs=$TMP/mibs
	mkdir -p "$gen" "$mibs"
	cp "$smi"/*.txt "$netsnmp_mib" "$top_srcdir/mib/STATCTR-MIB.txt" "$mibs/"
	"$STATCTL" mib "$TMP/statctr.conf" -o "$mibs/$1.txt" || fail "statctl mib"
	"$STATCTL" exporter-config "$TMP/statctr.conf" -o "$gen/generator.yml" ||
		fail "statctl exporter-config"
	(cd "$gen" && MIBDIRS=$mibs prometheus-snmp-generator --fail-on-parse-errors generate) \
		>"$TMP/generator.log" 2>&1 || fail "the generator failed: $(tail -n 5 "$TMP/generator.log")"
	grep -q "^$2:" "$gen/snmp.yml" || fail "snmp.yml has no module $2"
}

# fleet_prometheus: $TMP/prometheus.yml, checked by promtool, served by a
# Prometheus on a free port: PROM_PORT.
fleet_prometheus() {
	promtool check config "$TMP/prometheus.yml" >"$TMP/promtool.log" 2>&1 ||
		fail "promtool check config: $(cat "$TMP/promtool.log")"
	fx_on_free_port prometheus 15 prometheus_ready \
		prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
		--web.listen-address=127.0.0.1:@PORT@ --log.level=warn
	PROM_PORT=$FREE_PORT
}

# fleet_snmp_exporter: prometheus-snmp-exporter with $gen/snmp.yml on a free
# port: EXPORTER_PORT.
fleet_snmp_exporter() {
	fx_on_free_port exporter 5 metrics_up \
		prometheus-snmp-exporter --config.file="$gen/snmp.yml" \
		--web.listen-address=127.0.0.1:@PORT@
	EXPORTER_PORT=$FREE_PORT
}

# fleet_snmp_job JOB TARGET: the scrape job of docs/fleet.md: snmp_exporter
# (EXPORTER_PORT) with module $MODULE walks TARGET; YAML under
# scrape_configs, to which metric_relabel_configs may follow.
fleet_snmp_job() {
	cat <<JOB
  - job_name: $1
    metrics_path: /snmp
    params:
      module: [$MODULE]
    static_configs:
      - targets: ["$2"]
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - source_labels: [__param_target]
        target_label: instance
      - target_label: __address__
        replacement: 127.0.0.1:$EXPORTER_PORT
JOB
}
