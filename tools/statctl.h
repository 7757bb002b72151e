/*
 * statctl.h - what the modules of statctl share.
 *
 * statctl only reads segments through the public API of libstatctr (and
 * resets through its baselines); it never maps or parses a segment itself.
 * The read commands share one walk over snapshots (walk.h: walk.c, with
 * statctr-exporter) that calls a renderer per output format (render_*.c)
 * with per-table accessors.
 */
#ifndef STATCTL_H
#define STATCTL_H

#include "gen.h"
#include "statctr.h"
#include "walk.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes, the same for every command. */
#define EXIT_OK    0
#define EXIT_FAIL  1 /* operational error: missing segment, bad config, ... */
#define EXIT_USAGE 2 /* bad command line */

#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))

enum out_format {
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_PROM,
};

/* Options common to every command (statctl.c parses them). */
struct common_opts {
	const char *config; /* -c: configuration file, or NULL */
	enum out_format format;
	bool any_owner;            /* --any-owner: segments of every owner in /dev/shm */
	struct field_globs fields; /* -F/--field of show, watch, diff (walk.h) */
};

/*
 * The options some commands share, which cmd_getopt() adds to a command's own
 * when its cmd_parser.shared names them, and handles itself:
 *
 * CMD_ANY_OWNER: --any-owner, of the commands that find segments (list,
 * show, watch): sets common->any_owner, refused beside -c.
 *
 * CMD_FIELD: -F GLOB, --field=GLOB, of the commands that print cells (show,
 * watch, diff): adds GLOB to common->fields, refusing an empty glob and
 * more than MAX_FIELD_GLOBS.
 *
 * The command's help text includes their lines, ANY_OWNER_HELP, FIELD_HELP.
 */
enum {
	CMD_ANY_OWNER = 1 << 0,
	CMD_FIELD = 1 << 1,
};
#define ANY_OWNER_HELP                                                                             \
	"      --any-owner      without -c, read the segments of every owner in /dev/shm\n"        \
	"                       (default: only yours and root's)\n"
#define FIELD_HELP                                                                                 \
	"  -F, --field=GLOB     only the columns whose SEGMENT.TABLE.COLUMN matches GLOB\n"        \
	"                       (fnmatch(3)); !GLOB leaves them out; repeatable\n"

/* statctl.c: messages to stderr, prefixed "statctl: " (error_msg(): walk.h). */
int usage_error(const char *cmd, const char *fmt, ...) PRINTF_LIKE(2, 3);
bool parse_u32(const char *arg, uint32_t *out);

int cmd_list(const struct common_opts *common, int argc, char **argv);
int cmd_show(const struct common_opts *common, int argc, char **argv);
int cmd_watch(const struct common_opts *common, int argc, char **argv);
int cmd_reset(const struct common_opts *common, int argc, char **argv);
int cmd_check_config(const struct common_opts *common, int argc, char **argv);
int cmd_mib(const struct common_opts *common, int argc, char **argv);
int cmd_exporter_config(const struct common_opts *common, int argc, char **argv);
int cmd_notifications(const struct common_opts *common, int argc, char **argv);
/* cmd_epoch.c: epoch list|start, diff, and show's --since/--epoch. */
int cmd_epoch(const struct common_opts *common, int argc, char **argv);
int cmd_diff(const struct common_opts *common, int argc, char **argv);
/* JSON: the "epochs" array of a segment (empty without epochs). */
void epochs_json(FILE *out, struct statctr_view *view);

/*
 * statctl.c: what @fill writes goes to stdout, or with -o to @path through
 * safefile_write() (a new file renamed over @path: never half written,
 * never through a link).  Returns 0 or a negative errno, the cause printed.
 */
int write_output(const char *path, int (*fill)(FILE *f, void *arg), void *arg);

/*
 * Per-command option parsing (statctl.c): getopt_long over @argv with the
 * common options (-c, -f, -h) and the shared ones it names added to the
 * command's own.  Returns -1 when the options are done, the character of
 * one of the command's options, or '?' after --help or an error, with the
 * exit status in @status.
 */
#define MAX_CMD_OPTIONS 16 /* the command's own, 2 shared, 3 common, the end */
#define OPTIONS_END                                                                                \
	{                                                                                          \
		NULL, 0, NULL, 0                                                                   \
	}
