/*
 * error.c - statctr_errmsg(), the library's public face of the error
 * channel in common/errmsg.c: every failing call fills it through
 * errmsg_set() and returns the negative errno it was given.
 */
#include "internal.h"

const char *statctr_errmsg(void)
{
	return errmsg_get();
}
