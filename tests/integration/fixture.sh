# fixture.sh - shared fixture of the integration tests; sourced, not run.
#
# Starts real components in a private temporary directory: an snmpd master
# (udp on a free 127.0.0.1 port, AgentX on a unix socket, its own
# persistent dir, an engineID and an SNMPv3 authPriv user), the example
# writer (examples/pipeline) on a segment file inside the directory, and
# statctr-agentx.  Every process is started in the background, recorded,
# and stopped by pid from an EXIT trap; every wait is bounded.
#
# Environment (from AM_TESTS_ENVIRONMENT, or guessed for manual runs):
# top_srcdir, top_builddir, SNMPD, SMILINT.  CI=true turns skips into
# failures.

set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
SNMPD=${SNMPD:-$(command -v snmpd || echo /usr/sbin/snmpd)}
SMILINT=${SMILINT:-$(command -v smilint || true)}

AGENT=${AGENT:-$top_builddir/agent/statctr-agentx} # a wrapper (valgrind) may replace it
PIPELINE=$top_builddir/examples/pipeline
READER=$top_builddir/examples/reader
ROOT=.1.3.6.1.4.1.8072.9999.9999.4242
DATA=$ROOT.3.1 # statctrData.<dataplane oid>
COMMUNITY=public
WCOMMUNITY=private
V3USER=statctrtest
V3AUTH=statctr-auth-pass
V3PRIV=statctr-priv-pass

FX_PIDS=""
FX_NAME=$(basename "$0" .sh)
TEST_NAME=$FX_NAME
. "${top_srcdir:-$(dirname "${BASH_SOURCE[0]}")/../..}/tests/common.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/statctr-$FX_NAME.XXXXXX") || exit 99
snmp_private "$TMP" || exit 99 # SNMP_PERSISTENT_DIR=$TMP/persist, HOME=$TMP, MIBS=
# Sanitizer builds: LeakSanitizer runs at every exit of every process the
# test starts; third-party leaks are suppressed (tests/fault/lsan.supp), ours
# fail the process's exit status.  Net-SNMP's leaks when a master goes away
# mid-packet hit any test that stops snmpd and the agent together
# (integration/ops.sh at load 20, fault/snmpd_restarts.sh).  LSan reads the
# file at exit, when the process may run as another user (an agent after -u,
# tests/security's parties) who cannot enter the source tree: a copy in
# $TMP, readable by all once a test makes $TMP traversable.
if [ -z "${LSAN_OPTIONS:-}" ]; then
	cp "$top_srcdir/tests/fault/lsan.supp" "$TMP/lsan.supp" && chmod 0644 "$TMP/lsan.supp"
	export LSAN_OPTIONS=suppressions=$TMP/lsan.supp:print_suppressions=0
fi

log() { echo "[$FX_NAME $(date +%T.%N | cut -c1-12)] $*"; }

