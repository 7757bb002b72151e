# shellcheck shell=bash
# fleet.sh - what the fleet tests that run Debian's snmp_exporter generator
# and a Prometheus server share (exporter.sh, histogram.sh, naming.sh,
# prom_restarts.sh); sourced after tests/fault/lib.sh.  fleet_need checks
# the tools and finds the SMI modules, fleet_generate turns
# $TMP/statctr.conf into the MIB, the generator.yml and the generator's
# snmp.yml, fleet_relabel into the scrape job's metric_relabel_configs;
# fleet_prometheus_head and fleet_snmp_job write $TMP/prometheus.yml,
# fleet_prometheus starts a Prometheus with it and prom_query asks it;
# fleet_scrape asks an snmp_exporter (ifmib.sh too); metrics_up and
# prometheus_ready are their fx_on_free_port checks, until_deadline polls
# a check to a deadline.
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

# fleet_relabel: statctl exporter-config --relabel of $TMP/statctr.conf as
# $TMP/relabel.yml, the metric_relabel_configs that give the SNMP samples
# the names of statctl show -f prometheus (docs/fleet.md, "One metric
# naming"); appended to a job of fleet_snmp_job.
fleet_relabel() {
	"$STATCTL" exporter-config --relabel "$TMP/statctr.conf" -o "$TMP/relabel.yml" ||
		fail "statctl exporter-config --relabel"
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

# fleet_scrape EXPORTER_PORT MODULE SNMP_PORT: the snmp_exporter page of
# MODULE for the agent on SNMP_PORT.  A scrape that fails (at load 20 one
# did: the exporter's walk gave up) is made again, 3 times in all, as
# Prometheus scrapes again at its next interval; each failure is logged
# with curl's word and the load.
fleet_scrape() {
	local try
	for try in 1 2 3; do
		if curl -sSf --max-time "$(fx_loaded 30)" \
			"http://127.0.0.1:$1/snmp?module=$2&target=127.0.0.1:$3" \
			>"$TMP/scrape.out" 2>"$TMP/scrape.err"; then
			cat "$TMP/scrape.out"
			return 0
		fi
		log "scrape of $2 from 127.0.0.1:$3 failed (try $try, load $(cut -d' ' -f1 /proc/loadavg)): $(cat "$TMP/scrape.err")" >&2
	done
	return 1
}

# fleet_prometheus_head: the head of a prometheus.yml that scrapes every
# second, times the load per CPU (fx_loaded: at load 40 on 2 CPUs a walk
# through snmpd took over a second, and a scrape that times out stores
# nothing), up to scrape_configs: jobs follow.
fleet_prometheus_head() {
	local s
	s=$(fx_loaded 1)
	printf '%s\n' "global:" "  scrape_interval: ${s}s" "  scrape_timeout: ${s}s" "scrape_configs:"
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

# prom_query PROMQL [CURL_ARGS...]: the JSON answer of the Prometheus of
# fleet_prometheus to an instant query (CURL_ARGS: --data-urlencode
# time=...); fails if curl does (5 s at most, times the load per CPU).
prom_query() {
	local q=$1
	shift
	curl -sf --max-time "$(fx_loaded 5)" "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$q" "$@"
}

# until_deadline SECONDS COMMAND...: runs COMMAND every 0.5 s until it
# succeeds (0) or SECONDS have passed (1).  For checks that take a while
# each (Prometheus queries): fx_wait's count of tries would stretch it on a
# loaded machine; give it SECONDS through fx_loaded.
until_deadline() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}
