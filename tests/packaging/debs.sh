#!/bin/bash
# tests/packaging/debs.sh - the Debian packages, end to end, as an operator
# gets them: builds them with dpkg-buildpackage from a copy of the tree (the
# tree itself is never written), lints them, installs them, builds a writer
# against the installed libstatctr-dev, reads it with the installed statctl,
# serves it with the installed agent running as user statctr the way its
# unit would, queries it over SNMP with the installed MIB, reads it with the
# installed Python module, then purges the packages and checks what happens
# to the user and the group.
#
# Needs root and debhelper, lintian, snmp, systemd (scripts/install-deps.sh
# installs them); 1-2 minutes on 2 cores.  Not part of `make check`:
# scripts/test.sh runs it.  The last line is "packaging: N passed, N failed";
# the exit status is non-zero on any failure.  A missing tool or not being
# root skips (exit 77), or fails when CI=true.  KEEP=1 keeps the work dir.

# Most steps are functions run through check() or the EXIT trap.
# shellcheck disable=SC2317
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
packages=(libstatctr1 libstatctr-dev statctr-agentx statctl python3-statctr statctr-exporter)
passed=0
failed=0

# The version the packages must carry: configure.ac's AC_INIT.
version=$(sed -n 's/^AC_INIT(\[statctr\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
[ -n "$version" ] || {
	echo "debs: no version in $top/configure.ac" >&2
	exit 2
}

finish() {
	echo "packaging: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

TEST_NAME=debs
. "$top/tests/common.sh"

# check NAME COMMAND...: one pass or failure.  The command runs in this
# shell (it may start processes and set variables), its output goes to a
# file shown on failure; what a step wants shown anyway it writes to fd 3.
exec 3>&1
check() {
	local name=$1
	shift
	if "$@" >"$work/step.out" 2>&1; then
		echo "ok: $name"
		passed=$((passed + 1))
		return 0
	fi
	echo "FAIL: $name"
	tail -n 40 "$work/step.out" | sed 's/^/    /'
	failed=$((failed + 1))
	return 1
}

[ "$(id -u)" -eq 0 ] || skip "needs root (installs packages, creates users)"
for tool in dpkg-buildpackage dh dh_installsysusers lintian apt-get snmpget \
	snmptable setpriv systemd-analyze systemd-sysusers pkg-config cc timeout; do
	command -v "$tool" >/dev/null 2>&1 ||
		skip "no $tool (scripts/install-deps.sh installs it)"
done

# The packages, the statctr user and group are the host's: a second run of
# this test (another clone's suite) waits for the first instead of purging
# what it just installed.
exec 9>/run/lock/statctr-debs.lock || fail "cannot open /run/lock/statctr-debs.lock"
if ! flock -n 9; then
	echo "debs: waiting for another run of this test (/run/lock/statctr-debs.lock)"
	flock -w 3600 9 || fail "another run of this test held /run/lock/statctr-debs.lock for an hour"
fi

work=$(mktemp -d /tmp/statctr-debs.XXXXXX)
# The writer's user must reach its config and binary in here.
chmod 0755 "$work"
# snmpget and snmptable as an operator runs them, but their state (and the
# first run's "Created directory" on stderr) in here, not /var/lib/snmp.
export SNMP_PERSISTENT_DIR=$work/snmp
mkdir -p -m 0700 "$SNMP_PERSISTENT_DIR/cert_indexes"
src=$work/statctr-$version
writer_user=sctr-pkgw-$$
seg_path=/dev/shm/statctr.pkgtest-$$
pids=""
pre_user=no
pre_group=no
getent passwd statctr >/dev/null && pre_user=yes
getent group statctr >/dev/null && pre_group=yes

cleanup() {
	local pid
	for pid in $pids; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	dpkg --purge "${packages[@]}" >/dev/null 2>&1
	userdel "$writer_user" >/dev/null 2>&1
	[ "$pre_user" = yes ] || userdel statctr >/dev/null 2>&1
	[ "$pre_group" = yes ] || groupdel statctr >/dev/null 2>&1
	rm -f "$seg_path" "$seg_path.ctl" "$seg_path.lock"
	if [ "$failed" -eq 0 ] && [ -z "${KEEP:-}" ]; then
		rm -rf "$work"
	else
		echo "debs: logs and packages kept in $work"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Packages of an earlier, interrupted run would hide what this one installs.
for p in "${packages[@]}"; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
		echo "debs: purging $p, installed before this run"
		dpkg --purge "$p" >/dev/null
	fi
done

# ---- build -----------------------------------------------------------------

# The files git knows (tracked and new, not ignored) as they are in the work
# tree: what a commit of it would build.  A tree without git (an unpacked
# `make dist` tarball, which carries debian/) is copied whole.
export_tree() {
	mkdir -p "$src"
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$top" && git ls-files -co --exclude-standard -z |
			while IFS= read -r -d '' f; do
				[ -e "$f" ] && printf '%s\0' "$f"
			done | tar --null -T - -cf -) | tar -C "$src" -xf -
	else
		(cd "$top" && tar --exclude=./build --exclude='./statctr-*' -cf - .) |
			tar -C "$src" -xf -
	fi
}

changelog_version() {
	local v
	v=$(cd "$src" && dpkg-parsechangelog -S Version)
	[ "$v" = "$version" ] || {
		echo "debian/changelog says $v, configure.ac's AC_INIT $version"
		return 1
	}
}

# DPKG_GENSYMBOLS_CHECK_LEVEL=4: any change of the exported symbols fails the
# build until debian/libstatctr1.symbols lists it (see that file).  With its
# tests, as a build host runs it (dh_auto_test: PACKAGE_TESTS).
build_debs() {
	(cd "$src" && DEB_BUILD_OPTIONS="noautodbgsym parallel=2" \
		DPKG_GENSYMBOLS_CHECK_LEVEL=4 timeout 600 dpkg-buildpackage -us -uc -b) \
		>"$work/build.log" 2>&1 || {
		grep -B2 -A30 'dpkg-gensymbols: \|error' "$work/build.log" | head -n 60
		tail -n 20 "$work/build.log"
		return 1
	}
	for p in "${packages[@]}"; do
		ls "$work/${p}_${version}_"*.deb >/dev/null || return 1
	done
}

# As nobody: lintian advises against running as root.  From $work: nobody
# may not enter the tree's own directory (a clone under a 0700 one).
lint() {
	(cd "$work" && setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$work" \
		lintian --fail-on error,warning --display-info --display-experimental \
		--pedantic --show-overrides \
		"$work/statctr_${version}_"*.changes >"$work/lintian.log" 2>&1)
}

start=$(date +%s)
check "export the tree to $src" export_tree || finish
check "debian/changelog carries configure.ac's version $version" changelog_version
check "dpkg-buildpackage -us -uc -b" build_debs || finish
echo "debs: built in $(($(date +%s) - start)) s:"
(cd "$work" && for p in "${packages[@]}"; do
	f=$(ls "${p}_${version}_"*.deb)
	printf '    %-40s %6d bytes, installed %s KiB\n' "$f" "$(stat -c %s "$f")" \
		"$(dpkg-deb -f "$f" Installed-Size)"
done)
check "lintian: no error, no warning without a justified override" lint
sed 's/^/    lintian: /' "$work/lintian.log"

# ---- install ---------------------------------------------------------------

install_debs() {
	local p debs=()
	for p in "${packages[@]}"; do
		debs+=("$work/${p}_${version}_"*.deb) # the architecture's, or all
	done
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${debs[@]}" >"$work/install.log" 2>&1 || {
		tail -n 30 "$work/install.log"
		return 1
	}
}

# The package's files where Debian's tools look for them.
installed_files() {
	local f
	for f in /usr/lib/"$(dpkg-architecture -qDEB_HOST_MULTIARCH)"/libstatctr.so.1 \
		/usr/include/statctr.h /usr/bin/statctl /usr/sbin/statctr-agentx \
		/lib/systemd/system/statctr-agentx.service /usr/lib/sysusers.d/statctr.conf \
		/usr/share/snmp/mibs/STATCTR-MIB.txt /usr/share/statctr/get-smi-mibs.sh \
		/usr/share/doc/statctr-agentx/examples/statctr.conf \
		/usr/share/doc/statctr-agentx/examples/snmpd.conf \
		/usr/share/doc/libstatctr-dev/examples/minimal.c \
		/usr/share/man/man3/statctr.3.gz /usr/share/man/man8/statctr-agentx.8.gz \
		/usr/share/man/man1/statctl.1.gz /usr/share/man/man5/statctr.conf.5.gz \
		/usr/lib/python3/dist-packages/statctr/__init__.py \
		/usr/lib/python3/dist-packages/statctr/py.typed \
		/usr/sbin/statctr-exporter /lib/systemd/system/statctr-exporter.service \
		/usr/share/man/man8/statctr-exporter.8.gz \
		/usr/share/statctr-exporter/statctr.rules.yml \
		/usr/share/statctr-exporter/statctr-dashboard.json \
		/usr/share/doc/python3-statctr/python.md.gz /etc/statctr/conf.d; do
		[ -e "$f" ] || {
			echo "missing: $f"
			return 1
		}
	done
	[ -x /usr/share/statctr/get-smi-mibs.sh ] || return 1
	[ "$(pkg-config --modversion statctr)" = "$version" ]
}

# A system account that cannot log in, in its own group (or the group
# "statctr" that existed before), with no home directory created.
user_sane() {
	local want_gid=${1:-} uid gid shell home sys_max
	IFS=: read -r _ _ uid gid _ home shell < <(getent passwd statctr) || {
		echo "no user statctr"
		return 1
	}
	sys_max=$(awk '$1 == "SYS_UID_MAX" { print $2 }' /etc/login.defs)
	[ "$uid" -lt "${sys_max:-999}" ] || {
		echo "uid $uid is not a system uid"
		return 1
	}
	[ "$(getent group "$gid" | cut -d: -f1)" = statctr ] || {
		echo "primary group $gid is not statctr"
		return 1
	}
	[ -z "$want_gid" ] || [ "$gid" = "$want_gid" ] || {
		echo "gid $gid, expected the existing group's $want_gid"
		return 1
	}
	case $shell in */nologin | */false) ;; *)
		echo "login shell $shell"
		return 1
		;;
	esac
	case $home in / | /nonexistent) ;; *)
		[ ! -e "$home" ] || {
			echo "home $home was created"
			return 1
		}
		;;
	esac
}