# common.sh's fail shows the tail of every log of the test.
TEST_ON_FAIL=fx_dump_logs
fx_dump_logs() {
	for f in "$TMP"/*.log; do
		[ -f "$f" ] || continue
		echo "----- $(basename "$f") (last 20 lines)"
		tail -n 20 "$f"
	done
}

# fx_runs PID: PID exists and is no zombie (a daemon's parent, init, may
# reap it a second or more after its exit: until then kill -0 finds it).
fx_runs() {
	local line
	read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	line=${line##*) }
	[ "${line%% *}" != Z ]
}

# Stops one process by pid: TERM, up to 5 s, then KILL.
fx_stop() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 50); do
		fx_runs "$pid" || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

fx_cleanup() {
	local pid
	if [ -n "${KEEP:-}" ]; then # debugging: keep $TMP
		for pid in $FX_PIDS; do fx_stop "$pid"; done
		echo "kept $TMP"
		return
	fi
	for pid in $FX_PIDS; do
		fx_stop "$pid"
	done
	rm -rf "$TMP"
}
trap fx_cleanup EXIT
trap 'exit 130' INT TERM

fx_track() { FX_PIDS="$1 $FX_PIDS"; }
fx_untrack() { FX_PIDS=$(echo " $FX_PIDS " | sed "s/ $1 / /"); }

fx_need() {
	local p
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || skip "$p not found (Debian: apt-get install snmp snmpd smitools)"
	done
	[ -x "${AGENT%% *}" ] || skip "$AGENT not built"
	[ -x "$PIPELINE" ] && [ -x "$READER" ] || skip "examples/pipeline and examples/reader not built"
}

# fx_freeze PID...: SIGSTOP, then waits until every thread of each PID is
# stopped.  kill returns before they are: the thread the kernel picks must
# run to begin the group stop, and until then another thread on another CPU
# runs on (the agent's aggregation thread can finish a pass and see a writer
# that was killed after the SIGSTOP).
fx_freeze() {
	kill -STOP "$@" || fail "kill -STOP $*"
	fx_wait 5 fx_frozen "$@" || fail "SIGSTOP did not stop every thread of $* within 5 s"
}
# Succeeds when every thread of each PID is stopped (state T or t).
fx_frozen() {
	local pid f line state
	for pid; do
		for f in /proc/"$pid"/task/*/stat; do
			read -r line <"$f" || return 1
			state=${line##*) } # the comm field may itself hold ") "
			case ${state%% *} in T | t) ;; *) return 1 ;; esac
		done
	done
}

# fx_on_free_port NAME SECONDS CHECK CMD...: starts CMD in the background
# (every "@PORT@" in its arguments replaced by a port; output to
# $TMP/NAME.log) until the command CHECK, given the port, succeeds within
# SECONDS; 5 ports are tried.  Another test's server may answer on a port
# CMD could not bind, so an answer counts only while CMD still runs.  Sets
# FREE_PORT and FREE_PID (tracked).
fx_on_free_port() {
	local name=$1 secs=$2 check=$3 try port pid
	shift 3
	for try in 1 2 3 4 5; do
		port=$((20000 + (RANDOM * 7 + $$ + try) % 40000))
		"${@//@PORT@/$port}" >>"$TMP/$name.log" 2>&1 &
		pid=$!
		fx_track "$pid"
		if fx_wait "$secs" "$check" "$port" && sleep 0.2 && kill -0 "$pid" 2>/dev/null; then
			FREE_PORT=$port FREE_PID=$pid
			log "$name pid $pid on 127.0.0.1:$port"
			return 0
		fi
		fx_stop "$pid"
		fx_untrack "$pid"
	done
	fail "$name did not start on any of 5 ports"
}

# fx_agent_answers_on PORT: an SNMP agent of ours answers on udp 127.0.0.1:PORT.
fx_agent_answers_on() {
	snmpget -v2c -c "$COMMUNITY" -t 0.3 -r 0 -Oqv "127.0.0.1:$1" "$ROOT.1.1.1.0" |
		grep -qv '^No Such'
}

# fx_pysnmp: PYSNMP, a python3 that has pysnmp, or a loud skip.
fx_pysnmp() {
	local py
	PYSNMP=""
	for py in ${PYSNMP_PYTHON:-python3 /usr/bin/python3}; do
		if "$py" -c 'import pysnmp.hlapi' 2>/dev/null; then
			PYSNMP=$py
			return 0
		fi
	done
	skip "no python3 with pysnmp (Debian: apt-get install python3-pysnmp4)"
}

# ------------------------------------------------------------------------
# snmpd

fx_snmpd_conf() {
	cat >"$TMP/snmpd.conf" <<EOF
agentaddress udp:127.0.0.1:$PORT
master agentx
agentXSocket $TMP/agentx.sock
agentXPerms 0600 0700
agentXTimeout 5
engineID statctr-test-engine
createUser $V3USER SHA "$V3AUTH" AES "$V3PRIV"
rouser $V3USER priv
rwuser ${V3USER}rw priv
rocommunity $COMMUNITY 127.0.0.1
rwcommunity $WCOMMUNITY 127.0.0.1
dontLogTCPWrappersConnects yes
EOF
}

