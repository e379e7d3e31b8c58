// SPDX-License-Identifier: GPL-2.0-or-later
/* One op on every node, answers merged; hosts-file loading.  See fleet_status.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet/fleet_status.h"

#define HOSTS_FILE_MAX (16 * 1024 * 1024)

int fleet_hosts_load(struct fab_hosts *hs, const char *path, struct fab_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fab_err_input(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > HOSTS_FILE_MAX) {
		rc = fab_err_input(err, -EINVAL, "%s: not a regular file of at most %d bytes",
				   path, HOSTS_FILE_MAX);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = fab_err_set(err, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = fab_err_input(err, -errno, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = hosts_parse(hs, buf, len, path, err);
out:
	free(buf);
	close(fd);
	return rc;
}

int fleet_run_op(const struct fab_hosts *hosts, const struct fleet_opts *o, const char *op,
		 const json_t *params, const char *schema, int timeout_ms, json_t **doc,
		 size_t *n_failed, struct fab_err *err)
{
	json_t **results = calloc(hosts->n, sizeof(*results)), *nodes = json_array();
	char **errors = calloc(hosts->n, sizeof(*errors));
	struct fleet f = { 0 };
	size_t failed = 0;
	int rc;

	if (!results || !errors || !nodes) {
		rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	rc = fleet_start(&f, hosts, o, err);
	if (rc < 0)
		goto out;
	rc = fleet_call_all(&f, op, params, timeout_ms, results, errors);
	if (rc < 0) {
		fab_err_set(err, rc, "fleet: %s", strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < hosts->n; i++) {
		const struct fab_host *h = &hosts->hosts[i];
		json_t *n = json_pack("{s:s, s:s, s:b, s:o}", "node", h->name, "address", h->addr,
				      "ok", results[i] != NULL,
				      "error", errors[i] ? json_string(errors[i])
							 : results[i] ? json_null()
								      : json_string("no answer"));

		json_object_set(n, op, results[i] ? results[i] : json_null());
		json_array_append_new(nodes, n);
		failed += results[i] == NULL;
	}
	*doc = json_pack("{s:s, s:s, s:O, s:{s:i, s:i, s:i}}", "schema", schema, "op", op,
			 "nodes", nodes, "summary", "nodes", (int)hosts->n,
			 "ok", (int)(hosts->n - failed), "failed", (int)failed);
	*n_failed = failed;
	rc = *doc ? 0 : fab_err_set(err, -ENOMEM, "fleet: out of memory");
out:
	fleet_fini(&f);
	for (size_t i = 0; results && errors && i < hosts->n; i++) {
		json_decref(results[i]);
		free(errors[i]);
	}
	free(results);
	free(errors);
	json_decref(nodes);
	return rc;
}
