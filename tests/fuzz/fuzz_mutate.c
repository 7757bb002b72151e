/*
 * fuzz_mutate.c - libFuzzer target: a view whose control file and segment
 * header change under it between reader calls.
 *
 * Once per process a writer creates a valid segment and control file (one
 * slot acquired and counted, so snapshots have values to read), whose bytes
 * are kept.  Each input starts from fresh, fully allocated copies of those
 * bytes in a private directory (on /dev/shm when there is one), opens a view
 * and runs the input as a program of one-byte ops with operands:
 *   reader calls: snap_take, snap_retake, view_info, lookup, reset_range,
 *                 refresh, slot_state;
 *   mutations:    bytes written into the control file or the segment
 *                 header, the control file truncated or extended, the
 *                 segment truncated or extended,
 * as a resetter (who may write the control file) or a broken writer would.
 * Every call must return 0 (refresh: 0 or 1) or a negative errno, and a
 * slot state must be one of the enum's; nothing may crash, leak, read
 * outside a mapping or wait beyond the library's bounded budgets.
 */
#include "statctr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OPS   64
#define MAX_WRITE 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], seg_path[300], ctl_path[310], conf_path[300];
static uint8_t *seg_bytes, *ctl_bytes;
static size_t seg_size, ctl_size;

struct program {
	const uint8_t *data;
	size_t size, pos;
};

static void cleanup(void)
{
	unlink(ctl_path);
	unlink(seg_path);
	unlink(conf_path);
	rmdir(dir);
}

static uint8_t *slurp(const char *path, size_t *sizep)
{
	FILE *f = fopen(path, "rb");
	uint8_t *bytes = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0) {
		rewind(f);
		bytes = malloc((size_t)n);
		if (bytes && fread(bytes, 1, (size_t)n, f) != (size_t)n) {
			free(bytes);
			bytes = NULL;
		}
		*sizep = (size_t)n;
	}
	if (f)
		fclose(f);
	return bytes;
}

/* A valid pair's bytes, written by the library's own writer. */
static int make_pair(void)
{
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	FILE *f = fopen(conf_path, "w");
	int ok;

	if (!f)
		return -1;
	fprintf(
	    f,
	    "segments = ( { name = \"fz\"; path = \"%s\"; slots = 2; tables = ( "
	    "{ name = \"t\"; rows = [\"a\", \"b\"]; columns = ( "
	    "{ name = \"pkts\"; kind = \"counter\"; }, { name = \"lvl\"; kind = \"gauge\"; } ); "
	    "} ); } );\n",
	    seg_path);
	fclose(f);
	if (statctr_seg_create(conf_path, "fz", &seg) != 0 || statctr_slot_acquire(seg, &slot) != 0)
		return -1;
	statctr_txn_begin(slot);
	statctr_add(slot, 0, 7);
	statctr_gauge_add(slot, 1, -3);
	statctr_txn_end(slot);
	seg_bytes = slurp(seg_path, &seg_size);
	ctl_bytes = slurp(ctl_path, &ctl_size);
	ok = seg_bytes && ctl_bytes;
	statctr_seg_destroy(seg);
	return ok ? 0 : -1;
}

static int setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/statctr-fuzz-mutate.XXXXXX", base);
	if (!mkdtemp(dir))
		return -1;
	snprintf(seg_path, sizeof(seg_path), "%s/seg", dir);
	snprintf(ctl_path, sizeof(ctl_path), "%s/seg.ctl", dir);
	snprintf(conf_path, sizeof(conf_path), "%s/fz.conf", dir);
	atexit(cleanup);
	return make_pair();
}

static int put(const char *path, const uint8_t *bytes, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, bytes, size) == (ssize_t)size;
	close(fd);
	return ok ? 0 : -1;
}

static uint8_t next(struct program *p)
{
	return p->pos < p->size ? p->data[p->pos++] : 0;
}

static uint16_t next16(struct program *p)
{
	uint16_t lo = next(p);

	return (uint16_t)(lo | next(p) << 8);
}