fx_snmpd_answers() {
	snmpget -v2c -c "$COMMUNITY" -t 0.2 -r 0 -Oqv "127.0.0.1:$PORT" .1.3.6.1.2.1.1.3.0
}

# Starts snmpd on PORT (picked here, or kept across restarts).
fx_snmpd_start() {
	"$SNMPD" -f -Lo -C -c "$TMP/snmpd.conf" -I -smux -p "$TMP/snmpd.pid" \
		>>"$TMP/snmpd.log" 2>&1 &
	SNMPD_PID=$!
	fx_track "$SNMPD_PID"
	fx_wait 5 fx_snmpd_answers
}

fx_snmpd() {
	local try
	[ -x "$SNMPD" ] || skip "snmpd not found (Debian: apt-get install snmpd)"
	mkdir -p "$SNMP_PERSISTENT_DIR"
	for try in 1 2 3 4 5; do
		PORT=$((20000 + (RANDOM * 7 + $$) % 40000))
		fx_snmpd_conf
		if fx_snmpd_start; then
			log "snmpd pid $SNMPD_PID on udp:127.0.0.1:$PORT"
			return 0
		fi
		fx_stop "$SNMPD_PID"
		fx_untrack "$SNMPD_PID"
	done
	fail "snmpd did not answer on any of 5 ports"
}

fx_snmpd_stop() {
	fx_stop "$SNMPD_PID"
	fx_untrack "$SNMPD_PID"
}

# ------------------------------------------------------------------------
# The configuration, the writer and the agent

# Writes $TMP/statctr.conf: the project's declaration with the segment file
# moved into $TMP, plus an agent group with the given settings.
fx_config() {
	local out=${2:-$TMP/statctr.conf}
	sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$TMP/dataplane\";|" \
		"$top_srcdir/conf/statctr.conf" >"$out"
	printf 'agent = { %s };\n' "${1:-interval_ms = 100; allow_reset = true;}" >>"$out"
	SEGMENT=$TMP/dataplane
}

# fx_start_writer LOG PATH ARGS...: examples/pipeline on $TMP/statctr.conf
# with ARGS, in the background (FX_LAST_PID), once it created PATH.
fx_start_writer() {
	local log=$1 path=$2
	shift 2
	start_writer "$log" "$path" "$PIPELINE" -c "$TMP/statctr.conf" "$@"
	FX_LAST_PID=$STARTED_PID
	fx_track "$FX_LAST_PID"
}

# The main writer, on $SEGMENT: WRITER_PID.
fx_writer() {
	fx_start_writer "$TMP/writer.log" "$SEGMENT" "$@"
	WRITER_PID=$FX_LAST_PID
}

fx_writer_stop() {
	fx_stop "$WRITER_PID"
	fx_untrack "$WRITER_PID"
}

fx_reader() { "$READER" -1 "$SEGMENT" 2>/dev/null; }

# Waits until two reader snapshots 200 ms apart are identical (the writer
# has finished its -n packets).
fx_writer_settled() {
	local a b i
	for i in $(seq 50); do
		a=$(fx_reader) || true
		sleep 0.2
		b=$(fx_reader) || true
		[ -n "$a" ] && [ "$a" = "$b" ] && return 0
	done
	fail "the writer's values did not settle within 20 s"
}

fx_agent_answers() {
	snmpget -v2c -c "$COMMUNITY" -t 0.3 -r 0 -Oqv "127.0.0.1:$PORT" "$ROOT.1.1.1.0" |
		grep -qv '^No Such'
}

