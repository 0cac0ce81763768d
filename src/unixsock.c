/* unixsock.c -- see unixsock.h. */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "http.h"
#include "limits.h"
#include "log.h"
#include "unixsock.h"
#include "util.h"
#include "loop.h"

struct unixsock {
	char *path;
	char *lock_path;
	int fd;       /* the listening socket */
	int lock_fd;  /* flock held for our lifetime: who holds it owns the socket path */
	dev_t dev;    /* the socket file we bound, so shutdown removes ours and nobody else's */
	ino_t ino;
	struct http *http;
	atomic_int quiesced;
};

/* Whether fd's peer runs as our own user; *peer_uid gets its uid (-1 when the kernel cannot say). */
int
unixsock_peer_is_me(int fd, long *peer_uid)
{
	struct ucred cr;
	socklen_t len = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof cr) {
		*peer_uid = -1;
		return 0;
	}
	*peer_uid = (long)cr.uid;
	return cr.uid == geteuid();
}

/* The directory must be ours and closed to others, or someone else could swap the socket. */
static int
check_dir(const char *dir, char **err)
{
	struct stat st;
	if (util_mkdirs(dir, 0700) != 0 || stat(dir, &st) != 0) {
		*err = xasprintf("cannot create the API socket's directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		*err = xasprintf("the API socket's directory %s must be a directory of this user that others cannot "
		                 "write to (run: chmod 700 %s)",
		                 dir, dir);
		return -1;
	}
	return 0;
}

/* Whether something accepts connections on the socket at path (a live daemon, ours or not). */
static int
answers(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	int ok = connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0;
	close(fd);
	return ok;
}

/* Bind the socket (mode 0600 in a 0700 directory), removing a stale one a dead daemon left behind. */
struct unixsock *
unixsock_open(const char *path, char **err)
{
	struct unixsock *u = xcalloc(1, sizeof *u);
	u->fd = u->lock_fd = -1;
	u->path = xstrdup(path);
	u->lock_path = xasprintf("%s.lock", path);
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sa.sun_path || path[0] != '/') {
		*err = xasprintf("the API socket path %s is not absolute or longer than %zu bytes (set api_socket)", path,
		                 sizeof sa.sun_path - 1);
		goto fail;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	int rc = check_dir(dir[0] ? dir : "/", err);
	free(dir);
	if (rc != 0)
		goto fail;
	/* Whoever holds this lock owns the path; it goes when its holder dies, so a daemon that crashed
	 * leaves a lock anyone may take and a socket file nobody answers on. */
	u->lock_fd = open(u->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (u->lock_fd < 0) {
		*err = xasprintf("cannot open %s: %s", u->lock_path, strerror(errno));
		goto fail;
	}
	if (flock(u->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		*err = xasprintf("another browser-bridge daemon already serves the API socket %s", path);
		goto fail;
	}
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			*err = xasprintf("%s exists and is not a socket; refusing to replace it (set api_socket)", path);
			goto fail;
		}
		if (answers(&sa)) {
			*err = xasprintf("something already answers on the API socket %s", path);
			goto fail;
		}
		log_info("removing the stale API socket %s (nothing answers on it)", path);
		if (unlink(path) != 0 && errno != ENOENT) {
			*err = xasprintf("cannot remove the stale API socket %s: %s", path, strerror(errno));
			goto fail;
		}
	}
	u->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		goto fail;
	}
	mode_t old = umask(0177); /* born 0600: no moment in which others may connect */
	rc = bind(u->fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (rc != 0 || listen(u->fd, BB_UNIX_BACKLOG) != 0 || stat(path, &st) != 0) {
		*err = xasprintf("cannot listen on the API socket %s: %s", path, strerror(errno));
		goto fail;
	}
	u->dev = st.st_dev;
	u->ino = st.st_ino;
	return u;
fail:
	if (u->fd >= 0)
		close(u->fd);
	if (u->lock_fd >= 0)
		close(u->lock_fd);
	free(u->lock_path);
	free(u->path);
	free(u);
	return NULL;
}

/* Turn away a peer of another user with a plain 403, best effort (the socket is 0600: only root gets here). */
static void
refuse(int fd, long uid)
{
	static const char resp[] = "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nConnection: close\r\n"
	                           "Content-Length: 96\r\n\r\n"
	                           "{\"status\":\"error\",\"error\":\"forbidden_user\",\"message\":\"this socket serves "
	                           "its own user only\"}\n";
	log_warn("api socket: refused a client running as uid %ld (the daemon serves only its own user here)", uid);
	ssize_t n = send(fd, resp, sizeof resp - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)n;
	close(fd);
}

/* The loop's run function: accept what is waiting, keep our own user's connections, serve them over HTTP. */
static long
accept_run(void *arg)
{
	struct unixsock *u = arg;
	for (;;) {
		int fd = accept4(u->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("api socket: accept: %s", strerror(errno));
			return -1;
		}
		long uid;
		if (atomic_load(&u->quiesced)) {
			close(fd);
			continue;
		}
		if (!unixsock_peer_is_me(fd, &uid)) {
			refuse(fd, uid);
			continue;
		}
		http_add_local(u->http, fd); /* takes the descriptor */
	}
}

/* Run the accept work on the event loop (main thread, before loop_start). */
void
unixsock_attach(struct unixsock *u, struct loop *loop, struct http *http)
{
	u->http = http;
	loop_add_source(loop, u->fd, accept_run, u);
}

/* Stop serving new connections and remove the socket file, so clients see at once that we are gone. */
void
unixsock_quiesce(struct unixsock *u)
{
	if (u == NULL || atomic_exchange(&u->quiesced, 1))
		return;
	struct stat st;
	if (lstat(u->path, &st) == 0 && st.st_dev == u->dev && st.st_ino == u->ino)
		unlink(u->path);
}

/* Close the listener, remove the socket if it is still ours, and release the path. NULL is fine. */
void
unixsock_free(struct unixsock *u)
{
	if (u == NULL)
		return;
	unixsock_quiesce(u);
	close(u->fd);
	close(u->lock_fd); /* the lock file itself stays: removing it would race with a daemon taking it */
	free(u->lock_path);
	free(u->path);
	free(u);
}