struct cmd_parser {
	const char *cmd;
	const char *shortopts;         /* the command's own, or NULL */
	const struct option *longopts; /* the command's own, ended by OPTIONS_END; or NULL */
	unsigned shared;               /* CMD_ANY_OWNER, CMD_FIELD: the shared options it takes */
	const char *help;              /* usage text printed by --help */
	struct common_opts *common;
	int status;
	char all_short[64];
	struct option all_long[MAX_CMD_OPTIONS];
};
/* A command's parser: its name, own options, shared ones (CMD_*), --help text, common options. */
#define CMD_PARSER(name, short_opts, long_opts, shared_opts, help_text, common_p)                  \
	{                                                                                          \
		.cmd = (name), .shortopts = (short_opts), .longopts = (long_opts),                 \
		.shared = (shared_opts), .help = (help_text), .common = (common_p)                 \
	}
int cmd_getopt(struct cmd_parser *p, int argc, char **argv);

/*
 * discover.c: the segments a command reads.  With -c exactly those the
 * configuration declares; without, the files /dev/shm/statctr.* owned by
 * the invoking user or root, or with --any-owner by anyone (symbolic links
 * never).  A file of another owner is left out silently: it may be
 * anyone's, and the output is not theirs to fill.
 */

int discover_segments(const struct common_opts *opts, struct seg_entry **entriesp, size_t *np);
void free_segments(struct seg_entry *entries, size_t n);
/*
 * Whether @entry, which statctr_view_open() failed with @err, is simply not
 * there: declared and its writer not running, or found and removed since
 * (its writer exited in between).  Neither is an error.
 */
bool segment_gone(const struct seg_entry *entry, int err);
/* Opens SEGMENT (a name or a path; names resolve through @config first). */
int open_segment(const char *config, const char *segment, struct statctr_view **viewp);

extern const struct renderer render_text;
extern const struct renderer render_text_long; /* watch: one line per cell */
extern const struct renderer render_json;
const struct renderer *renderer_for(enum out_format format);

/*
 * SEGMENT, or every segment found (discover_segments(), at most
 * MAX_SOURCES, the trusted owners' first; those left out are reported and
 * the status is then EXIT_FAIL) when it is NULL.  A found segment that
 * cannot be opened is reported and kept as a source with failed set and no
 * view, so that the output can say so; the status is then EXIT_FAIL.
 * Their snapshots keep sums only unless @slots (show --slots).
 */
#define MAX_SOURCES 1024
int sources_open(const struct common_opts *opts, const char *segment, bool slots,
                 struct source **srcsp, size_t *np);
void sources_close(struct source *srcs, size_t n);

void list_text(FILE *out, const struct list_item *items, size_t n);
void list_json(FILE *out, const struct list_item *items, size_t n);

/* escape.c: string escaping for the output formats. */
void json_string(FILE *out, const char *s);
/*
 * Text for a terminal: control bytes (tab and LF included), DEL and bytes
 * outside ASCII come out as "\xHH", so no string from a segment or a
 * configuration can move the cursor or change the terminal's state.
 * text_escape() returns a malloc()ed copy (NULL: out of memory); the print
 * functions format, escape and write (so their formats hold no '\n').
 */
char *text_escape(const char *s);
void text_vprint(FILE *out, const char *fmt, va_list ap);
void text_print(FILE *out, const char *fmt, ...) PRINTF_LIKE(2, 3);

/*
 * cmd_config.c: a command "CMD [--MODE] FILE [-o OUT]" that writes what it
 * generates from a configuration (mib, exporter-config): parses the
 * options, reads FILE once as statctr-agentx does (mib/settings.c), errors
 * printed, then returns @generate's verdict as an exit status.  @modes:
 * NULL, or the command's options that choose what it writes (no argument,
 * val GENERATE_MODE and up, zero-terminated); at most one is given, and
 * @generate gets its val in in->mode (0 without).  @generate writes
 * through write_output(out, ...) and returns 0 or a negative errno.
 */
#define GENERATE_MODE 0x200 /* above ANY_OWNER_CHAR */
struct ifmib_config;
struct generate_input {
	const char *file;                 /* FILE, for messages */
	const struct statctr_config *cfg; /* its declaration */
	const struct mib_settings *set;   /* what the MIB needs of its agent group */
	const struct ifmib_config *ifmib; /* its tables also served as interfaces */
	int mode;                         /* 0, or the val of the mode option given */
};
typedef int generate_fn(const char *out, const struct generate_input *in);
int generate_command(const struct common_opts *common, int argc, char **argv, const char *cmd,
                     const char *help, const struct option *modes, generate_fn *generate);

#endif /* STATCTL_H */