# fx_agent [OPTIONS]: starts the agent; returns once it answers and has
# logged that it serves (its IF-MIB ranges, registered before that line,
# included).  With FX_DAEMON=1 (the daemon_*.sh tests), as a daemon (no -f,
# logging to the same file): its parent must exit 0, AGENT_PID is the daemon
# (not a child of this shell: `wait` cannot give its status).
# Registering is snmpd's work, O(n^2) in the subtrees (docs/agent.md,
# IF-MIB "Registration"): when IF-MIB tables registered their whole ifIndex
# ranges, conf/statctr.conf's two segments were 13,851 of them, and an
# agent start took 40, 114 and 242 s beside 38 CPU hogs (load 40); they now
# register as far as their names reach.  A daemon's parent is
# given FX_REGISTER_S times the load per CPU; fx_wait's deadline for
# "serving" is its seconds times the load per CPU, squared.
FX_REGISTER_S=60
fx_agent() {
	local served
	served=$(grep -c ' serving ' "$TMP/agent.log" 2>/dev/null || true)
	if [ "${FX_DAEMON:-0}" = 1 ]; then
		fx_agent_daemon "$@"
	else
		"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -x "$TMP/agentx.sock" \
			-p "$TMP/agent.pid" "$@" >>"$TMP/agent.log" 2>&1 &
		AGENT_PID=$!
		fx_track "$AGENT_PID"
	fi
	local t1 t2
	t1=$(fx_loaded 5) t2=$(fx_loaded 10)
	fx_wait "$t1" fx_agent_answers || fail "the agent did not answer through snmpd within $t1 s"
	fx_wait "$t2" fx_served_more "${served:-0}" || fail "the agent did not log that it serves within $(fx_loaded "$t2") s (load $(cut -d' ' -f1 /proc/loadavg))"
	log "statctr-agentx pid $AGENT_PID registered"
}

fx_agent_daemon() {
	local rc=0
	rm -f "$TMP/agent.pid"
	timeout "$(fx_loaded "$FX_REGISTER_S")" "$AGENT" -L "file:$TMP/agent.log" -c "$TMP/statctr.conf" \
		-x "$TMP/agentx.sock" -p "$TMP/agent.pid" "$@" >"$TMP/daemon.out" 2>&1 || rc=$?
	AGENT_PID=$(cat "$TMP/agent.pid" 2>/dev/null || true)
	[ -n "$AGENT_PID" ] && fx_track "$AGENT_PID"
	[ "$rc" = 0 ] || fail "the daemon's parent exited $rc: $(cat "$TMP/daemon.out")"
	[ -n "$AGENT_PID" ] || fail "the daemon wrote no pid file"
	log "daemon: pid $AGENT_PID"
}

fx_served_more() { [ "$(grep -c ' serving ' "$TMP/agent.log" 2>/dev/null || true)" -gt "$1" ]; }

fx_agent_stop() {
	fx_stop "$AGENT_PID"
	fx_untrack "$AGENT_PID"
}

# Waits until the agent has completed two more aggregation passes, polling
# statctrAggPasses until 5 s times the load per CPU (fx_loaded): a GET just
# after the agent registered went unanswered for 2 s at load 15 on 2 CPUs.
fx_passes() { snmpget -v2c -c "$COMMUNITY" -Oqv -t 1 -r 1 "127.0.0.1:$PORT" "$ROOT.1.1.5.0"; }
fx_wait_pass() {
	local start="" now secs end
	secs=$(fx_loaded 5)
	end=$(($(date +%s) + secs))
	while [ "$(date +%s)" -le "$end" ]; do
		now=$(fx_passes 2>/dev/null) || now=""
		case $now in *[!0-9]* | "") now="" ;; esac
		if [ -z "$start" ]; then
			start=$now
		elif [ -n "$now" ] && [ "$now" -ge $((start + 2)) ]; then
			return 0
		fi
		sleep 0.05
	done
	[ -n "$start" ] || fail "cannot read statctrAggPasses within $secs s (load $(cut -d' ' -f1 /proc/loadavg))"
	fail "no two aggregation passes after $start within $secs s (load $(cut -d' ' -f1 /proc/loadavg))"
}

