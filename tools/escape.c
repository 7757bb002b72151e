/*
 * escape.c - writes strings in the quoting rules of JSON and of the
 * Prometheus text exposition format.  Names and descriptions come from a
 * configuration and may hold any byte; nothing here trusts them.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <ctype.h>

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p == '\r')
			fputs("\\r", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* Label values: backslash, double quote and line feed are escaped. */
void prom_label_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* HELP text: backslash and line feed are escaped, double quotes are not. */
void prom_help_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/*
 * A metric name part: "rxPackets" -> "rx_packets", "if-stats.v2" ->
 * "if_stats_v2".  Only [a-z0-9_] come out, never two '_' in a row.
 */
void prom_name_part(FILE *out, const char *s)
{
	bool after_word = false; /* last output was a lowercase letter or digit */
	bool pending = false;    /* an '_' is due before the next character */

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (!isalnum(*p) || !isascii(*p)) {
			pending = after_word;
			after_word = false;
			continue;
		}
		if (isupper(*p) && after_word)
			pending = true;
		if (pending)
			fputc('_', out);
		fputc(tolower(*p), out);
		pending = false;
		after_word = !isupper(*p);
	}
}
