/*
 * fuzz_set.c - libFuzzer target: what an SNMP client controls in a request
 * to the agent - the OID of every varbind and, for a SET, its type and
 * value bytes.
 *
 * Set-up (once): a configuration with two segments, "alpha" created and
 * counting in this process, "beta" absent; the agent's settings, OID map
 * and a first aggregation pass over them.
 * Input: byte 0 picks a registered region, byte 1 an ASN.1 type, byte 2
 * flags (bit 0 allow_reset, bit 1 the OID is relative to the region's root,
 * bit 2 GETNEXT is inclusive), byte 3 the number of sub-identifiers, then
 * each as an unsigned LEB128 (so values past 2^32 occur), then the value
 * bytes.  Runs setcheck() (the RESERVE1 validation), oidmap_get() (GET) and
 * oidmap_next() (GETNEXT), and traps when an invariant breaks: an accepted
 * SET is an INTEGER idle(1)/reset(2) of sizeof(long) bytes naming a
 * writable instance; no SET error hides one that RFC 3416 4.2.5 ranks
 * before it; every instance found names exactly the OID it was found by
 * (GET) or one after the request inside the region (GETNEXT), and can be
 * found again by GET.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "aggregate.h"
#include "oidmap.h"
#include "setcheck.h"
#include "settings.h"
#include "statctr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char config_text[] =
    "segments = (\n"
    "  { name = \"alpha\"; path = \"%s/alpha\"; oid = 1; slots = 2;\n"
    "    tables = (\n"
    "      { name = \"named\"; oid = 1; rows = [\"a\", \"b\", \"c\"];\n"
    "        columns = ( { name = \"pkts\"; kind = \"counter\"; },\n"
    "                    { name = \"level\"; kind = \"gauge\"; },\n"
    "                    { name = \"bytes\"; kind = \"counter\"; } ); },\n"
    "      { name = \"numbered\"; oid = 4; rows = 5;\n"
    "        columns = ( { name = \"n\"; kind = \"counter\"; } ); } ); },\n"
    "  { name = \"beta\"; path = \"%s/beta\"; oid = 7; slots = 1;\n"
    "    tables = ( { name = \"t\"; oid = 2; rows = 2;\n"
    "        columns = ( { name = \"c\"; kind = \"counter\"; } ); } ); }\n"
    ");\n"
    "agent = { allow_reset = true; };\n";

static const u_char types[] = {ASN_INTEGER,   ASN_OCTET_STR, ASN_NULL,      ASN_OBJECT_ID,
                               ASN_COUNTER,   ASN_GAUGE,     ASN_TIMETICKS, ASN_COUNTER64,
                               ASN_IPADDRESS, ASN_OPAQUE,    ASN_UINTEGER};

static struct {
	char dir[256], config[300];
	struct statctr_seg *seg;
	struct agent_settings *set;
	struct oidmap *map;
	struct aggregator *agg;
} w;

static void cleanup(void)
{
	char path[320];

	agg_destroy(w.agg);
	oidmap_free(w.map);
	settings_free(w.set);
	statctr_seg_destroy(w.seg);
	unlink(w.config);
	snprintf(path, sizeof(path), "%s/beta", w.dir);
	unlink(path);
	rmdir(w.dir);
}

static int write_config(void)
{
	FILE *f;

	snprintf(w.dir, sizeof(w.dir), "%s/statctr-fuzz-set.XXXXXX",
	         access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(w.dir))
		return -1;
	snprintf(w.config, sizeof(w.config), "%s/statctr.conf", w.dir);
	f = fopen(w.config, "w");
	if (!f)
		return -1;
	fprintf(f, config_text, w.dir, w.dir);
	return fclose(f);
}

static int setup(void)
{
	struct statctr_slot *slot;

	if (write_config() != 0 || statctr_seg_create(w.config, "alpha", &w.seg) != 0 ||
	    statctr_slot_acquire(w.seg, &slot) != 0)
		return -1;
	for (statctr_id id = 0; id < 13; id++)
		statctr_add(slot, id, 1000 + id);
	if (settings_load(w.config, &w.set) != 0 ||
	    oidmap_create(w.set->cfg, w.set->root, w.set->root_len, &w.map) != 0 ||
	    agg_create(w.set->cfg, (uid_t)-1, true, &w.agg) != 0)
		return -1;
	atexit(cleanup);
	return 0;
}

/* Unsigned LEB128, at most 10 bytes; 0 when the input runs out. */
static u_long take_subid(const uint8_t **p, const uint8_t *end)
{
	u_long v = 0;

	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (u_long)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

enum found { SAME, AT_OR_AFTER, AFTER };

static void check_found(const struct oidmap_region *reg, const struct agg_result *res,
                        const struct oidmap_instance *inst, const oid *name, size_t len,
                        enum found how)
{
	oid out[MAX_OID_LEN];
	size_t n = oidmap_instance_oid(reg, inst, out);
	struct oidmap_instance again;
	int cmp;

	if (n > MAX_OID_LEN || n <= reg->root_len)
		__builtin_trap();
	cmp = snmp_oid_compare(out, n, name, len);
	if ((how == SAME && cmp != 0) || (how == AT_OR_AFTER && cmp < 0) ||
	    (how == AFTER && cmp <= 0))
		__builtin_trap(); /* GET: the same OID; GETNEXT: after the request */
	if (snmp_oidtree_compare(reg->root, reg->root_len, out, n) != 0)
		__builtin_trap(); /* outside the region */
	if (!oidmap_get(reg, res, out, n, &again) || oidmap_instance_oid(reg, &again, out) != n)
		__builtin_trap(); /* not found again */
}

/* The errors setcheck() returns, in the order RFC 3416 4.2.5 ranks them. */
static int rank(int err)
{
	static const int order[] = {SNMP_ERR_NOTWRITABLE, SNMP_ERR_WRONGTYPE,
	                            SNMP_ERR_WRONGLENGTH, SNMP_ERR_WRONGVALUE,
	                            SNMP_ERR_NOCREATION,  SNMP_ERR_INCONSISTENTVALUE};

	for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++)
		if (order[i] == err)
			return i;
	if (err != SNMP_ERR_NOERROR)
		__builtin_trap(); /* an error setcheck() must not return */
	return (int)(sizeof(order) / sizeof(order[0]));
}

