# shellcheck shell=bash
# snmptrapd helpers of the notification tests (linktraps, linkstorm, disman,
# msinks), sourced after fixture.sh: start_trapd starts a real snmptrapd
# whose notifications tests/integration/trapstamp.py stamps into $TRAPS, one
# line each; count, have and last_of read that file; ifseg_conf writes the
# configuration of tests/integration/ifwriter's two-port IF-MIB table.
TRAPS=$TMP/traps.txt

# snmptrapd on a free port, its notifications stamped into $TRAPS; the
# lines of $TRAPD_CONF (e.g. createUser) added to its configuration; on
# $TRAPD_TRANSPORT (udp, or tcp where a burst must not overflow snmptrapd's
# socket buffer: a UDP one holds about 200 notifications).  A ping
# sent before snmptrapd listens is lost: sent again until one arrives.
trapd_ping() { # PORT
	kill -0 "$TRAPD_PID" 2>/dev/null || return 1
	snmptrap -v2c -c public "${TRAPD_TRANSPORT:-udp}:127.0.0.1:$1" '' .1.3.6.1.4.1.8072.9999.1 &&
		fx_wait 1 grep -q ' .1.3.6.1.4.1.8072.9999.1$' "$TRAPS"
}
trapd_answers() { # PORT
	local i
	for i in $(seq 10); do
		kill -0 "$TRAPD_PID" 2>/dev/null || return 1
		trapd_ping "$1" && return 0
	done
	return 1
}
start_trapd() {
	local try
	printf 'disableAuthorization yes\n%s\n' "${TRAPD_CONF:-}" >"$TMP/snmptrapd.conf"
	mkfifo "$TMP/trapfifo"
	for try in 1 2 3 4 5; do
		TPORT=$((20000 + (RANDOM * 7 + $$ + try) % 40000))
		python3 "$top_srcdir/tests/integration/trapstamp.py" "$TRAPS" <"$TMP/trapfifo" &
		fx_track $!
		snmptrapd -f -C -c "$TMP/snmptrapd.conf" -On -Lo -F 'TRAP %P\t%v\n' \
			"${TRAPD_TRANSPORT:-udp}:127.0.0.1:$TPORT" >"$TMP/trapfifo" 2>&1 &
		TRAPD_PID=$!
		fx_track "$TRAPD_PID"
		if trapd_answers "$TPORT"; then
			log "snmptrapd pid $TRAPD_PID on ${TRAPD_TRANSPORT:-udp}:127.0.0.1:$TPORT"
			return 0
		fi
		fx_stop "$TRAPD_PID"
		fx_untrack "$TRAPD_PID"
	done
	fail "snmptrapd did not receive on any of 5 ports"
}

# Notifications NAME for ifIndex IFINDEX received so far (that came as HOW:
# trap-v2c, inform-v3, ...).
count() { awk -v n="$1" -v i="$2" -v h="${3:-}" '$2 == n && $3 == i && (h == "" || $5 == h)' "$TRAPS" | grep -c . || true; }
have() { [ "$(count "$1" "$2")" -ge "$3" ]; }
last_of() { awk -v n="$1" -v i="$2" '$2 == n && $3 == i' "$TRAPS" | tail -n 1; }


# $TMP/statctr.conf: segment ifseg, its table ports (port0, port1: ifIndex
# 1000, 1001) of rxOctets and the oper gauge served as IF-MIB, and an agent
# group of the given settings.
ifseg_conf() { # AGENT SETTINGS
	cat >"$TMP/statctr.conf" <<CONF
segments = ( {
  name = "ifseg"; path = "$TMP/ifseg"; oid = 7; slots = 1;
  tables = (
    { name = "ports"; oid = 1; rows = [ "port0", "port1" ];
      columns = (
        { name = "rxOctets"; kind = "counter"; },
        { name = "oper";     kind = "gauge"; } );
      ifmib = { ifindex_base = 1000;
                columns = { rxOctets = "ifHCInOctets"; oper = "ifOperStatus"; }; }; }
  );
} );
agent = { $* };
CONF
}
