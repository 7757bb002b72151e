/*
 * webconfig.c - the web configuration of Prometheus' exporter-toolkit
 * (--web.config.file), the subset statctr-exporter serves:
 *
 *   tls_server_config:
 *     cert_file: server.crt         # PEM; with key_file, HTTPS only
 *     key_file: server.key
 *     client_ca_file: ca.crt        # clients must show a certificate it signed
 *     client_auth_type: RequireAndVerifyClientCert
 *   basic_auth_users:
 *     alice: $2b$10$...             # bcrypt (htpasswd -B), checked by crypt_r()
 *
 * Owns the parse (block mappings of two levels, plain or quoted scalars,
 * comments; anything else is refused with FILE:LINE, as exporter-toolkit
 * refuses unknown keys), the reading of the files it names (safefile_read():
 * never a link, never another user's) and the password check.  Never
 * serves anything, never logs a password.
 */
#include "config.h" /* _GNU_SOURCE: before any system header */

#include "exporter.h"
#include "safefile.h"

#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE  (1024 * 1024)
#define MAX_USERS 1024
#define MAX_LINE  4096

enum section { NONE, TLS, USERS };

struct parse {
	const char *path;
	unsigned line;
	enum section section;
	char *cert_file, *key_file, *ca_file, *auth_type;
	struct web_config *wc;
	char *err;
	size_t errsize;
};

static int fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parse *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errsize, "%s:%u: %s", p->path, p->line, what);
	return -EINVAL;
}

/* A scalar: plain (to a " #" comment, trimmed) or quoted ('...' or "..." without escapes). */
static int scalar(struct parse *p, char *s, char **out)
{
	char *end;

	s += strspn(s, " \t");
	if (*s == '"' || *s == '\'') {
		end = strchr(s + 1, *s);
		if (end == NULL || end[1 + strspn(end + 1, " \t")] != '\0')
			return fail(p, "unterminated quote, or text after it");
		*end = '\0';
		*out = s + 1;
		return 0;
	}
	end = strstr(s, " #");
	if (end != NULL)
		*end = '\0';
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	*out = s;
	return 0;
}

static int set_once(struct parse *p, char **field, const char *key, const char *value)
{
	if (*field != NULL)
		return fail(p, "%s given twice", key);
	if (value[0] == '\0')
		return fail(p, "%s: empty", key);
	*field = strdup(value);
	return *field ? 0 : -ENOMEM;
}

static int tls_key(struct parse *p, const char *key, const char *value)
{
	if (strcmp(key, "cert_file") == 0)
		return set_once(p, &p->cert_file, key, value);
	if (strcmp(key, "key_file") == 0)
		return set_once(p, &p->key_file, key, value);
	if (strcmp(key, "client_ca_file") == 0)
		return set_once(p, &p->ca_file, key, value);
	if (strcmp(key, "client_auth_type") == 0)
		return set_once(p, &p->auth_type, key, value);
	return fail(p,
	            "tls_server_config: unknown key \"%.64s\" (known: cert_file, key_file, "
	            "client_ca_file, client_auth_type)",
	            key);
}

static int user_key(struct parse *p, const char *name, const char *hash)
{
	struct web_config *wc = p->wc;
	struct web_user *u;

	if (strncmp(hash, "$2a$", 4) != 0 && strncmp(hash, "$2b$", 4) != 0 &&
	    strncmp(hash, "$2y$", 4) != 0)
		return fail(p, "basic_auth_users: %.64s: not a bcrypt hash ($2a$, $2b$ or $2y$)",
		            name);
	for (uint32_t i = 0; i < wc->nusers; i++)
		if (strcmp(wc->users[i].name, name) == 0)
			return fail(p, "basic_auth_users: %.64s given twice", name);
	if (wc->nusers == MAX_USERS)
		return fail(p, "basic_auth_users: more than %d users", MAX_USERS);
	u = realloc(wc->users, (wc->nusers + 1) * sizeof(*u));
	if (u == NULL)
		return -ENOMEM;
	wc->users = u;
	u = &wc->users[wc->nusers];
	u->name = strdup(name);
	u->hash = strdup(hash);
	u->verified = NULL;
	if (u->name == NULL || u->hash == NULL) {
		free(u->name);
		free(u->hash);
		return -ENOMEM;
	}
	wc->nusers++;
	return 0;
}

static int top_key(struct parse *p, const char *key, const char *rest)
{
	if (rest[strspn(rest, " \t")] != '\0' && strcmp(rest + strspn(rest, " \t"), "{}") != 0)
		return fail(p, "%.64s: a mapping of keys on the lines below is expected", key);
	if (strcmp(key, "tls_server_config") == 0)
		p->section = TLS;
	else if (strcmp(key, "basic_auth_users") == 0)
		p->section = USERS;
	else
		return fail(p,
		            "unknown key \"%.64s\" (statctr-exporter serves tls_server_config and "
		            "basic_auth_users)",
		            key);
	return 0;
}

