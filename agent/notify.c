/*
 * notify.c - start-up and readiness reports: to the service manager and to
 * the parent of a daemon.
 *
 * Owns two one-way messages.  The service manager's (systemd Type=notify,
 * sent by common/sdnotify.c).  And the daemon's: the parent of a forked agent waits on a pipe for
 * one line, empty when the agent serves, else the reason it could not start, and exits with that
 * outcome.  Never blocks, never logs: a lost datagram only loses the report.
 */
#include "notify.h"
#include "sdnotify.h"
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int start_fd = -1; /* the daemon's pipe to its waiting parent */

void notify_manager(const char *state)
{
	sd_notify_state(state);
}

/*
 * Reaps the child that reported a failure (or died), so that no agent process
 * is left when the parent exits 1.  The child exits right after its report;
 * waits at most 5 s for it all the same.  Returns 0 with *status set, -1 if it
 * still runs.
 */
static int reap(pid_t child, int *status)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};

	for (int i = 0; i < 500; i++) {
		pid_t got = waitpid(child, status, WNOHANG);

		if (got == child)
			return 0;
		if (got < 0 && errno != EINTR)
			return -1;
		nanosleep(&tick, NULL);
	}
	return -1;
}

/* The parent: the child's line, else how the child ended. */
static int parent_wait(int fd, pid_t child)
{
	char buf[1100];
	size_t used = 0;
	ssize_t n;
	int status = -1;

	while (used < sizeof(buf) - 1 && (n = read(fd, buf + used, sizeof(buf) - 1 - used)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	if (used == 1 && buf[0] == '\n')
		return 0;
	if (used) {
		fprintf(stderr, AGENT_NAME ": %s", buf);
		if (reap(child, &status) < 0)
			fprintf(stderr, AGENT_NAME ": pid %ld still runs 5 s after its failure\n",
			        (long)child);
		return 1;
	}
	if (reap(child, &status) == 0 && WIFSIGNALED(status))
		fprintf(stderr, AGENT_NAME ": the agent was killed by signal %d while starting\n",
		        WTERMSIG(status));
	else
		fprintf(stderr, AGENT_NAME ": the agent exited while starting (status %d)\n",
		        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 1;
}

int notify_daemonize(void)
{
	int fds[2], null;
	pid_t pid;

	if (pipe(fds) < 0)
		return errmsg_set(errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return errmsg_set(errno, "fork: %s", strerror(errno));
	if (pid > 0) {
		close(fds[1]);
		exit(parent_wait(fds[0], pid));
	}
	close(fds[0]);
	start_fd = fds[1];
	/* What daemon(0, 0) does: a new session, no terminal, cwd /, stdio on /dev/null. */
	if (setsid() < 0 || chdir("/") < 0)
		return errmsg_set(errno, "daemon: %s", strerror(errno));
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return errmsg_set(errno, "/dev/null: %s", strerror(errno));
	for (int std = 0; std < 3; std++)
		dup2(null, std);
	if (null > 2)
		close(null);
	return 0;
}

void notify_started(const char *error)
{
	char line[1100];
	int len;

	if (start_fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%s\n", error ? error : "");
	if (write(start_fd, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1) <
	    0) {
		/* the parent is gone: nobody waits for the outcome */
	}
	close(start_fd);
	start_fd = -1;
}
