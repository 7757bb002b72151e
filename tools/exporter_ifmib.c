/*
 * exporter_ifmib.c - `statctl exporter-config --if-mib`: an snmp_exporter
 * module (snmp.yml form, snmp_exporter 0.21) of the IF-MIB objects that a
 * configuration's IF-MIB tables serve, by numeric OID.  Debian's snmp.yml
 * ships no module and Debian has no IF-MIB text for the generator, so the
 * module is written whole here, from mib/ifmib.h's list (MIB_IF_OBJECTS):
 * the objects some table serves (ifmib_columns()) are walked column by
 * column; Counter32/Counter64 objects are counters, the numbers gauges
 * (TimeTicks in hundredths of a second, as the exporter gives them), the
 * DisplayString objects ifDescr, ifName and ifAlias labels (lookups by
 * ifIndex, as in upstream snmp_exporter's if_mib module); ifIndex is the
 * index label, and ifPhysAddress (always "" from statctr) is left out.
 * The walk also returns the master's other interfaces (snmpd's own), which
 * the module shows alike.  Never reads a segment.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "exporter.h"

#include <inttypes.h>
#include <string.h>

/* How many objects MIB_IF_OBJECTS lists (ifmib_nobjects, as a constant). */
#define COUNT_OBJECT(...) +1
enum { NOBJECTS = 0 MIB_IF_OBJECTS(COUNT_OBJECT) };
#undef COUNT_OBJECT

enum if_role { ROLE_NONE, ROLE_COUNTER, ROLE_GAUGE, ROLE_LABEL };

static enum if_role object_role(const struct ifmib_object *o)
{
	if (o->value == IFV_INDEX || o->value == IFV_PHYS)
		return ROLE_NONE;
	if (strcmp(o->syntax, "DisplayString") == 0)
		return ROLE_LABEL;
	if (strcmp(o->syntax, "Counter32") == 0 || strcmp(o->syntax, "Counter64") == 0)
		return ROLE_COUNTER;
	return ROLE_GAUGE;
}

/* "1.3.6.1.2.1.31.1.1.1.6": the column OID of @o. */
static void object_oid(const struct ifmib_object *o, char *buf, size_t size)
{
	const uint32_t *arcs = o->entry == IFMIB_IF_TABLE ? ifmib_if_entry : ifmib_ifx_entry;
	uint32_t n = o->entry == IFMIB_IF_TABLE ? IFMIB_IF_ENTRY_LEN : IFMIB_IFX_ENTRY_LEN;
	size_t len = 0;

	for (uint32_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%" PRIu32 ".", arcs[i]);
	if (len < size)
		snprintf(buf + len, size - len, "%u", (unsigned)o->column);
}

/* Per object of ifmib_objects: whether a table of @ic serves it. */
static void served_objects(const struct ifmib_config *ic, bool *served, int *cols)
{
	memset(served, 0, NOBJECTS * sizeof(*served));
	for (uint32_t t = 0; t < ic->ntables; t++) {
		ifmib_columns(&ic->tables[t], cols);
		for (uint32_t i = 0; i < NOBJECTS; i++)
			served[i] = served[i] || cols[i] != -1;
	}
}

static void emit_lookups(FILE *f, const bool *served)
{
	char oid[64];

	fputs("    lookups:\n", f);
	for (uint32_t i = 0; i < NOBJECTS; i++) {
		if (!served[i] || object_role(&ifmib_objects[i]) != ROLE_LABEL)
			continue;
		object_oid(&ifmib_objects[i], oid, sizeof(oid));
		fprintf(f,
		        "    - labels: [ifIndex]\n      labelname: %s\n      oid: %s\n"
		        "      type: DisplayString\n",
		        ifmib_objects[i].name, oid);
	}
}

static void emit_metric(FILE *f, const struct ifmib_object *o, const bool *served)
{
	char oid[64];

	object_oid(o, oid, sizeof(oid));
	fprintf(
	    f,
	    "  - name: %s\n    oid: %s\n    type: %s\n    help: IF-MIB::%s (RFC 2863, %s) - %s\n"
	    "    indexes:\n    - labelname: ifIndex\n      type: gauge\n",
	    o->name, oid, object_role(o) == ROLE_COUNTER ? "counter" : "gauge", o->name, o->syntax,
	    oid);
	emit_lookups(f, served);
}

static void emit_module(FILE *f, const bool *served)
{
	char oid[64];

	fputs("  walk:\n", f);
	for (uint32_t i = 0; i < NOBJECTS; i++) {
		if (!served[i] || object_role(&ifmib_objects[i]) == ROLE_NONE)
			continue;
		object_oid(&ifmib_objects[i], oid, sizeof(oid));
		fprintf(f, "  - %s # %s\n", oid, ifmib_objects[i].name);
	}
	fputs("  metrics:\n", f);
	for (uint32_t i = 0; i < NOBJECTS; i++) {
		enum if_role role = object_role(&ifmib_objects[i]);

		if (served[i] && (role == ROLE_COUNTER || role == ROLE_GAUGE))
			emit_metric(f, &ifmib_objects[i], served);
	}
}

void exporter_ifmib_write(FILE *f, const struct ifmib_config *ic)
{
	bool served[NOBJECTS];
	int cols[NOBJECTS];

	served_objects(ic, served, cols);
	fputs("# snmp_exporter 0.21 module (snmp.yml), written by statctl exporter-config\n"
	      "# --if-mib: the IF-MIB objects statctr serves, by numeric OID (Debian has no\n"
	      "# IF-MIB text for the generator).  Append it to the generator's snmp.yml.\n"
	      "# version and auth are the generator's defaults: change them with the\n"
	      "# other module's.\n" EXPORTER_IF_MIB_MODULE ":\n",
	      f);
	emit_module(f, served);
	fputs("  version: 2\n  auth:\n    community: public\n", f);
}
