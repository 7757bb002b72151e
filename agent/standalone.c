/*
 * standalone.c - the snmpd.conf lines of the embedded master and its engine
 * boots file (see standalone.h).
 *
 * Owns the access model of -M (docs/security.md, "SNMP clients"): every
 * party reads all the agent serves; only the write community and SNMPv3
 * users with access "reset" may write, and only below root_oid, where the
 * reset columns are the sole writable objects.  SNMPv3 users need
 * authPriv.  Never registers handlers, never reads segments.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "agent.h"
#include "standalone.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * An SnmpEngineID of format 4, text (RFC 3411): Net-SNMP's enterprise
 * number 8072 with the top bit set, then 4, then the text; what snmpd's
 * "engineID TEXT" makes.  Given exactly, so that the agent knows the bytes
 * it hands Net-SNMP as the previous run's engineID (below).
 */
static const unsigned char engine_id_prefix[] = {0x80, 0x00, 0x1f, 0x88, 0x04};
#define ENGINE_HEX_SIZE (2 + 2 * (sizeof(engine_id_prefix) + SETTINGS_MAX_ENGINE_ID) + 1)
#define MAX_BOOTS       2147483647 /* snmpEngineBoots (RFC 3414, 2.2.2): then stuck */

/* FNV-1a over @s, from @hash: stable across runs and hosts; not a secret. */
static uint64_t fnv1a(uint64_t hash, const char *s)
{
	for (; *s; s++)
		hash = (hash ^ (unsigned char)*s) * 0x100000001b3u;
	return hash;
}

/*
 * The default engineID text, "statctr-" and 16 hex digits: a hash of the
 * host (/etc/machine-id, else its name) and of -M's address, so that it is
 * the same at every start and differs between two agents on one host.
 */
static void derived_engine_text(const char *address, char *out, size_t size)
{
	char host[256] = "";
	FILE *f = fopen("/etc/machine-id", "re");

	if (!f || !fgets(host, sizeof(host), f))
		gethostname(host, sizeof(host) - 1);
	if (f)
		fclose(f);
	host[strcspn(host, "\n")] = '\0';
	snprintf(out, size, "statctr-%016" PRIx64,
	         fnv1a(fnv1a(0xcbf29ce484222325u, host), address));
}

/* The engineID, as Net-SNMP reads an octet string: "0x" and hex digits. */
static void engine_id_hex(const struct agent_settings *set, const char *address, char *hex)
{
	char text[SETTINGS_MAX_ENGINE_ID + 1];
	size_t len = 0;

	if (set->engine_id)
		snprintf(text, sizeof(text), "%s", set->engine_id);
	else
		derived_engine_text(address, text, sizeof(text));
	len += (size_t)sprintf(hex, "0x");
	for (size_t i = 0; i < sizeof(engine_id_prefix); i++)
		len += (size_t)sprintf(hex + len, "%02x", engine_id_prefix[i]);
	for (const char *p = text; *p; p++)
		len += (size_t)sprintf(hex + len, "%02x", (unsigned char)*p);
}

/* sysContact, sysName, sysLocation (absent: Net-SNMP's defaults) and the engineID. */
static void put_identity(FILE *f, const struct agent_settings *set, const char *address)
{
	char hex[ENGINE_HEX_SIZE];

	if (set->sys_contact)
		fprintf(f, "sysContact %s\n", set->sys_contact);
	if (set->sys_name)
		fprintf(f, "sysName %s\n", set->sys_name);
	if (set->sys_location)
		fprintf(f, "sysLocation %s\n", set->sys_location);
	engine_id_hex(set, address, hex);
	fprintf(f, "exactEngineID %s\n", hex);
}

/*
 * Who gets what.  Two views: everything, and statctrMIB (where the only
 * writable objects are the reset columns; sysContact and the like stay
 * read-only whatever Net-SNMP would allow).  Communities are v1/v2c
 * parties at noAuthNoPriv; users are USM parties that must use authPriv.
 */
