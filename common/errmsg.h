/*
 * errmsg.h - the calling thread's last error message: statctr's one error
 * channel, compiled into each of its two sides.
 *
 * A failing call describes its cause with errmsg_set() (naming the file:line,
 * the segment, the OID) and returns the negative errno errmsg_set() returns;
 * its caller reads the words with errmsg_get() and decides what to report.
 * The library keeps its own copy, hidden behind statctr_errmsg(); the agent,
 * statctl and the exporter share the one in libstatctr_common.
 */
#ifndef STATCTR_ERRMSG_H
#define STATCTR_ERRMSG_H

/* Sets the message from @fmt; returns -@err (@err > 0). */
int errmsg_set(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The message of the calling thread's last errmsg_set(); "no error" before one. */
const char *errmsg_get(void);

#endif