unit=/lib/systemd/system/statctr-agentx.service
unit_verify() {
	local out
	out=$(systemd-analyze verify "$unit" 2>&1) || {
		echo "$out"
		return 1
	}
	[ -z "$out" ] || {
		echo "$out"
		return 1
	}
}

# The unit runs the agent as statctr, never as root, and never with -u.
unit_runs_as_statctr() {
	grep -qx 'User=statctr' "$unit" && grep -qx 'Group=statctr' "$unit" &&
		grep -q '^ExecStart=/usr/sbin/statctr-agentx ' "$unit" &&
		! grep -q '^ExecStart=.* -u' "$unit"
}

# The module as a script gets it: Debian's python3, nothing from the tree
# in the environment or the working directory.
python_import() {
	local out
	out=$(cd / && env -i PATH=/usr/bin:/bin /usr/bin/python3 -c 'import statctr; print(statctr.__file__)') || {
		echo "$out"
		return 1
	}
	[ "$out" = /usr/lib/python3/dist-packages/statctr/__init__.py ] || {
		echo "imported from $out"
		return 1
	}
}

check "apt-get install the ${#packages[@]} .debs" install_debs || finish
check "files in place, pkg-config statctr = $version" installed_files
check "python3 -c 'import statctr' from the package" python_import
check "user statctr: system uid, group statctr, no login, no home" user_sane
uid_first=$(id -u statctr 2>/dev/null)
check "systemd-analyze verify $unit: clean" unit_verify
check "the unit runs the agent as User=statctr Group=statctr" unit_runs_as_statctr
exporter_unit=/lib/systemd/system/statctr-exporter.service
exporter_unit_sane() {
	unit=$exporter_unit unit_verify && grep -qx 'User=statctr' "$exporter_unit" &&
		grep -qx 'Group=statctr' "$exporter_unit" && grep -qx 'Type=notify' "$exporter_unit" &&
		grep -q '^ExecStart=/usr/sbin/statctr-exporter ' "$exporter_unit"
}
check "statctr-exporter's unit: verified, Type=notify, User=statctr" exporter_unit_sane

