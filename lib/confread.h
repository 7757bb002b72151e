/*
 * confread.h - the configuration parser's primitives (confread.c), shared
 * by config.c and the parsers of column and table extensions.
 *
 * @path is the file being read (for messages when libconfig has no line);
 * @group a libconfig group and @key one of its members.  Every function
 * returns 0 or a negative errno, with statctr_errmsg() set to
 * "FILE:LINE: SETTING: what".
 */
#ifndef STATCTR_CONFREAD_H
#define STATCTR_CONFREAD_H

#include "internal.h"

#include <libconfig.h>
#include <stdarg.h>
#include <stdbool.h>

/* Reports @group's member @name (or @group itself for NULL) as wrong: -@err. */
int conf_vfail(int err, const char *path, const config_setting_t *group, const char *name,
               const char *fmt, va_list ap) STATCTR_PRINTF(5, 0);
/* conf_vfail() with EINVAL. */
int conf_fail(const char *path, const config_setting_t *group, const char *name, const char *fmt,
              ...) STATCTR_PRINTF(4, 5);
int conf_no_memory(void);
/* "an integer", "a string", ... for messages. */
const char *conf_type_name(int type);
/* Rejects members of @group not in the NULL-terminated @keys. */
int conf_check_keys(const char *path, const config_setting_t *group, const char *const *keys);
/* @group's member @name of libconfig @type (integers: plain or 64-bit);
 * *sp NULL when absent and not @required. */
int conf_member(const char *path, const config_setting_t *group, const char *name, int type,
                bool required, const config_setting_t **sp);
int conf_copy_string(const char *s, const char **copyp);
int conf_get_name(const char *path, const config_setting_t *group, const char *key,
                  const char **namep);
/* @text is printable ASCII of at most @max bytes. */
int conf_check_text(const char *path, const config_setting_t *group, const char *key,
                    const char *text, size_t max);
/* Optional text (description, units): "" when absent. */
int conf_get_text(const char *path, const config_setting_t *group, const char *key,
                  const char **textp);
/* Optional integer in @min..@max; *valp keeps its default when absent. */
int conf_get_uint(const char *path, const config_setting_t *group, const char *key, uint32_t min,
                  uint32_t max, uint32_t *valp);
int conf_get_mode(const char *path, const config_setting_t *group, const char *key, mode_t *modep);
/* Required non-empty list of groups. */
int conf_get_list(const char *path, const config_setting_t *group, const char *key,
                  const config_setting_t **listp, uint32_t *np);

#endif /* STATCTR_CONFREAD_H */