# ------------------------------------------------------------------------
# SNMP helpers: "OID value" lines, numeric, quotes removed.

V2="-v2c -c $COMMUNITY -On -Oq -Ot -t 2 -r 1"
snmp_get() { snmpget $V2 "127.0.0.1:$PORT" "$@"; }
# Instances under $1 only (snmpwalk of an empty subtree prints a GET of $1).
snmp_walk() {
	snmpwalk $V2 "127.0.0.1:$PORT" "$1" | tr -d '"' | grep -F "$1." | grep -v ' No more variables' ||
		true
}
snmp_value() { snmpget $V2 -Ov "127.0.0.1:$PORT" "$1" | tr -d '"'; }

# The library's snapshot as "table.column.row value", gauges latched to
# Gauge32 when $1 is "latch".
reader_lines() {
	fx_reader | awk -v latch="${1:-}" '
		$1 ~ /(queueDepth|inFlight)/ && latch == "latch" {
			v = $2 + 0
			if ($2 ~ /^-/) $2 = "0"
			else if (length($2) > 10 || v > 4294967295) $2 = "4294967295"
		}
		{ print $1, $2 }' | sort
}

# statctrCellTable joined by index into "table.column.row value" lines.
# $1: the walk command (snmp_walk or another that prints numeric OID lines).
cell_lines() {
	local walk=${1:-snmp_walk}
	{
		$walk "$ROOT.1.3.1.2" | sed 's/^/T /'
		$walk "$ROOT.1.3.1.3" | sed 's/^/C /'
		$walk "$ROOT.1.3.1.4" | sed 's/^/R /'
		$walk "$ROOT.1.3.1.8" | sed 's/^/V /'
		$walk "$ROOT.1.3.1.9" | sed 's/^/V /'
	} | awk -v n=$(($(echo "$ROOT.1.3.1.2" | tr -cd . | wc -c) + 1)) '
		{
			split($2, o, ".")
			idx = o[n + 1] "." o[n + 2]
			if ($1 == "T") t[idx] = $3
			else if ($1 == "C") c[idx] = $3
			else if ($1 == "R") r[idx] = $3
			else v[idx] = $3
		}
		END { for (i in v) print t[i] "." c[i] "." r[i], v[i] }' | sort
}

# "table column" in cell order (the walk's order), each pair once.
column_order() {
	local walk=${1:-snmp_walk}
	paste -d' ' <($walk "$ROOT.1.3.1.2" | cut -d' ' -f2) <($walk "$ROOT.1.3.1.3" | cut -d' ' -f2) |
		awk '!seen[$0]++'
}

