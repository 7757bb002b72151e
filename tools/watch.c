/*
 * watch.c - statctl watch: refreshes snapshots every interval and shows
 * values, with deltas and per-second rates for counters and histograms'
 * counts (a gauge is a level: its value alone).
 *
 * On a terminal (text format) it draws in the alternate screen without
 * flicker: cursor home, each line followed by clear-to-end-of-line, then
 * clear-below; lines are cut to the terminal's width and the view scrolls
 * (j/k, arrows, space/b).  q, Ctrl-C, SIGTERM and SIGHUP end it with the
 * terminal restored.  Elsewhere (a pipe, JSON, Prometheus) it prints one
 * document per refresh.  Marks each change of a segment's state (active,
 * closed, gone, stale) and each writer restart (a new generation): under
 * the title on a terminal, the last MAX_MARKS of them; elsewhere a line
 * "! TIME SEGMENT: ..." before the text document, or on stderr beside JSON
 * and Prometheus.  Reads only.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char watch_help[] =
    "  -i, --interval=SECONDS  time between refreshes (default 1, at least 0.1)\n"
    "  -n, --count=N           stop after N refreshes (default: until q or Ctrl-C)\n"
    "  -r, --raw               ignore reset baselines\n" FIELD_HELP ANY_OWNER_HELP
    "\nKeys on a terminal: q quit, j/k or arrows scroll a line, space/b a page,\n"
    "g top.  Counters and histograms (their count) show delta and rate, blank (-)\n"
    "after a reset or a writer restart; a gauge shows its level only.\n"
    "A segment's state changes and writer restarts are marked: \"! TIME SEGMENT: ...\".\n";

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t resized;

static void on_stop(int sig)
{
	stop_requested = 1;
}

static void on_resize(int sig)
{
	resized = 1;
}

struct screen {
	bool interactive;
	bool stdin_tty;
	struct termios saved;
	int rows, cols;
	size_t scroll; /* first content line shown */
};

#define MAX_MARKS 4
#define MARK_SIZE 256

/* What the last refresh saw of a source, to mark what changed. */
struct seen {
	bool valid;
	enum statctr_seg_status status;
	uint64_t generation;
	pid_t pid;
};

struct watch {
	const struct renderer *renderer;
	struct walk_opts opts;
	struct source *srcs;
	size_t nsrcs;
	const char *table;
	double interval;
	uint32_t count;
	struct screen scr;
	struct seen *seen;                /* one per source */
	char marks[MAX_MARKS][MARK_SIZE]; /* the latest last, on a terminal */
	size_t nmarks;
	char *fresh; /* this refresh's marks, '\n'-terminated lines */
	size_t fresh_len;
};

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop; /* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_resize;
	sigaction(SIGWINCH, &sa, NULL);
}

static void screen_size(struct screen *scr)
{
	struct winsize ws;

	scr->rows = 24;
	scr->cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		scr->rows = ws.ws_row;
		scr->cols = ws.ws_col;
	}
}

static void screen_open(struct screen *scr)
{
	struct termios raw;

	scr->stdin_tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &scr->saved) == 0;
	if (scr->stdin_tty) {
		raw = scr->saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* ISIG stays: Ctrl-C is SIGINT */
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout); /* alternate screen, no cursor */
	fflush(stdout);
	screen_size(scr);
}

static void screen_close(struct screen *scr)
{
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (scr->stdin_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &scr->saved);
}