# ---- a writer, statctl and the agent -----------------------------------------

conf=$work/statctr.conf
# The packaged example, with a private path (tests in parallel use
# "dataplane" too) and group statctr, as README.Debian tells operators.
sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$seg_path\"; group = \"statctr\";|" \
	/usr/share/doc/statctr-agentx/examples/statctr.conf >"$conf"
chmod 0644 "$conf"

build_writer() {
	# shellcheck disable=SC2046
	cc -std=gnu11 -Wall -Wextra -Werror -o "$work/minimal" \
		/usr/share/doc/libstatctr-dev/examples/minimal.c $(pkg-config --cflags --libs statctr) &&
		ldd "$work/minimal" | grep -Eq "libstatctr.so.1 => (/usr)?/lib/"
}

# as_user USER: AS becomes the command prefix that does what the unit's
# User=/Group=, NoNewPrivileges= and empty CapabilityBoundingSet= do.  A
# prefix, not a function: "${AS[@]}" PROG & gives PROG's own pid in $!.
as_user() {
	AS=(setpriv --reuid="$1" --regid="$(id -g "$1")" --init-groups --no-new-privs
		--bounding-set=-all --inh-caps=-all)
}

seg_of_group_statctr() { [ -e "$seg_path" ] && [ "$(stat -c %G "$seg_path")" = statctr ]; }

