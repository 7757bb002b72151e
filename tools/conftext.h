/*
 * conftext.h - what the agent and statctl share when they read the
 * configuration's "agent" group after the library has read the file: the
 * rule for snmpd.conf tokens (communities) and the way to open the file
 * again.  Header-only, because the agent's settings.c is also linked into
 * the fuzz targets, which list their sources themselves.
 *
 * The library (statctr_config_load()) checks the file first: bytes,
 * @include, integer widths (docs/config.md).  These functions keep the
 * second read from being worse than the first if the file changes between
 * the two: a FIFO, a directory or a symbolic link put in its place is
 * refused, and an @include can open nothing.
 */
#ifndef STATCTR_CONFTEXT_H
#define STATCTR_CONFTEXT_H

#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Net-SNMP keeps communities in 256-byte buffers, terminator included. */
#define CONFTEXT_MAX_TOKEN 255
#define CONFTEXT_TOKEN_RULE                                                                        \
	"must be 1..255 printable ASCII characters without spaces, quotes or backslashes"

/*
 * text_token_ok() - whether @s can be one token of an snmpd.conf line:
 * 1..@max printable ASCII characters, none of them a space (tokens are
 * whitespace-separated: "pub lic" would become the community "pub") or a
 * quote or a backslash (which Net-SNMP's tokenizer interprets).
 */
static inline bool text_token_ok(const char *s, size_t max)
{
	size_t len = strlen(s);

	if (len == 0 || len > max)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '\\')
			return false;
	}
	return true;
}

/*
 * conftext_read() - reads @path into @lc as libconfig does, but opens it
 * without blocking or following a symbolic link, reads it only if it is a
 * regular file, and makes every @include fail: include files are looked up
 * under "/dev/null", which is no directory.  Returns 0, or a negative errno
 * with errno-style cause (-EINVAL: a syntax error, see config_error_*()).
 */
static inline int conftext_read(const char *path, config_t *lc)
{
	struct stat st;
	FILE *f;
	int fd, ok;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		close(fd);
		return -ENOMEM;
	}
	config_set_include_dir(lc, "/dev/null");
	ok = config_read(lc, f);
	fclose(f);
	return ok ? 0 : -EINVAL;
}

#endif /* STATCTR_CONFTEXT_H */
