// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Process identity: a pid names a process only until it exits; the pid
 * and the start time (/proc/PID/stat field 22, clock ticks since boot)
 * together name one process for the life of the system.  The pending
 * state of `apply --try` records both for its reverter (pending.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sys_real.h"

int proc_start(struct sys *sys, int pid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	ssize_t n;
	int fd, field;

	*start = 0;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold spaces and ')', so count from the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &v) != 1 || !v)
		return -EIO;
	*start = v;
	return 0;
}