# start_group_writer: the writer, as a user who is only a member of group
# statctr, as README.Debian says.
start_group_writer() {
	useradd --system --no-create-home --shell /usr/sbin/nologin -G statctr "$writer_user" &&
		as_user "$writer_user" &&
		{ "${AS[@]}" "$work/minimal" "$conf" >"$work/writer.log" 2>&1 & } &&
		pids="$pids $!" &&
		fx_wait 5 seg_of_group_statctr && return 0
	echo "no segment $seg_path of group statctr after $(fx_loaded 5) s (load $(cut -d' ' -f1 /proc/loadavg))"
	cat "$work/writer.log"
	return 1
}

# statctl run by the agent's user reads through the group alone.
statctl_show() {
	local out
	as_user statctr
	out=$("${AS[@]}" /usr/bin/statctl -c "$conf" show dataplane ifStats) || {
		echo "$out"
		return 1
	}
	printf '    statctl: %s\n' "${out//$'\n'/$'\n'    statctl: }" >&3
	echo "$out" | awk '$1 == "dp0" { found = 1; exit !($2 + 0 > 0) } END { if (!found) exit 1 }'
}

port=$((20000 + $$ % 20000))
# statctrData.<segment 1>.<table 1>.1.<10 + column 0 = rxPackets>.<row dp0 + 1>
oid_eth0_rx=.1.3.6.1.4.1.8072.9999.9999.4242.3.1.1.1.10.1
snmp_rx() {
	snmpget -v2c -c public -Oqv -t 1 -r 0 "127.0.0.1:$port" "$oid_eth0_rx" 2>/dev/null
}
agent_answers() { [ -n "$(snmp_rx)" ]; }

# The unit's ExecStart, with -M for a private port instead of snmpd, under
# the unit's User=.
start_agent() {
	as_user "$(sed -n 's/^User=//p' "$unit")"
	{ "${AS[@]}" /usr/sbin/statctr-agentx -f -L stderr -c "$conf" \
		-M "udp:127.0.0.1:$port" >"$work/agent.log" 2>&1 & } &&
		agent_pid=$! && pids="$pids $agent_pid" &&
		{ fx_wait 5 agent_answers || true; }
	[ "$(ps -o user= -p "$agent_pid")" = statctr ] || {
		echo "agent runs as $(ps -o user= -p "$agent_pid")"
		return 1
	}
	[ -n "$(snmp_rx)" ] || {
		echo "no answer on udp:127.0.0.1:$port after $(fx_loaded 5) s (load $(cut -d' ' -f1 /proc/loadavg))"
		cat "$work/agent.log"
		return 1
	}
}

# The exporter as its unit runs it (its User=, its ExecStart with a private
# listen address), scraped with curl: dp0 counts, the segment is up.
exporter_port=$((port + 1))
exporter_scrape() {
	curl -sf -m 5 "http://127.0.0.1:$exporter_port/metrics"
}
start_exporter() {
	local out
	as_user "$(sed -n 's/^User=//p' "$exporter_unit")"
	{ "${AS[@]}" /usr/sbin/statctr-exporter -c "$conf" \
		--web.listen-address="127.0.0.1:$exporter_port" >"$work/exporter.log" 2>&1 & } &&
		exporter_pid=$! && pids="$pids $exporter_pid" &&
		{ fx_wait 5 exporter_scrape || true; }
	[ "$(ps -o user= -p "$exporter_pid")" = statctr ] || {
		echo "exporter runs as $(ps -o user= -p "$exporter_pid")"
		return 1
	}
	out=$(exporter_scrape) || {
		cat "$work/exporter.log"
		return 1
	}
	printf '    exporter: %s\n' "$(echo "$out" | grep -E '^statctr_segment_up|rx_packets_total\{.*dp0')" >&3
	echo "$out" | grep -q '^statctr_segment_up{segment="dataplane",.*status="active"} 1$' &&
		echo "$out" | awk '/^statctr_dataplane_if_stats_rx_packets_total\{.*row="dp0"/ { found = 1; exit !($2 + 0 > 0) } END { if (!found) exit 1 }'
}

