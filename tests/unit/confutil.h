/*
 * confutil.h - shared by the suites of the configuration parser's parts
 * (test_confread, test_confhist): libconfig text parsed in memory, and the
 * exact message a refusal must leave.
 */
#ifndef STATCTR_CONFUTIL_H
#define STATCTR_CONFUTIL_H

#include "confread.h"
#include "testutil.h"

static config_t cf_config;
static bool cf_loaded;

/* Frees what the last cf_parse() read. */
static inline void cf_cleanup(void)
{
	if (cf_loaded)
		config_destroy(&cf_config);
	cf_loaded = false;
}

/* Parses @text (libconfig syntax; the last text parsed is freed); its root group. */
static inline const config_setting_t *cf_parse(const char *text)
{
	cf_cleanup();
	config_init(&cf_config);
	cf_loaded = true;
	if (config_read_string(&cf_config, text) != CONFIG_TRUE) {
		fprintf(stderr, "\n    line %d: %s\n", config_error_line(&cf_config),
		        config_error_text(&cf_config));
		CU_FAIL_FATAL("the test's libconfig text does not parse");
	}
	return config_root_setting(&cf_config);
}

/* Asserts that a call returned -EINVAL with exactly the message @msg. */
static inline void cf_expect(int got, const char *msg)
{
	if (got != -EINVAL || strcmp(statctr_errmsg(), msg) != 0)
		fprintf(stderr, "\n    got %d \"%s\", expected \"%s\"\n", got, statctr_errmsg(),
		        msg);
	CU_ASSERT_EQUAL(got, -EINVAL);
	CU_ASSERT_STRING_EQUAL(statctr_errmsg(), msg);
}

#endif /* STATCTR_CONFUTIL_H */
