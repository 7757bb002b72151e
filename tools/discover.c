/*
 * discover.c - finds segments: the paths a configuration declares, else
 * the files /dev/shm/statctr.* (control files and temporary files
 * excluded) of the invoking user or root (statctl.h); resolves a SEGMENT
 * argument to a path; and opens what a read command names as the sources
 * of the walk (walk.h), with the renderer of its output format.  Reads
 * only the config and the segments.
 *
 * The owner is judged on the name's own inode (lstat()): /dev/shm is
 * sticky, so no other user can put another file under a name root or the
 * invoking user holds, and a symbolic link is never a segment.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHM_PREFIX "/dev/shm/statctr."

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

enum owner { NOT_A_SEGMENT, TRUSTED, OTHER };

/* A segment file (not its control file or a file still being built), and whose. */
static enum owner segment_owner(const char *path)
{
	struct stat st;
	const char *name = path + strlen(SHM_PREFIX);

	if (has_suffix(path, ".ctl") || strchr(name, '.') != NULL || strchr(name, '~') != NULL)
		return NOT_A_SEGMENT;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NOT_A_SEGMENT;
	return st.st_uid == getuid() || st.st_uid == 0 ? TRUSTED : OTHER;
}

static int add_entry(struct seg_entry **entriesp, size_t *np, const char *name, const char *path,
                     bool declared)
{
	struct seg_entry *entries = *entriesp;

	for (size_t i = 0; i < *np; i++) {
		if (strcmp(entries[i].path, path) == 0) {
			entries[i].declared |= declared;
			return 0;
		}
	}
	entries = realloc(entries, (*np + 1) * sizeof(*entries));
	if (entries == NULL)
		return -ENOMEM;
	*entriesp = entries;
	entries[*np].name = strdup(name);
	entries[*np].path = strdup(path);
	entries[*np].declared = declared;
	if (entries[*np].name == NULL || entries[*np].path == NULL)
		return -ENOMEM;
	(*np)++;
	return 0;
}

static int add_config_segments(const char *config, struct seg_entry **entriesp, size_t *np)
{
	struct statctr_config *cfg;
	int err = statctr_config_load(config, &cfg);

	if (err < 0) {
		error_msg("%s", statctr_errmsg());
		return err;
	}
	for (uint32_t i = 0; i < cfg->nsegments && err == 0; i++)
		err = add_entry(entriesp, np, cfg->segments[i].name, cfg->segments[i].path, true);
	statctr_config_free(cfg);
	return err;
}

static int add_shm_segments(bool any_owner, struct seg_entry **entriesp, size_t *np)
{
	glob_t g;
	int err = 0;
	int rc = glob(SHM_PREFIX "*", 0, NULL, &g);

	if (rc == GLOB_NOMATCH)
		return 0;
	if (rc != 0)
		return -ENOMEM;
	/* The trusted first: with --any-owner, a twin of another owner never displaces them. */
	for (enum owner pass = TRUSTED; pass <= (any_owner ? OTHER : TRUSTED); pass++)
		for (size_t i = 0; i < g.gl_pathc && err == 0; i++)
			if (segment_owner(g.gl_pathv[i]) == pass)
				err = add_entry(entriesp, np, g.gl_pathv[i] + strlen(SHM_PREFIX),
				                g.gl_pathv[i], false);
	globfree(&g);
	return err;
}

int discover_segments(const struct common_opts *opts, struct seg_entry **entriesp, size_t *np)
{
	int err;

	*entriesp = NULL;
	*np = 0;
	if (opts->config != NULL)
		err = add_config_segments(opts->config, entriesp, np);
	else
		err = add_shm_segments(opts->any_owner, entriesp, np);
	if (err == -ENOMEM)
		error_msg("out of memory");
	if (err < 0) {
		free_segments(*entriesp, *np);
		*entriesp = NULL;
		*np = 0;
	}
	return err;
}

void free_segments(struct seg_entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(entries[i].name);
		free(entries[i].path);
	}
	free(entries);
}

/* The path @config declares for segment @name, or NULL (not declared there). */
static char *config_path_of(const char *config, const char *name, int *errp)
{
	struct statctr_config *cfg;
	const struct statctr_segment_decl *decl;
	char *path = NULL;

	*errp = statctr_config_load(config, &cfg);
	if (*errp < 0)
		return NULL;
	decl = statctr_config_find(cfg, name);
	if (decl != NULL) {
		path = strdup(decl->path);
		*errp = path ? 0 : -ENOMEM;
	}
	statctr_config_free(cfg);
	return path;
}