# The installed module, as the agent's user, reads what statctl shows.
python_reads() {
	local out
	as_user statctr
	out=$(cd / && "${AS[@]}" env -i PATH=/usr/bin:/bin /usr/bin/python3 -c '
import sys, statctr
assert sys.argv[1] in statctr.segments("/nonexistent", config=sys.argv[2])
with statctr.View(sys.argv[1]) as v, v.snapshot() as s:
    print(s.counter("ifStats", "rxPackets", "dp0"), s.table("ifStats")["rxPackets"][0])
' "$seg_path" "$conf") || {
		echo "$out"
		return 1
	}
	echo "    python3 statctr: dp0 rxPackets $out" >&3
	[ "$(echo "$out" | awk '{ print ($1 > 0 && $2 >= $1) }')" = 1 ]
}

counter_rises() {
	local first second
	first=$(snmp_rx)
	sleep 1.5
	second=$(snmp_rx)
	echo "    dp0 rxPackets over SNMP: $first -> $second" >&3
	[ "${first:-0}" -gt 0 ] && [ "${second:-0}" -gt "$first" ]
}

# The README's snmptable, with the MIB from the package's directory, the
# configuration's MIB from statctl and the base modules from the helper.
snmptable_by_name() {
	local smi out
	smi=$(/usr/share/statctr/get-smi-mibs.sh) || return 1
	mkdir -p "$work/mibs" &&
		/usr/bin/statctl mib "$conf" -o "$work/mibs/STATCTR-DATAPLANE-MIB.txt" || return 1
	out=$(snmptable -v2c -c public -Cf , -M "+$smi:$work/mibs" \
		-m STATCTR-MIB:STATCTR-DATAPLANE-MIB "127.0.0.1:$port" dataplaneIfStatsTable) || {
		echo "$out"
		return 1
	}
	printf '    snmptable: %s\n' "${out//$'\n'/$'\n'    snmptable: }" >&3
	echo "$out" | grep -q '^dp0,'
}

check "writer built from libstatctr-dev (pkg-config statctr)" build_writer &&
	check "writer ($writer_user, in group statctr) creates its segment" start_group_writer &&
	check "statctl (as statctr) shows dp0 counting" statctl_show &&
	check "python3 statctr (as statctr) reads dp0" python_reads &&
	check "statctr-exporter starts as statctr and serves dp0 (curl)" start_exporter &&
	check "statctr-agentx starts as statctr (setpriv, like the unit)" start_agent &&
	check "a live counter rises over SNMP" counter_rises &&
	check "snmptable by name with the installed MIB" snmptable_by_name
for pid in $pids; do
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
pids=""
# Before the purge: a member left in group statctr would keep it alive.
userdel "$writer_user"

# ---- purge and the user ------------------------------------------------------

purge_debs() {
	local f
	dpkg --purge "${packages[@]}" >"$work/purge.log" 2>&1 || {
		cat "$work/purge.log"
		return 1
	}
	for f in /usr/sbin/statctr-agentx /usr/bin/statctl "$unit" /usr/sbin/statctr-exporter \
		"$exporter_unit" /usr/share/doc/statctr-exporter /usr/share/statctr-exporter \
		/usr/lib/sysusers.d/statctr.conf /usr/share/snmp/mibs/STATCTR-MIB.txt \
		/usr/share/statctr /usr/share/doc/statctr-agentx /var/lib/statctr \
		/usr/lib/python3/dist-packages/statctr; do
		[ ! -e "$f" ] || {
			echo "left after purge: $f"
			return 1
		}
	done
}

# Kept on purge, as README.Debian says, with its uid.
user_kept() {
	[ "$(id -u statctr 2>/dev/null)" = "$uid_first" ] || {
		echo "user statctr: uid '$(id -u statctr 2>/dev/null)', was $uid_first"
		return 1
	}
}

# An operator who made the group before installing (older docs told them
# to): the package's user joins that group, with its gid.
reinstall_into_existing_group() {
	local gid
	userdel statctr && { groupdel statctr 2>/dev/null || true; } &&
		groupadd --system statctr && gid=$(getent group statctr | cut -d: -f3) &&
		install_debs && user_sane "$gid"
}

check "dpkg --purge: no file left" purge_debs
check "user statctr kept with uid $uid_first" user_kept
if [ "$pre_user" = no ]; then
	check "reinstall: the user joins a group statctr made before" reinstall_into_existing_group
else
	check "reinstall: the user statctr that existed is reused" install_debs &&
		check "its uid is unchanged" user_kept
fi
check "dpkg --purge again: no file left" purge_debs
echo "debs: $(($(date +%s) - start)) s in all"
finish