static void put_access(FILE *f, const struct agent_settings *set)
{
	fprintf(f, "view statctrAll included .1\n");
	fprintf(f, "view statctrReset included .%s\n", set->root_oid);
	fprintf(f, "access statctrRead \"\" any noauth exact statctrAll none none\n");
	fprintf(f, "access statctrReset \"\" any noauth exact statctrAll statctrReset none\n");
	fprintf(f, "access statctrUsmRead \"\" usm priv exact statctrAll none none\n");
	fprintf(f, "access statctrUsmReset \"\" usm priv exact statctrAll statctrReset none\n");
	if (set->community)
		fprintf(f,
		        "com2sec statctrRO default %s\ngroup statctrRead v1 statctrRO\n"
		        "group statctrRead v2c statctrRO\n",
		        set->community);
	if (set->write_community)
		fprintf(f,
		        "com2sec statctrRW default %s\ngroup statctrReset v1 statctrRW\n"
		        "group statctrReset v2c statctrRW\n",
		        set->write_community);
	for (uint32_t i = 0; i < set->nv3_users; i++) {
		const struct settings_v3_user *u = &set->v3_users[i];

		/* Tokens without quotes or spaces (settings.c): the quotes keep them whole. */
		fprintf(f, "createUser %s %s \"%s\" %s \"%s\"\n", u->name, u->auth, u->auth_pass,
		        u->priv, u->priv_pass);
		fprintf(f, "group %s usm %s\n",
		        strcmp(u->access, "reset") == 0 ? "statctrUsmReset" : "statctrUsmRead",
		        u->name);
	}
}

/*
 * Every line for @set (queued for init_snmp() as if snmpd.conf said them),
 * one per '\n', each shorter than the 1024 bytes
 * Net-SNMP reads a line into (the settings' rules bound them: 600 at most).
 * Returns a malloc()ed string, or NULL when out of memory.
 */
static char *lines_text(const struct agent_settings *set, const char *address)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	fprintf(f, "dontLogTCPWrappersConnects yes\n");
	put_identity(f, set, address);
	put_access(f, set);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The boots of the previous start, 0 when the file does not exist yet.  An
 * unreadable, untrusted or malformed file is an error, not 0: starting again
 * at 1 would accept requests recorded in earlier runs.  Net-SNMP serves one
 * more than the file holds, so a file at MAX_BOOTS - 1 would start latched
 * at MAX_BOOTS, where every SNMPv3 request is refused (RFC 3414, 2.2.2).
 */
static int read_boots(const char *path, long *boots)
{
	const char *why;
	char *buf, *end;
	size_t len;
	int err = safefile_read(path, 32, &buf, &len, &why);

	*boots = 0;
	if (err == -ENOENT)
		return 0;
	if (err < 0)
		return errmsg_set(-err, "engine_boots_file %s: %s: %s", path, why, strerror(-err));
	errno = 0;
	*boots = strtol(buf, &end, 10);
	err = errno || end == buf || (*end != '\n' && *end != '\0') || *boots < 1;
	free(buf);
	if (err)
		return errmsg_set(EINVAL,
		                  "engine_boots_file %s: not a regular file holding a number of "
		                  "boots (write one above the last snmpEngineBoots served)",
		                  path);
	if (*boots >= MAX_BOOTS - 1)
		return errmsg_set(
		    ERANGE,
		    "engine_boots_file %s: holds %ld, and snmpEngineBoots would reach "
		    "%d, where SNMPv3 stops: set a new agent.engine_id and new "
		    "passphrases, then remove the file",
		    path, *boots, MAX_BOOTS);
	return 0;
}

/* Net-SNMP adds one to the boots it reads, unless the engineID changed (hence oldEngineID). */
static int queue_boots(const struct agent_settings *set, const char *address)
{
	char line[64 + ENGINE_HEX_SIZE], hex[ENGINE_HEX_SIZE];
	long boots;
	int err;

	if (!set->engine_boots_file)
		return 0;
	err = read_boots(set->engine_boots_file, &boots);
	if (err)
		return err;
	engine_id_hex(set, address, hex);
	snprintf(line, sizeof(line), "oldEngineID %s", hex);
	netsnmp_config_remember(line);
	snprintf(line, sizeof(line), "engineBoots %ld", boots);
	netsnmp_config_remember(line);
	return 0;
}