/*
 * Every error ranked before @err is absent from @vb: a wrong value never
 * hides a wrong type, a missing instance never hides a wrong value, etc.
 * (notWritable of an existing instance, rank 0 again, needs no check.)
 */
static void check_order(const struct oidmap_region *reg, const struct agg_result *res,
                        bool allow_reset, const struct setcheck_varbind *vb, int err)
{
	const struct oidmap_column *col = oidmap_column(reg, vb->name, vb->name_len);
	struct oidmap_instance inst;
	long value = 0;
	int r = rank(err);

	if (r > 0 && !(col && col->writable && allow_reset))
		__builtin_trap(); /* should have been notWritable */
	if (r > 1 && vb->type != ASN_INTEGER)
		__builtin_trap(); /* should have been wrongType */
	if (r > 2 && vb->val_len != sizeof(long))
		__builtin_trap(); /* should have been wrongLength */
	if (r > 2)
		memcpy(&value, vb->val, sizeof(value));
	if (r > 3 && value != SETCHECK_IDLE && value != SETCHECK_RESET)
		__builtin_trap(); /* should have been wrongValue */
	if (r > 4 && !oidmap_get(reg, res, vb->name, vb->name_len, &inst))
		__builtin_trap(); /* should have been noCreation */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	const uint8_t *p = data, *end = data + size;
	const struct oidmap_region *reg;
	const struct agg_result *res;
	struct oidmap_instance inst;
	struct setcheck_varbind vb;
	oid name[MAX_OID_LEN];
	size_t len = 0, nsub;
	uint8_t flags, *value;
	long action = 0;
	int err;

	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0 || size < 4)
		return 0;
	reg = oidmap_region(w.map, p[0] % oidmap_nregions(w.map));
	vb.type = p[1] < sizeof(types) * 16 ? types[p[1] % sizeof(types)] : p[1];
	flags = p[2];
	nsub = p[3];
	p += 4;
	if (flags & 2) {
		memcpy(name, reg->root, reg->root_len * sizeof(oid));
		len = reg->root_len;
	}
	while (nsub-- > 0 && len < MAX_OID_LEN)
		name[len++] = take_subid(&p, end);
	/* The value in its own allocation of its exact size: ASan sees any overread. */
	vb.val_len = (size_t)(end - p);
	value = malloc(vb.val_len ? vb.val_len : 1);
	if (!value)
		return 0;
	memcpy(value, p, vb.val_len);
	vb.val = vb.val_len ? value : NULL;
	vb.name = name;
	vb.name_len = len;
	res = agg_result(w.agg);

	err = setcheck(reg, res, flags & 1, &vb, &inst, &action);
	check_order(reg, res, flags & 1, &vb, err);
	if (err == SNMP_ERR_NOERROR) {
		if (!(flags & 1) || vb.type != ASN_INTEGER || vb.val_len != sizeof(long) ||
		    (action != SETCHECK_IDLE && action != SETCHECK_RESET) || !inst.col->writable)
			__builtin_trap();
		check_found(reg, res, &inst, name, len, SAME);
	}
	if (oidmap_get(reg, res, name, len, &inst))
		check_found(reg, res, &inst, name, len, SAME);
	if (oidmap_next(reg, res, name, len, (flags & 4) != 0, &inst))
		check_found(reg, res, &inst, name, len, (flags & 4) ? AT_OR_AFTER : AFTER);
	(void)oidmap_is_column(reg, name, len);
	free(value);
	return 0;
}