/* A library call's verdict: 0, @max_ok or a negative errno, else a bug. */
static void check(int rc, int max_ok)
{
	if (rc > max_ok || rc < -4095)
		__builtin_trap();
}

/* Bytes from the input stored at @off of @path (file size unchanged or grown). */
static void write_bytes(struct program *p, const char *path, uint64_t off)
{
	uint8_t bytes[MAX_WRITE];
	size_t n = 1 + next(p) % MAX_WRITE, i;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	for (i = 0; i < n; i++)
		bytes[i] = next(p);
	if (fd < 0)
		return;
	if (pwrite(fd, bytes, n, (off_t)off) < 0)
		perror("pwrite");
	close(fd);
}

static void resize(const char *path, uint64_t size)
{
	if (truncate(path, (off_t)size) != 0 && errno != ENOENT)
		perror("truncate");
}

static void read_values(struct statctr_view *view, struct statctr_snap **snapp, bool retake)
{
	struct statctr_snap *fresh;
	struct statctr_snap_stats st;

	if (!retake) {
		check(statctr_snap_take(view, &fresh), 0);
		if (fresh) {
			statctr_snap_stats(fresh, &st);
			(void)statctr_snap_counter(fresh, st.ncells - 1);
		}
		statctr_snap_free(fresh);
		return;
	}
	check(statctr_snap_retake(view, snapp), 0);
	if (*snapp)
		(void)statctr_snap_gauge(*snapp, 1);
}

static void call_reader(struct statctr_view *view, struct statctr_snap **snapp, uint8_t op,
                        struct program *p)
{
	struct statctr_seg_info info;
	statctr_id id;
	uint32_t first, count;
	enum statctr_slot_state state;

	switch (op) {
	case 0:
	case 1:
		read_values(view, snapp, op == 1);
		break;
	case 2:
		statctr_view_info(view, &info);
		(void)strlen(info.name);
		break;
	case 3:
		check(statctr_view_lookup(view, "t", "pkts", next(p) % 4, &id), 0);
		break;
	case 4:
		first = next(p) % 4;
		count = next(p) % 4;
		check(statctr_reset_range(view, first, count), 0);
		break;
	case 5:
		check(statctr_view_refresh(view), 1);
		break;
	default:
		state = statctr_view_slot_state(view, next(p) % 4);
		if (state != STATCTR_SLOT_FREE && state != STATCTR_SLOT_LIVE &&
		    state != STATCTR_SLOT_DEAD)
			__builtin_trap();
		break;
	}
}

static void mutate(uint8_t op, struct program *p)
{
	switch (op) {
	case 7:
		write_bytes(p, ctl_path, next16(p) % (ctl_size + 64));
		break;
	case 8:
		write_bytes(p, seg_path, next(p)); /* the header: 256 bytes */
		break;
	case 9:
		resize(ctl_path, next16(p) % (ctl_size + 1));
		break;
	case 10:
		resize(ctl_path, ctl_size + next16(p));
		break;
	default:
		resize(seg_path, next16(p) % (2 * seg_size));
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct program p = {data, size, 0};
	struct statctr_view *view;
	struct statctr_snap *snap = NULL;
	int ops;

	if (!ready)
		ready = setup() == 0 ? 1 : -1;
	if (ready < 0)
		return 0;
	if (put(seg_path, seg_bytes, seg_size) != 0 || put(ctl_path, ctl_bytes, ctl_size) != 0)
		return 0;
	if (statctr_view_open(seg_path, &view) != 0)
		__builtin_trap(); /* the unmodified pair is valid */
	for (ops = 0; ops < MAX_OPS && p.pos < p.size; ops++) {
		uint8_t op = next(&p) % 12;

		if (op < 7)
			call_reader(view, &snap, op, &p);
		else
			mutate(op, &p);
	}
	statctr_snap_free(snap);
	statctr_view_close(view);
	return 0;
}
