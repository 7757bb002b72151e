/*
 * privileges.h - the user and group statctr-agentx runs as after setup.
 *
 * The agent may need root to start (an AgentX socket or SNMP port only
 * root may use); it needs none of that to serve.  -u and -g name the
 * identity to switch to once the master is reached and the handlers are
 * registered; the first pass already maps the segments as that identity
 * (privileges_assume()).
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
 * 0 or a negative errno with the cause in errmsg_get().
 */
int privileges_resolve(const char *user, const char *group, struct privileges *p);

/*
 * privileges_assume() - while root, make the identity of -u/-g the
 * effective one (supplementary groups, egid, euid), root staying the real
 * and saved uid; privileges_unassume() makes root effective again (the
 * supplementary groups stay the target's until privileges_drop(): root's
 * access does not depend on them).  The agent's first pass runs in
 * between, so every segment and control file is opened with exactly the
 * rights the agent keeps after the drop: a control file opened read-write
 * as root would let resets work until the writer's first restart, and fail
 * from then on.  No-ops when nothing was asked or when not started as
 * root.  Return 0 or a negative errno (cause in errmsg_get()).
 */
int privileges_assume(const struct privileges *p);
int privileges_unassume(const struct privileges *p);

/*
 * privileges_drop() - switch for good: supplementary groups, then gid, then
 * uid (real, effective and saved), and verify that root cannot be regained.
 * A no-op when nothing was asked.  Returns 0 or a negative errno (cause in
 * errmsg_get()); the caller must then exit rather than serve as root.
 */
int privileges_drop(const struct privileges *p);

#endif /* STATCTR_AGENT_PRIVILEGES_H */