int open_segment(const char *config, const char *segment, struct statctr_view **viewp)
{
	char *path = NULL;
	int err = 0;

	if (config != NULL && strchr(segment, '/') == NULL) {
		path = config_path_of(config, segment, &err);
		if (err < 0) {
			error_msg("%s", statctr_errmsg());
			return err;
		}
	}
	err = statctr_view_open(path ? path : segment, viewp);
	if (err < 0)
		error_msg("segment '%s': %s", segment, statctr_errmsg());
	free(path);
	return err;
}

/* ---- the sources of a read command ---- */

const struct renderer *renderer_for(enum out_format format)
{
	if (format == FORMAT_JSON)
		return &render_json;
	if (format == FORMAT_PROM)
		return &render_prom;
	return &render_text;
}

static int source_open(struct source *src, const char *config, const char *segment)
{
	memset(src, 0, sizeof(*src));
	src->label = segment;
	return open_segment(config, segment, &src->view);
}

static void source_close(struct source *src)
{
	if (src->prev != NULL)
		statctr_snap_free(src->prev);
	if (src->snap != NULL)
		statctr_snap_free(src->snap);
	if (src->view != NULL)
		statctr_view_close(src->view);
	free(src->label_buf);
	free(src->path);
	memset(src, 0, sizeof(*src));
}

bool segment_gone(const struct seg_entry *entry, int err)
{
	struct stat st;

	if (err != -ENOENT)
		return false;
	return entry->declared || (lstat(entry->path, &st) != 0 && errno == ENOENT);
}

/* A found segment as a source: opened, or failed (reported) and kept to be said so. */
static int open_found(struct seg_entry *entry, struct source *src, bool *keep)
{
	int err = statctr_view_open(entry->path, &src->view);

	if (err < 0)
		src->view = NULL;
	*keep = !segment_gone(entry, err);
	if (err < 0 && *keep)
		error_msg("segment '%s': %s", entry->path, statctr_errmsg());
	if (!*keep)
		return 0;
	src->label_buf = entry->name;
	src->label = entry->name;
	src->path = entry->path;
	src->failed = err < 0;
	entry->name = NULL;
	entry->path = NULL;
	return err;
}

static int open_all(const struct common_opts *opts, struct source *srcs, size_t *np)
{
	struct seg_entry *entries;
	size_t n, i;
	int status = EXIT_OK;

	if (discover_segments(opts, &entries, &n) < 0)
		return EXIT_FAIL;
	for (i = 0; i < n && *np < MAX_SOURCES; i++) {
		bool keep;

		if (open_found(&entries[i], &srcs[*np], &keep) < 0)
			status = EXIT_FAIL;
		if (keep)
			(*np)++;
	}
	if (i < n) {
		error_msg("%zu segments found, %d read: segment '%s' and %zu after it left out", n,
		          MAX_SOURCES, entries[i].path, n - i - 1);
		status = EXIT_FAIL;
	}
	free_segments(entries, n);
	if (*np == 0 && status == EXIT_OK) {
		error_msg("no segments found");
		status = EXIT_FAIL;
	}
	return status;
}

static int sources_find(const struct common_opts *opts, const char *segment, struct source *srcs,
                        size_t *np)
{
	if (segment == NULL)
		return open_all(opts, srcs, np);
	if (source_open(srcs, opts->config, segment) < 0)
		return EXIT_FAIL;
	*np = 1;
	return EXIT_OK;
}

int sources_open(const struct common_opts *opts, const char *segment, bool slots,
                 struct source **srcsp, size_t *np)
{
	int status;

	*np = 0;
	*srcsp = calloc(segment ? 1 : MAX_SOURCES, sizeof(**srcsp));
	if (*srcsp == NULL) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	status = sources_find(opts, segment, *srcsp, np);
	/* Sums only: each slot is read once, into the sums (statctr.h). */
	for (size_t i = 0; i < *np; i++)
		if ((*srcsp)[i].view != NULL)
			statctr_view_set_sums_only((*srcsp)[i].view, !slots);
	return status;
}

void sources_close(struct source *srcs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		source_close(&srcs[i]);
	free(srcs);
}
