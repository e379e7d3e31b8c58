// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sys.h"
#include "sys/sys_real.h"

void sys_free(struct sys *sys)
{
	if (!sys)
		return;
	if (sys->ops && sys->ops->free)
		sys->ops->free(sys);
	free(sys);
}

int sys_host_state_read(struct sys *sys, struct host_state *hs, unsigned int flags,
			struct fab_err *err)
{
	int rc;

	if (!sys->ops->links_read || !sys->ops->rdma_read)
		return fab_err_set(err, -EOPNOTSUPP, "%s: cannot read host state", sys->ops->name);
	if (gethostname(hs->hostname, sizeof(hs->hostname) - 1) < 0)
		hs->hostname[0] = '\0';
	rc = sys->ops->links_read(sys, hs, err);
	if (rc < 0)
		return rc;
	rc = sys->ops->rdma_read(sys, hs, flags, err);
	if (rc < 0)
		return rc;
	host_state_resolve_masters(hs);
	host_state_sort(hs);
	return 0;
}

const char *sys_path(const struct sys *sys, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(buf, len, "%s", sys ? sys->root : "");
	if (n < 0 || (size_t)n >= len)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

int sys_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		rc = -errno;
		goto out;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
out:
	close(fd);
	return rc;
}

int sys_read_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	unsigned long long v;
	int rc;

	rc = sys_read_line(path, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	*val = v;
	return 0;
}

int sys_write_line(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}
