// SPDX-License-Identifier: GPL-2.0-or-later
/* Every node's LLDP view through a started fleet, merged (fleet_lldp.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_lldp.h"
#include "model/lldp_view.h"
#include "util/log.h"

/* @tmpl with every "{host}" replaced by @host, into @buf; -ENAMETOOLONG. */
static int socket_expand(const char *tmpl, const char *host, char *buf, size_t len)
{
	size_t off = 0;

	while (*tmpl) {
		const char *piece = tmpl;
		size_t plen = 1;

		if (strncmp(tmpl, "{host}", 6) == 0) {
			piece = host;
			plen = strlen(host);
			tmpl += 6;
		} else {
			tmpl++;
		}
		if (off + plen >= len)
			return -ENAMETOOLONG;
		memcpy(buf + off, piece, plen);
		off += plen;
	}
	buf[off] = '\0';
	return 0;
}

/* {"op": "lldp", "socket": the node's lldpd socket or null}. */
static json_t *lldp_req(const struct fab_host *h, const void *arg, struct fab_err *err)
{
	const char *const *socket = arg;
	const char *sock = hosts_label(h, "lldp_socket");
	char path[4096];

	if (*socket) {
		if (socket_expand(*socket, h->name, path, sizeof(path)) < 0) {
			fab_err_input(err, -ENAMETOOLONG, "--lldp-socket: too long for %s", h->name);
			return NULL;
		}
		sock = path;
	}
	return json_pack("{s:s, s:o}", "op", "lldp", "socket",
			 sock ? json_string(sock) : json_null());
}

int fleet_lldp_collect(struct fleet *f, const struct fab_hosts *hosts, const char *socket,
		       int timeout_ms, struct topo *t, struct fab_err *err)
{
	json_t **results = calloc(hosts->n ? hosts->n : 1, sizeof(*results));
	char **errors = calloc(hosts->n ? hosts->n : 1, sizeof(*errors));
	char failed[768] = "";
	size_t n_failed = 0;
	unsigned int conflicts = 0;
	int rc;

	if (!results || !errors) {
		rc = fab_err_set(err, -ENOMEM, "lldp: out of memory");
		goto out;
	}
	rc = fleet_call_all(f, lldp_req, &socket, timeout_ms > 0 ? timeout_ms : 20000, results,
			   errors, err);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < hosts->n; i++) {
		struct lldp_view v;
		struct fab_err verr;

		fab_err_init(&verr);
		lldp_view_init(&v);
		if (results[i] && lldp_view_from_json(&v, results[i], &verr) < 0) {
			errors[i] = strdup(verr.msg);
		} else if (results[i]) {
			rc = lldp_view_merge(t, &v, &conflicts);
			if (rc < 0) {
				lldp_view_fini(&v);
				fab_err_set(err, rc, "lldp: out of memory");
				goto out;
			}
			fab_info("lldp: %s: %zu ports", hosts->hosts[i].name, v.n_ports);
		}
		lldp_view_fini(&v);
		if (!results[i] || errors[i]) {
			size_t off = strlen(failed);

			n_failed++;
			fab_warn("lldp: %s: %s", hosts->hosts[i].name,
				 errors[i] ? errors[i] : "no answer");
			if (off < sizeof(failed) - 1)
				snprintf(failed + off, sizeof(failed) - off, "%s%s", off ? ", " : "",
					 hosts->hosts[i].name);
		}
	}
	if (conflicts)
		fab_warn("lldp: %u LLDP neighbor entries conflict with others (stale or shared ports)",
			 conflicts);
	t->src |= TOPO_SRC_LLDP;
	rc = 0;
	if (n_failed)
		rc = fab_err_set(err, -EHOSTUNREACH, "lldp: %zu of %zu nodes failed: %s",
				 n_failed, hosts->n, failed);
out:
	for (size_t i = 0; results && i < hosts->n; i++)
		json_decref(results[i]);
	for (size_t i = 0; errors && i < hosts->n; i++)
		free(errors[i]);
	free(results);
	free(errors);
	return rc;
}