static int parse_line(struct parse *p, char *line)
{
	size_t indent = strspn(line, " ");
	char *key = line + indent, *colon, *value = NULL;
	int err;

	if (line[indent] == '\t')
		return fail(p, "a tab in the indentation (YAML allows spaces only)");
	if (*key == '\0' || *key == '#' || strcmp(key, "---") == 0)
		return 0;
	colon = strstr(key, ":");
	if (colon == NULL || (colon[1] != '\0' && colon[1] != ' '))
		return fail(p, "\"key: value\" expected");
	*colon = '\0';
	if (indent == 0)
		return top_key(p, key, colon + 1);
	if (p->section == NONE)
		return fail(p, "indented key \"%.64s\" outside a section", key);
	err = scalar(p, colon + 1, &value);
	if (err)
		return err;
	return p->section == TLS ? tls_key(p, key, value) : user_key(p, key, value);
}

/* @file, relative to the web configuration's directory, read whole. */
static int read_named(struct parse *p, const char *file, char **out)
{
	char dirbuf[MAX_LINE], path[2 * MAX_LINE];
	const char *why = "";
	size_t len;
	int err;

	snprintf(dirbuf, sizeof(dirbuf), "%s", p->path);
	if (file[0] == '/')
		snprintf(path, sizeof(path), "%s", file);
	else
		snprintf(path, sizeof(path), "%s/%s", dirname(dirbuf), file);
	err = safefile_read(path, MAX_FILE, out, &len, &why);
	if (err < 0)
		snprintf(p->err, p->errsize, "%s: %s: %s", p->path, path,
		         why ? why : strerror(-err));
	return err;
}

static int finish_tls(struct parse *p)
{
	struct web_config *wc = p->wc;
	int err = 0;

	if (p->cert_file == NULL && p->key_file == NULL && p->ca_file == NULL)
		return 0;
	if (p->cert_file == NULL || p->key_file == NULL)
		return fail(p, "tls_server_config needs cert_file and key_file");
	if (p->auth_type != NULL && strcmp(p->auth_type, "RequireAndVerifyClientCert") != 0 &&
	    !(strcmp(p->auth_type, "NoClientCert") == 0 && p->ca_file == NULL))
		return fail(p,
		            "client_auth_type: statctr-exporter serves RequireAndVerifyClientCert "
		            "(with client_ca_file) or NoClientCert (without)");
	if (p->auth_type != NULL && strcmp(p->auth_type, "RequireAndVerifyClientCert") == 0 &&
	    p->ca_file == NULL)
		return fail(p, "client_auth_type RequireAndVerifyClientCert needs client_ca_file");
	err = read_named(p, p->cert_file, &wc->cert_pem);
	if (!err)
		err = read_named(p, p->key_file, &wc->key_pem);
	if (!err && p->ca_file != NULL)
		err = read_named(p, p->ca_file, &wc->ca_pem);
	wc->require_client_cert = wc->ca_pem != NULL;
	return err;
}

static int parse_text(struct parse *p, char *text)
{
	int err = 0;

	for (char *line = text, *next; err == 0 && line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		p->line++;
		if (strlen(line) > 0 && line[strlen(line) - 1] == '\r')
			line[strlen(line) - 1] = '\0';
		err = parse_line(p, line);
	}
	if (err == 0) {
		p->line = 0;
		err = finish_tls(p);
	}
	return err;
}

int webconfig_load(const char *path, struct web_config **wcp, char *err, size_t errsize)
{
	struct parse p = {.path = path, .err = err, .errsize = errsize};
	const char *why = NULL;
	char *text = NULL;
	size_t len;
	int rc;

	*wcp = NULL;
	rc = safefile_read(path, MAX_FILE, &text, &len, &why);
	if (rc < 0) {
		snprintf(err, errsize, "%s: %s", path, why ? why : strerror(-rc));
		return rc;
	}
	p.wc = calloc(1, sizeof(*p.wc));
	rc = p.wc ? parse_text(&p, text) : -ENOMEM;
	if (rc == -ENOMEM)
		snprintf(err, errsize, "%s: out of memory", path);
	free(text);
	free(p.cert_file);
	free(p.key_file);
	free(p.ca_file);
	free(p.auth_type);
	if (rc < 0) {
		webconfig_free(p.wc);
		return rc;
	}
	*wcp = p.wc;
	return 0;
}

static void free_secret(char *s)
{
	if (s != NULL)
		explicit_bzero(s, strlen(s));
	free(s);
}

void webconfig_free(struct web_config *wc)
{
	if (wc == NULL)
		return;
	for (uint32_t i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
		free_secret(wc->users[i].verified);
	}
	free(wc->users);
	free(wc->cert_pem);
	free_secret(wc->key_pem);
	free(wc->ca_pem);
	free(wc);
}

/* Compares all of @a and @b, whatever differs first. */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/*
 * bcrypt costs tens of milliseconds by design: a password that matched is
 * remembered (as exporter-toolkit caches it), so that a scrape every few
 * seconds does not pay it each time; another password is checked anew.
 */
bool webconfig_check(struct web_config *wc, const char *user, const char *password)
{
	struct crypt_data data;
	const char *h;

	for (uint32_t i = 0; i < wc->nusers; i++) {
		struct web_user *u = &wc->users[i];

		if (strcmp(u->name, user) != 0)
			continue;
		if (u->verified != NULL && same_secret(u->verified, password))
			return true;
		memset(&data, 0, sizeof(data));
		h = crypt_r(password, u->hash, &data);
		if (h == NULL || h[0] == '*' || !same_secret(h, u->hash))
			return false;
		free_secret(u->verified);
		u->verified = strdup(password);
		return true;
	}
	return false;
}
