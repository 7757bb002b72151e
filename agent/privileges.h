/*
 * privileges.h - the user and group statctr-agentx runs as after setup.
 *
 * The agent may need root to start (an AgentX socket or SNMP port only root
 * may use, segments readable only by their group); it needs none of that to
 * serve.  -u and -g name the identity to switch to once the master is
 * reached, the handlers are registered and the first pass has mapped the
 * segments.
 */
#ifndef STATCTR_AGENT_PRIVILEGES_H
#define STATCTR_AGENT_PRIVILEGES_H

#include <stdbool.h>
#include <sys/types.h>

struct privileges {
	bool set_uid, set_gid;
	uid_t uid;
	gid_t gid;
	char user[64]; /* for the supplementary groups (initgroups); "" without -u */
};

/*
 * privileges_resolve() - look up @user and @group (names or numbers; either
 * may be NULL).  Without @group, -u takes the user's primary group.  Returns
 * 0 or a negative errno with the cause in agent_errmsg().
 */
int privileges_resolve(const char *user, const char *group, struct privileges *p);

/*
 * privileges_drop() - switch for good: supplementary groups, then gid, then
 * uid (real, effective and saved), and verify that root cannot be regained.
 * A no-op when nothing was asked.  Returns 0 or a negative errno (cause in
 * agent_errmsg()); the caller must then exit rather than serve as root.
 */
int privileges_drop(const struct privileges *p);

#endif /* STATCTR_AGENT_PRIVILEGES_H */
