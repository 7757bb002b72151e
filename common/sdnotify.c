/*
 * sdnotify.c - readiness reports to the service manager.
 *
 * Owns one one-way message: systemd's Type=notify protocol (sd_notify(3)),
 * a datagram of "KEY=value" lines to the unix socket named by
 * $NOTIFY_SOCKET (a path, or an abstract name after '@').  That protocol is
 * a documented, stable interface of systemd and fits in one sendto(), so
 * the daemons speak it themselves instead of linking libsystemd: one
 * dependency less for packages that must also build where systemd is
 * absent.  Never blocks, never logs.
 */
#include "sdnotify.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void sd_notify_state(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sun.sun_path))
		return;
	memcpy(sun.sun_path, path, len);
	if (path[0] == '@')
		sun.sun_path[0] = '\0'; /* abstract namespace: no terminating NUL counted */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sun,
	           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
		/* the manager is gone or its queue is full: the report is lost */
	}
	close(fd);
}