/* Prints @len bytes of @line cut to the width (bytes; names are ASCII). */
static void draw_line(const struct screen *scr, const char *line, size_t len)
{
	fwrite(line, 1, len < (size_t)scr->cols ? len : (size_t)scr->cols, stdout);
	fputs("\033[K\n", stdout);
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* The first line: time, interval, position and keys. */
static void draw_title(const struct watch *w, size_t total, size_t room)
{
	const struct screen *scr = &w->scr;
	char title[256];
	time_t now = time(NULL);
	struct tm tm;
	size_t len;

	localtime_r(&now, &tm);
	len = strftime(title, sizeof(title), "%H:%M:%S", &tm);
	snprintf(title + len, sizeof(title) - len,
	         "  every %.1fs  lines %zu-%zu of %zu  q quit, j/k scroll", w->interval,
	         total ? scr->scroll + 1 : 0, scr->scroll + (total < room ? total : room), total);
	draw_line(scr, title, strlen(title));
}

/* Redraws in place: home, each line then clear-to-end-of-line, clear below. */
static void draw_frame(struct watch *w, const char *text)
{
	struct screen *scr = &w->scr;
	size_t total = count_lines(text), shown = 0;
	size_t room = (size_t)(scr->rows > 2 ? scr->rows - 2 : 1);
	const char *p = text;

	room = room > w->nmarks ? room - w->nmarks : 1;
	if (scr->scroll + room > total)
		scr->scroll = total > room ? total - room : 0;
	fputs("\033[H", stdout);
	draw_title(w, total, room);
	for (size_t i = 0; i < w->nmarks; i++)
		draw_line(scr, w->marks[i], strlen(w->marks[i]));
	for (size_t i = 0; *p && shown < room; i++) {
		size_t len = strcspn(p, "\n");

		if (i >= scr->scroll) {
			draw_line(scr, p, len);
			shown++;
		}
		p += len + (p[len] == '\n');
	}
	fputs("\033[J", stdout);
	fflush(stdout);
}

/* @line among the terminal's last MAX_MARKS, and among this refresh's (@fresh). */
static void add_mark(struct watch *w, const char *line, FILE *fresh)
{
	if (w->nmarks == MAX_MARKS)
		memmove(w->marks[0], w->marks[1], (MAX_MARKS - 1) * MARK_SIZE);
	else
		w->nmarks++;
	snprintf(w->marks[w->nmarks - 1], MARK_SIZE, "%s", line);
	fprintf(fresh, "%s\n", line);
}

/* "! HH:MM:SS SEGMENT: what changed" for each change of @src since the last refresh. */
static void mark_changes(struct watch *w, const struct source *src, struct seen *seen, FILE *fresh)
{
	const struct statctr_seg_info *in = &src->info;
	char when[16], line[MARK_SIZE];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (seen->valid && in->generation != seen->generation) {
		snprintf(
		    line, sizeof(line),
		    "! %s %s: writer restarted: pid %ld -> %ld, a new generation (deltas blank)",
		    when, src->label, (long)seen->pid, (long)in->creator_pid);
		add_mark(w, line, fresh);
	}
	if (seen->valid && in->status != seen->status) {
		snprintf(line, sizeof(line), "! %s %s: %s -> %s (pid %ld)", when, src->label,
		         status_name(seen->status), status_name(in->status), (long)in->creator_pid);
		add_mark(w, line, fresh);
	}
	*seen = (struct seen){true, in->status, in->generation, in->creator_pid};
}

static int refresh_sources(struct watch *w)
{
	int status = EXIT_OK;
	FILE *fresh;

	free(w->fresh);
	w->fresh = NULL;
	fresh = open_memstream(&w->fresh, &w->fresh_len);
	if (fresh == NULL)
		return EXIT_FAIL;
	for (size_t i = 0; i < w->nsrcs; i++) {
		if (w->srcs[i].view == NULL)
			continue;                      /* could not be opened: reported once */
		statctr_view_refresh(w->srcs[i].view); /* a restart shows as a new generation */
		if (source_snap(&w->srcs[i]) < 0)
			status = EXIT_FAIL;
		else
			mark_changes(w, &w->srcs[i], &w->seen[i], fresh);
	}
	fclose(fresh);
	return status;
}

static int render_frame(struct watch *w)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int status;

	if (mem == NULL)
		return EXIT_FAIL;
	status = walk_render(mem, w->renderer, &w->opts, w->srcs, w->nsrcs, w->table);
	fclose(mem);
	if (w->scr.interactive) {
		draw_frame(w, text);
	} else {
		/* Marks beside JSON or Prometheus would break the document: stderr. */
		fputs(w->fresh ? w->fresh : "", w->renderer == &render_text_long ? stdout : stderr);
		fputs(text, stdout);
	}
	if (!w->scr.interactive && w->renderer != &render_json)
		fputs("\n", stdout);
	fflush(stdout);
	free(text);
	return status < 0 ? EXIT_FAIL : EXIT_OK;
}

