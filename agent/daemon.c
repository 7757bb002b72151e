/*
 * daemon.c - the process around serving (see daemon.h).
 *
 * Owns the descriptors the agent inherits, the log target, the daemon's
 * fork (notify.c waits for the child), the pid file it wrote, the signal
 * flags with the self-pipe that wakes Net-SNMP's select loop, and the exit
 * watchdog.  Signal handlers only set flags, post the watchdog and write to
 * the pipe: all work happens in the loop.  Never serves, never registers,
 * never reads a segment.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "daemon.h"
#include "agent.h"
#include "notify.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got_term, got_hup;
static int wake_pipe[2] = {-1, -1};

/* The pid file this agent wrote: only that file is removed at exit. */
static const char *pidfile_path;
static struct stat pidfile_written;

/*
 * A daemon keeps no descriptor it did not open: an inherited pipe would keep
 * its writer's reader waiting for end-of-file, an inherited file stays open
 * as long as the agent runs.  0, 1 and 2 stay (a daemon redirects them).
 */
void daemon_close_inherited(void)
{
	if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
		return;
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
}

void daemon_log_to(const char *log, bool foreground)
{
	const char *target = log ? log : foreground ? "stderr" : "syslog";

	/*
	 * Net-SNMP logs to stderr only while no handler is registered, and
	 * backend_statctr.c registers one (to watch for refused registrations): name
	 * the target explicitly.
	 */
	if (strcmp(target, "syslog") == 0)
		snmp_enable_syslog_ident(AGENT_NAME, LOG_DAEMON);
	else if (strncmp(target, "file:", 5) == 0)
		snmp_enable_filelog(target + 5, 1); /* append; opened now, before the fork */
	else
		snmp_enable_stderrlog();
}

int daemon_detach(void)
{
	return notify_daemonize();
}

/* ------------------------------------------------------------------------
 * The pid file.
 */

static int fill_pid(FILE *f, void *arg)
{
	(void)arg;
	return fprintf(f, "%ld\n", (long)getpid()) < 0 ? -EIO : 0;
}

/* /run or a shared directory: safefile_write() never follows, blocks on or reuses what is there. */
static int write_pidfile(const char *path)
{
	const char *why;
	int err = safefile_write(path, SAFEFILE_STATE, 0644, fill_pid, NULL, &why);

	if (err < 0)
		return errmsg_set(-err, "pid file %s: %s: %s", path, why, strerror(-err));
	if (lstat(path, &pidfile_written) != 0)
		pidfile_written.st_ino = 0;
	return 0;
}

/* Whether the file at @path holds our pid: a file system may give a new
 * agent's pid file the inode number of ours, removed meanwhile. */
static bool pidfile_is_ours(const char *path)
{
	char buf[32], want[32];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	snprintf(want, sizeof(want), "%ld\n", (long)getpid());
	return n > 0 && (buf[n] = '\0', strcmp(buf, want) == 0);
}

/* Removes the pid file if it is still the one write_pidfile() wrote, not
 * one planted or written by a later agent since. */
static void remove_pidfile(const char *path)
{
	struct stat st;

	if (pidfile_written.st_ino != 0 && lstat(path, &st) == 0 &&
	    st.st_ino == pidfile_written.st_ino && st.st_dev == pidfile_written.st_dev &&
	    pidfile_is_ours(path))
		unlink(path);
}

/* ------------------------------------------------------------------------
 * Signals: flags plus a self-pipe watched by the Net-SNMP select loop.
 */

/*
 * The exit watchdog.  SIGTERM ends the agent within EXIT_WATCHDOG_S even
 * while Net-SNMP is inside a synchronous exchange with a master that does not
 * answer (a re-registration after a missed ping: seconds per region), which
 * the main loop cannot interrupt.  The handler posts exit_sem (sem_post() is
 * async-signal-safe); the watchdog thread then waits EXIT_WATCHDOG_S and, if
 * the orderly exit has not ended the process by then, saves what the loop
 * had still to write (daemon_start()'s @save: the time base's state file),
 * says so in the log, removes the pid file it wrote and _exit()s.  The
 * master drops the session with the socket.
 */
#define EXIT_WATCHDOG_S 2

static sem_t exit_sem;
static void (*save_at_forced_exit)(void);

static void *exit_watchdog(void *arg)
{
	struct timespec wait = {EXIT_WATCHDOG_S, 0};

	(void)arg;
	while (sem_wait(&exit_sem) != 0)
		;
	while (nanosleep(&wait, &wait) != 0)
		;
	snmp_log(LOG_WARNING,
	         "exit forced %d s after the signal: the main loop was inside "
	         "an exchange with the master\n",
	         EXIT_WATCHDOG_S);
	if (save_at_forced_exit)
		save_at_forced_exit();
	if (pidfile_path)
		remove_pidfile(pidfile_path);
	_exit(0);
	return NULL;
}

/* Started with every signal blocked, so that they all go to the main thread. */
static int start_exit_watchdog(void)
{
	sigset_t all, old;
	pthread_t t;
	int err;

	if (sem_init(&exit_sem, 0, 0) != 0)
		return errmsg_set(errno, "sem_init: %s", strerror(errno));
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, NULL, exit_watchdog, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return errmsg_set(err, "cannot start the exit watchdog: %s", strerror(err));
	pthread_detach(t);
	return 0;
}

static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGHUP) {
		got_hup = 1;
	} else {
		if (!got_term)
			sem_post(&exit_sem);
		got_term = 1;
	}
	if (write(wake_pipe[1], "", 1) < 0) {
		/* full pipe: the loop is already awake */
	}
	errno = saved;
}

static void drain_pipe(int fd, void *arg)
{
	char buf[64];

	(void)arg;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int setup_signals(void)
{
	struct sigaction sa;

	if (pipe(wake_pipe) < 0)
		return errmsg_set(errno, "pipe: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		fcntl(wake_pipe[i], F_SETFL, O_NONBLOCK);
		fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	register_readfd(wake_pipe[0], drain_pipe, NULL);
	return 0;
}

int daemon_start(const char *pidfile, void (*save)(void))
{
	int err;

	pidfile_path = pidfile;
	save_at_forced_exit = save;
	err = start_exit_watchdog();
	if (!err)
		err = setup_signals();
	/* A file another user planted at PIDFILE is refused, never followed, and
	 * must not stop the start (docs/security.md): said, and served anyway. */
	if (!err && pidfile && write_pidfile(pidfile) < 0)
		snmp_log(LOG_ERR, "%s; serving without a pid file\n", errmsg_get());
	return err;
}

int daemon_wake_fd(void)
{
	return wake_pipe[1];
}

bool daemon_stopping(void)
{
	return got_term;
}

bool daemon_take_reload(void)
{
	if (!got_hup)
		return false;
	got_hup = 0;
	return true;
}

void daemon_stop(void)
{
	if (pidfile_path)
		remove_pidfile(pidfile_path);
}