# statctrData of dataplane as "table.column.row value": row names from
# column .2, the declared column c at .(10+c) in cell order.
DATA_TABLES="ifStats:1 flowStats:2 totals:3 stages:5"
data_lines() {
	local walk=${1:-snmp_walk} spec name toid
	column_order "$walk" >"$TMP/columns"
	for spec in $DATA_TABLES; do
		name=${spec%%:*}
		toid=${spec#*:}
		{
			awk -v t="$name" '$1 == t { print "COL", n++, $2 }' "$TMP/columns"
			$walk "$DATA.$toid" | sed 's/^/D /'
		} | awk -v t="$name" -v base="$DATA.$toid.1." '
			$1 == "COL" { col[$2 + 10] = $3; next }
			{
				rest = substr($2, length(base) + 1)
				split(rest, o, ".")
				if (o[1] == 2) row[o[2]] = $3
				else if (o[1] >= 10) val[o[1] "," o[2]] = $3
			}
			END { for (k in val) { split(k, q, ","); print t "." col[q[1]] "." row[q[2]], val[k] } }'
	done | sort
}

# fx_set_status OID TYPE VALUE...: the error name snmpset (write community)
# reports, or "ok" (one try, 2 s times the load per CPU); fx_expect_set
# WANT OID TYPE VALUE...: fails unless WANT.
fx_set_status() {
	local out
	out=$(snmpset -v2c -c "$WCOMMUNITY" -On -Oq -t "$(fx_loaded 2)" -r 0 "127.0.0.1:$PORT" "$@" 2>&1) && {
		echo ok
		return
	}
	echo "$out" | sed -n 's/^Reason: \([a-zA-Z]*\).*/\1/p' | head -n 1
}
fx_expect_set() {
	local want=$1 got
	shift
	got=$(fx_set_status "$@")
	[ "$got" = "$want" ] || fail "snmpset $* gave '$got', expected '$want'"
}

# Fails with a diff unless files $1 and $2 hold the same lines.
same_lines() {
	diff -u "$1" "$2" >"$TMP/diff.out" 2>&1 || {
		head -n 40 "$TMP/diff.out" >&2
		fail "$3"
	}
}

# ------------------------------------------------------------------------
# Added for tests/fault and tests/load (same rules: bounded, tracked by pid).

# Milliseconds on the monotonic-enough wall clock, for elapsed times.
fx_now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Open descriptors and resident memory (KiB) of process $1.
fx_fd_count() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
fx_rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# Restarts snmpd on the same port with extra snmpd.conf lines ($1), which
# override the fixture's (e.g. "agentXTimeout 1").
fx_snmpd_reconfigure() {
	fx_snmpd_stop
	printf '%s\n' "$1" >>"$TMP/snmpd.conf"
	fx_snmpd_start || fail "snmpd did not restart with: $1"
}

# Like fx_config, with two segments shaped like conf's dataplane, so that
# examples/pipeline can write either: dataplane (oid 1, $SEGMENT) and
# dataplane2 (oid 2, $SEGMENT2, served at $DATA2).  $2: extra settings for
# both segment groups (e.g. 'group = "nogroup";').
DATA2=$ROOT.3.2
fx_config_two() {
	local out=$TMP/statctr.conf block
	block=$(sed -n '/^  {$/,/^  }$/p' "$top_srcdir/conf/statctr.conf")
	[ -n "$block" ] || fail "cannot find the segment group in conf/statctr.conf"
	{
		echo "segments = ("
		echo "$block" | sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$TMP/dataplane\"; ${2:-}|"
		echo ","
		# The IF-MIB tables' ifIndex ranges must not overlap: 1000 -> 11000, ...
		echo "$block" | sed -e "s|name = \"dataplane\";|name = \"dataplane2\"; path = \"$TMP/dataplane2\"; ${2:-}|" \
			-e 's|^    oid = 1;|    oid = 2;|' -e 's|ifindex_base = \([0-9]*\);|ifindex_base = 1\1;|'
		echo ");"
		printf 'agent = { %s };\n' "${1:-interval_ms = 100; allow_reset = true;}"
	} >"$out"
	SEGMENT=$TMP/dataplane
	SEGMENT2=$TMP/dataplane2
}

# Starts examples/pipeline on segment $1 (a name in $TMP/statctr.conf) with
# options $2..; sets FX_LAST_PID.  Use fx_writer for the main writer.
fx_writer_on() {
	local seg=$1 path
	shift
	path=$(sed -n "s|.*name = \"$seg\"; path = \"\([^\"]*\)\".*|\1|p" "$TMP/statctr.conf")
	fx_start_writer "$TMP/writer-$seg.log" "${path:-/nonexistent}" -s "$seg" "$@"
}

# Registrations of the agent's regions in snmpd (rows of
# NET-SNMP-AGENT-MIB::nsModuleName under $ROOT): one per region, always.
# conf/statctr.conf has FX_REGIONS of them: statctrObjects, 5 tables, the
# histogram stages.latency and vfStats by name (statctrRowsByName; its
# IF-MIB ranges lie outside $ROOT).
FX_REGIONS=8
# Its IF-MIB tables add one range region per served column: 25 of ifStats
# and 20 of vfStats, registered, refused and retried as every region is.
FX_IF_RANGES=45
# nsModuleTable is indexed by (context, registration point, priority), each
# length-prefixed, and snmpd answers each GETNEXT by scanning all its
# registrations (7,000 here: 5 s for a walk of the whole column, and minutes
# on a loaded machine).  So the walk is one subtree per OID length under
# $ROOT, in the default context: a few requests each.
fx_registrations() {
	local root=${ROOT#.} depth len
	depth=$(($(tr -cd . <<<"$root" | wc -c) + 1))
	for len in $(seq $((depth + 1)) $((depth + 8))); do
		snmpbulkwalk -v2c -c "$COMMUNITY" -On -t 2 -r 1 -Cr20 "127.0.0.1:$PORT" \
			".1.3.6.1.4.1.8072.1.2.1.1.4.0.$len.$root"
	done | grep -cF " = STRING: " || true
}

# Kills process $1 with signal $2 and reaps it (it must be a child).
fx_kill() {
	local i
	kill "-$2" "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	# A daemon is no child of this shell (wait returns at once): poll until
	# it is gone, so that its exit (removing its pid file, its sockets)
	# cannot overlap what the test starts next.
	for i in $(seq $(($(fx_loaded 10) * 10))); do
		fx_runs "$1" || break
		sleep 0.1
	done
	fx_untrack "$1"
}

# tests/integration/ifwriter (IF-MIB tests): a writer of segment $1 of
# $TMP/statctr.conf taking commands from a FIFO held open on descriptor 7.
fx_ifwriter() {
	local started
	started=$(cat "$TMP/ifwriter.log" 2>/dev/null | grep -c '^ready' || true)
	rm -f "$TMP/cmd"
	mkfifo "$TMP/cmd"
	"$top_builddir/tests/integration/ifwriter" "$TMP/statctr.conf" "$1" <"$TMP/cmd" \
		>>"$TMP/ifwriter.log" 2>&1 &
	WRITER_PID=$!
	fx_track "$WRITER_PID"
	exec 7>"$TMP/cmd"
	fx_wait 5 sh -c "[ \$(grep -c '^ready' '$TMP/ifwriter.log') -gt $started ]" ||
		fail "ifwriter did not start"
}
# fx_vfs_config SEGMENT RANGE MAX: $TMP/statctr.conf with segment SEGMENT
# ($TMP/SEGMENT, oid 7), one dynamic table "vfs" of up to MAX rows and one
# counter, served as interfaces 2000.. (ifindex_range RANGE).
fx_vfs_config() {
	cat >"$TMP/statctr.conf" <<EOF
segments = ( {
  name = "$1"; path = "$TMP/$1"; oid = 7; slots = 1;
  tables = (
    { name = "vfs"; oid = 1; rows = { max = $3; };
      columns = ( { name = "rxOctets"; kind = "counter"; } );
      ifmib = { ifindex_base = 2000; ifindex_range = $2; ifType = "propVirtual";
                columns = { rxOctets = "ifHCInOctets"; }; }; }
  );
} );
EOF
}
# Ends its input; it exits.
fx_ifwriter_stop() {
	exec 7>&-
	fx_wait 5 sh -c "! kill -0 $WRITER_PID 2>/dev/null" || fail "ifwriter did not exit"
	fx_untrack "$WRITER_PID"
}
# Sends command lines (ifwriter.c) and waits until it acknowledged them all.
fx_ifcmd() {
	local before
	before=$(grep -c . "$TMP/ifwriter.log" || true)
	printf '%s\n' "$@" >&7
	fx_wait 5 sh -c "[ \$(grep -c . '$TMP/ifwriter.log') -ge $((before + $#)) ]" ||
		fail "ifwriter did not answer: $*"
	! tail -n "$#" "$TMP/ifwriter.log" | grep '^error' || fail "ifwriter refused: $*"
}