/* Applies the keys read from the terminal; returns false on q. */
static bool handle_keys(struct screen *scr)
{
	char keys[32];
	ssize_t n = read(STDIN_FILENO, keys, sizeof(keys));
	size_t page = (size_t)(scr->rows > 3 ? scr->rows - 3 : 1);

	for (ssize_t i = 0; i < n; i++) {
		if (keys[i] == 'q' || keys[i] == 'Q')
			return false;
		if (keys[i] == 'j' || (keys[i] == 'B' && i >= 2 && keys[i - 1] == '['))
			scr->scroll++;
		else if ((keys[i] == 'k' || (keys[i] == 'A' && i >= 2 && keys[i - 1] == '[')) &&
		         scr->scroll > 0)
			scr->scroll--;
		else if (keys[i] == ' ')
			scr->scroll += page;
		else if (keys[i] == 'b')
			scr->scroll = scr->scroll > page ? scr->scroll - page : 0;
		else if (keys[i] == 'g')
			scr->scroll = 0;
	}
	return true;
}

/* Waits one interval; returns false when the user or a signal ends the watch. */
static bool wait_interval(struct watch *w)
{
	struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
	int timeout = (int)(w->interval * 1000);
	bool use_stdin = w->scr.interactive && w->scr.stdin_tty;

	if (stop_requested)
		return false;
	if (poll(&pfd, use_stdin ? 1 : 0, timeout) > 0 && use_stdin)
		return handle_keys(&w->scr) && !stop_requested;
	if (resized) {
		resized = 0;
		screen_size(&w->scr);
		w->opts.width = w->scr.cols;
	}
	return !stop_requested;
}

static int watch_loop(struct watch *w)
{
	int status = EXIT_OK;

	for (uint32_t n = 0; w->count == 0 || n < w->count; n++) {
		if (n > 0 && !wait_interval(w))
			break;
		if (refresh_sources(w) != EXIT_OK || render_frame(w) != EXIT_OK)
			status = EXIT_FAIL;
	}
	return status;
}

static int parse_watch_opts(struct watch *w, struct common_opts *opts, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"interval", required_argument, NULL, 'i'},
	    {"count", required_argument, NULL, 'n'},
	    {"raw", no_argument, NULL, 'r'},
	    OPTIONS_END,
	};
	struct cmd_parser p =
	    CMD_PARSER("watch", "i:n:r", longopts, CMD_FIELD | CMD_ANY_OWNER, watch_help, opts);
	char *end;
	int c;

	while ((c = cmd_getopt(&p, argc, argv)) != -1) {
		if (c == '?')
			return p.status;
		if (c == 'r') {
			w->opts.raw = true;
		} else if (c == 'n' && !parse_u32(optarg, &w->count)) {
			return usage_error("watch", "bad count '%s'", optarg);
		} else if (c == 'i') {
			w->interval = strtod(optarg, &end);
			if (*end != '\0' || !(w->interval >= 0.1 && w->interval <= 86400))
				return usage_error("watch", "bad interval '%s'", optarg);
		}
	}
	if (argc - optind > 2)
		return usage_error("watch", "too many arguments");
	return -1;
}

int cmd_watch(const struct common_opts *common, int argc, char **argv)
{
	struct common_opts opts = *common;
	struct watch w = {.interval = 1.0};
	int status = parse_watch_opts(&w, &opts, argc, argv);

	if (status >= 0)
		return status;
	w.table = optind + 1 < argc ? argv[optind + 1] : NULL;
	w.opts.fields = &opts.fields;
	w.renderer = opts.format == FORMAT_TEXT ? &render_text_long : renderer_for(opts.format);
	status = sources_open(&opts, optind < argc ? argv[optind] : NULL, false, &w.srcs, &w.nsrcs);
	w.seen = calloc(w.nsrcs ? w.nsrcs : 1, sizeof(*w.seen));
	if (w.seen == NULL) {
		error_msg("out of memory");
		status = EXIT_FAIL;
	} else if (w.nsrcs > 0) {
		w.scr.interactive = opts.format == FORMAT_TEXT && isatty(STDOUT_FILENO);
		install_signals();
		if (w.scr.interactive) {
			screen_open(&w.scr);
			w.opts.width = w.scr.cols;
		}
		if (watch_loop(&w) != EXIT_OK)
			status = EXIT_FAIL;
		if (w.scr.interactive)
			screen_close(&w.scr);
	}
	sources_close(w.srcs, w.nsrcs);
	free(w.seen);
	free(w.fresh);
	return status;
}
