/*
 * escape.c - writes strings in the quoting rules of JSON, of the
 * Prometheus text exposition format and of a terminal.  Names and
 * descriptions come from a configuration or a segment file and may hold
 * any byte; nothing here trusts them.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "statctl.h"

#include <stdarg.h>
#include <stdlib.h>

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

/* Backslash and line feed escaped, and double quote too when @quote. */
static void escape_backslash_newline(FILE *out, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\' || (quote && *s == '"'))
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* Label values: backslash, double quote and line feed are escaped. */
void prom_label_value(FILE *out, const char *s)
{
	escape_backslash_newline(out, s, true);
}

/* HELP text: backslash and line feed are escaped, double quotes are not. */
void prom_help_text(FILE *out, const char *s)
{
	escape_backslash_newline(out, s, false);
}

/* OpenMetrics' HELP text: backslash, line feed and double quote are escaped. */
void om_help_text(FILE *out, const char *s)
{
	escape_backslash_newline(out, s, true);
}

/* Bytes a terminal may act on: C0 controls, DEL, and all of 0x80..0xff (C1 controls, CSI 0x9b). */
static bool terminal_unsafe(unsigned char c)
{
	return c < 0x20 || c >= 0x7f;
}

char *text_escape(const char *s)
{
	size_t len = 0;
	char *out, *o;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		len += terminal_unsafe(*p) ? 4 : 1;
	out = malloc(len + 1);
	if (out == NULL)
		return NULL;
	o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (terminal_unsafe(*p))
			o += sprintf(o, "\\x%02x", *p);
		else
			*o++ = (char)*p;
	}
	*o = '\0';
	return out;
}

void text_vprint(FILE *out, const char *fmt, va_list ap)
{
	char *raw = NULL, *safe;

	if (vasprintf(&raw, fmt, ap) < 0)
		return;
	safe = text_escape(raw);
	fputs(safe ? safe : "(out of memory)", out);
	free(safe);
	free(raw);
}

void text_print(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vprint(out, fmt, ap);
	va_end(ap);
}
