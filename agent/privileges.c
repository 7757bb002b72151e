/*
 * privileges.c - resolve -u/-g and drop root after setup.
 *
 * Owns the switch of identity and its verification.  Never opens files or
 * talks SNMP: main.c decides when setup is over.
 */
#include "config.h" /* _GNU_SOURCE (setresuid): before any system header */

#include "privileges.h"
#include "agent.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool parse_id(const char *text, unsigned long *id)
{
	char *end;

	if (*text < '0' || *text > '9')
		return false;
	errno = 0;
	*id = strtoul(text, &end, 10);
	return errno == 0 && *end == '\0' && *id < (unsigned long)(uid_t)-1;
}

static int resolve_user(const char *user, struct privileges *p)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	unsigned long id;
	int err;

	if (parse_id(user, &id))
		err = getpwuid_r((uid_t)id, &pw, buf, sizeof(buf), &found);
	else
		err = getpwnam_r(user, &pw, buf, sizeof(buf), &found);
	if (err != 0 || !found)
		return errmsg_set(EINVAL, "-u %.64s: no such user", user);
	if (strlen(found->pw_name) >= sizeof(p->user))
		return errmsg_set(EINVAL, "-u %.64s: user name too long", user);
	snprintf(p->user, sizeof(p->user), "%s", found->pw_name);
	p->set_uid = true;
	p->uid = found->pw_uid;
	if (!p->set_gid) {
		p->set_gid = true;
		p->gid = found->pw_gid;
	}
	return 0;
}

static int resolve_group(const char *group, struct privileges *p)
{
	unsigned long id;

	if (parse_id(group, &id)) {
		p->gid = (gid_t)id;
	} else {
		struct group gr, *found = NULL;
		char buf[4096];

		if (getgrnam_r(group, &gr, buf, sizeof(buf), &found) != 0 || !found)
			return errmsg_set(EINVAL, "-g %.64s: no such group", group);
		p->gid = found->gr_gid;
	}
	p->set_gid = true;
	return 0;
}

int privileges_resolve(const char *user, const char *group, struct privileges *p)
{
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (group)
		err = resolve_group(group, p);
	if (!err && user)
		err = resolve_user(user, p);
	if (err)
		return err;
	if ((p->set_uid && p->uid != geteuid()) || (p->set_gid && p->gid != getegid()))
		if (geteuid() != 0)
			return errmsg_set(EPERM, "-u/-g: only root can switch user or group");
	return 0;
}

/* The target's supplementary groups: USER's (initgroups) with -u, else only GROUP. */
static int set_groups(const struct privileges *p)
{
	int err = p->set_uid ? initgroups(p->user, p->gid) : setgroups(1, &p->gid);

	if (err != 0)
		return errmsg_set(errno, "cannot set the supplementary groups: %s",
		                  strerror(errno));
	return 0;
}

int privileges_assume(const struct privileges *p)
{
	int err;

	if ((!p->set_uid && !p->set_gid) || geteuid() != 0)
		return 0;
	err = set_groups(p);
	if (!err && p->set_gid && setegid(p->gid) != 0)
		err =
		    errmsg_set(errno, "cannot take gid %u: %s", (unsigned)p->gid, strerror(errno));
	if (!err && p->set_uid && seteuid(p->uid) != 0)
		err =
		    errmsg_set(errno, "cannot take uid %u: %s", (unsigned)p->uid, strerror(errno));
	return err;
}

int privileges_unassume(const struct privileges *p)
{
	if ((!p->set_uid && !p->set_gid) || getuid() != 0)
		return 0;
	/* Root's own uid first: only it may change the gid back. */
	if (seteuid(0) != 0 || setegid(getgid()) != 0)
		return errmsg_set(errno, "cannot switch back to root: %s", strerror(errno));
	return 0;
}

int privileges_drop(const struct privileges *p)
{
	if (!p->set_uid && !p->set_gid)
		return 0;
	if (geteuid() == 0) {
		int err = set_groups(p);

		if (err)
			return err;
	}
	if (p->set_gid && setresgid(p->gid, p->gid, p->gid) != 0)
		return errmsg_set(errno, "cannot switch to gid %u: %s", (unsigned)p->gid,
		                  strerror(errno));
	if (p->set_uid && setresuid(p->uid, p->uid, p->uid) != 0)
		return errmsg_set(errno, "cannot switch to uid %u: %s", (unsigned)p->uid,
		                  strerror(errno));
	/* Dropped for good: neither the saved uid nor the saved gid gives root back. */
	if (p->set_uid && p->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		return errmsg_set(EPERM, "root could be regained after switching to uid %u",
		                  (unsigned)p->uid);
	if (p->set_gid && p->gid != 0 && p->set_uid && p->uid != 0 && setgid(0) == 0)
		return errmsg_set(EPERM, "gid 0 could be regained after switching to gid %u",
		                  (unsigned)p->gid);
	return 0;
}