/* A write community in a file every user may read lets every user reset counters. */
static void warn_readable(const struct agent_settings *set)
{
	struct stat st;

	if (set->write_community && stat(set->cfg->file, &st) == 0 && (st.st_mode & S_IROTH))
		snmp_log(LOG_WARNING,
		         "%s holds agent.write_community, which may reset counters, and every "
		         "user may read it (mode %04o): chmod o-r %s\n",
		         set->cfg->file, (unsigned)(st.st_mode & 07777), set->cfg->file);
}

int standalone_configure(const struct agent_settings *set, const char *address)
{
	char *text = lines_text(set, address), *save = NULL;
	int err;

	if (!text)
		return errmsg_set(ENOMEM, "out of memory for the -M configuration");
	err = queue_boots(set, address);
	for (char *line = strtok_r(text, "\n", &save); !err && line;
	     line = strtok_r(NULL, "\n", &save))
		netsnmp_config_remember(line);
	free(text);
	warn_readable(set);
	return err;
}

static int fill_boots(FILE *f, void *arg)
{
	return fprintf(f, "%lu\n", *(const u_long *)arg) < 0 ? -EIO : 0;
}

/*
 * The trap sinks are sent to by sinks.c, from their own threads, and a sink
 * that cannot be reached now is retried there in the background.  What can
 * never work stops the start here, naming the sink: an address Net-SNMP
 * cannot parse or resolve.  A TCP address is checked as its UDP twin, which
 * opens without connecting (a receiver down or dropping SYNs must not keep
 * the agent from serving).
 */
static int check_sinks(const struct agent_settings *set)
{
	for (uint32_t i = 0; i < set->nsinks; i++) {
		const char *addr = set->sinks[i].address;
		char twin[1100];
		netsnmp_transport *t;

		if (strncasecmp(addr, "tcp:", 4) == 0 || strncasecmp(addr, "tcp6:", 5) == 0)
			snprintf(twin, sizeof(twin), "udp%s", addr + 3);
		else
			snprintf(twin, sizeof(twin), "%s", addr);
		t = netsnmp_transport_open_client("snmptrap", twin);
		if (!t)
			return errmsg_set(EINVAL,
			                  "agent.trap_sinks.[%u].address %s: not an address "
			                  "Net-SNMP can send to",
			                  i, addr);
		netsnmp_transport_free(t);
	}
	return 0;
}

int standalone_started(const struct agent_settings *set)
{
	u_long boots = snmpv3_local_snmpEngineBoots();
	const char *why;
	int err = check_sinks(set);

	if (err)
		return err;
	if (!set->engine_boots_file)
		return 0;
	/* safefile_write(): the state directory may be shared; a link there is never followed. */
	err =
	    safefile_write(set->engine_boots_file, SAFEFILE_STATE, 0600, fill_boots, &boots, &why);
	if (err < 0)
		return errmsg_set(-err, "engine_boots_file %s: %s: %s", set->engine_boots_file, why,
		                  strerror(-err));
	snmp_log(LOG_INFO, "snmpEngineBoots %lu (kept in %s)\n", boots, set->engine_boots_file);
	return 0;
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* sinks.c reads the trap sinks once, at start. */
static bool same_sinks(const struct agent_settings *a, const struct agent_settings *b)
{
	if (a->nsinks != b->nsinks)
		return false;
	for (uint32_t i = 0; i < a->nsinks; i++) {
		const struct settings_sink *x = &a->sinks[i], *y = &b->sinks[i];

		if (!same_text(x->address, y->address) || !same_text(x->community, y->community) ||
		    !same_text(x->user, y->user) || !same_text(x->type, y->type))
			return false;
	}
	return true;
}

bool standalone_same(const struct agent_settings *a, const struct agent_settings *b,
                     const char *address)
{
	char *ta = lines_text(a, address), *tb = lines_text(b, address);
	const char *fa = a->engine_boots_file ? a->engine_boots_file : "";
	const char *fb = b->engine_boots_file ? b->engine_boots_file : "";
	bool same = ta && tb && strcmp(ta, tb) == 0 && strcmp(fa, fb) == 0 && same_sinks(a, b);

	free(ta);
	free(tb);
	return same;
}
