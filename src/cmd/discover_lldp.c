// SPDX-License-Identifier: GPL-2.0-or-later
/* discover --lldp --hosts: every node's LLDP view through the fleet layer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/discover_lldp.h"
#include "fleet/fleet.h"
#include "model/hosts.h"
#include "model/lldp_view.h"
#include "util/file.h"
#include "util/log.h"

#define HOSTS_FILE_MAX_BYTES (16u << 20)

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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *host_label_find(const struct fab_host *h, const char *key)
{
	for (size_t i = 0; i < h->n_labels; i++)
		if (strcmp(h->labels[i].key, key) == 0)
			return h->labels[i].value;
	return NULL;
}

struct lldp_call {
	long long *ids;			/* request id per worker, -1 when answered */
	json_t **results;
	char **errors;
	size_t pending;
};

static void lldp_call_msg(struct fleet *f, size_t i, struct proto_msg *m, void *arg)
{
	struct lldp_call *c = arg;

	if (c->ids[i] < 0)
		return;
	if (!m) {
		c->errors[i] = strdup(f->w[i].reason);
	} else if (m->kind == PROTO_EVENT) {
		return;
	} else if (m->kind != PROTO_REPLY || m->id != c->ids[i]) {
		fleet_kill(f, i, "sent an unexpected message (id %lld)", m->id);
		c->errors[i] = strdup(f->w[i].reason);
	} else if (!m->ok) {
		c->errors[i] = strdup(m->error ? m->error : "failed");
	} else {
		c->results[i] = json_incref(m->result);
		if (!c->results[i])
			c->errors[i] = strdup("empty lldp result");
	}
	c->ids[i] = -1;
	c->pending--;
}

/* Send each live worker its own request, collect the answers. */
static int lldp_call(struct fleet *f, const struct discover_lldp_fleet *o, int timeout_ms,
		     struct lldp_call *c, struct fab_err *err)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct fab_host *h = f->w[i].host;
		const char *sock = host_label_find(h, "lldp_socket");
		char path[4096];
		json_t *req;

		c->ids[i] = -1;
		if (f->w[i].dead) {
			c->errors[i] = strdup(f->w[i].reason);
			continue;
		}
		if (o->socket) {
			if (socket_expand(o->socket, h->name, path, sizeof(path)) < 0)
				return fab_err_input(err, -ENAMETOOLONG, "--lldp-socket: too long for %s",
						     h->name);
			sock = path;
		}
		req = json_pack("{s:s, s:o}", "op", "lldp", "socket",
				sock ? json_string(sock) : json_null());
		if (!req)
			return fab_err_set(err, -ENOMEM, "lldp: out of memory");
		if (fleet_send(f, i, req, &c->ids[i]) < 0) {
			c->ids[i] = -1;
			c->errors[i] = strdup(f->w[i].reason);
			continue;
		}
		c->pending++;
	}
	if (c->pending) {
		/* fleet_poll hands over what arrives; loop until all answered or timed out. */
		long long deadline = now_ms() + timeout_ms;

		while (c->pending) {
			long long left = deadline - now_ms();
			int rc;

			if (left <= 0)
				break;
			rc = fleet_poll(f, (int)left, lldp_call_msg, c);
			if (rc < 0)
				return fab_err_set(err, rc, "fleet: poll failed");
		}
		for (size_t i = 0; i < f->n; i++)
			if (c->ids[i] >= 0) {
				fleet_kill(f, i, "no answer to lldp within %d ms", timeout_ms);
				c->errors[i] = strdup(f->w[i].reason);
				c->ids[i] = -1;
			}
	}
	return 0;
}

int discover_lldp_fleet_read(struct fab_ctx *ctx, const struct discover_lldp_fleet *o,
			     struct topo *t)
{
	struct fleet_opts fo = {
		.launcher = o->launcher ? o->launcher : "ssh",
		.verbose = fab_log_level,
		.hello_timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 20000,
	};
	struct lldp_call c = { .pending = 0 };
	struct fab_hosts hosts;
	struct fleet f = { .n = 0 };
	char failed[768] = "";
	size_t n_failed = 0;
	unsigned int conflicts = 0;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	hosts_init(&hosts);
	rc = file_read_all(o->hosts_file, HOSTS_FILE_MAX_BYTES, &buf, &len, &ctx->err);
	if (rc < 0)
		goto out;
	rc = hosts_parse(&hosts, buf, len, o->hosts_file, &ctx->err);
	if (rc < 0)
		goto out;
	if (!hosts.n) {
		rc = fab_err_input(&ctx->err, -EINVAL, "%s: no hosts", o->hosts_file);
		goto out;
	}
	c.ids = calloc(hosts.n, sizeof(*c.ids));
	c.results = calloc(hosts.n, sizeof(*c.results));
	c.errors = calloc(hosts.n, sizeof(*c.errors));
	if (!c.ids || !c.results || !c.errors) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "lldp: out of memory");
		goto out;
	}
	rc = fleet_start(&f, &hosts, &fo, &ctx->err);
	if (rc < 0)
		goto out;
	rc = lldp_call(&f, o, fo.hello_timeout_ms, &c, &ctx->err);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < hosts.n; i++) {
		struct lldp_view v;
		struct fab_err verr;

		fab_err_init(&verr);
		lldp_view_init(&v);
		if (c.results[i] && lldp_view_from_json(&v, c.results[i], &verr) < 0) {
			c.errors[i] = strdup(verr.msg);
		} else if (c.results[i]) {
			rc = lldp_view_merge(t, &v, &conflicts);
			if (rc < 0) {
				lldp_view_fini(&v);
				fab_err_set(&ctx->err, rc, "lldp: out of memory");
				goto out;
			}
			fab_info("lldp: %s: %zu ports", hosts.hosts[i].name, v.n_ports);
		}
		lldp_view_fini(&v);
		if (!c.results[i] || c.errors[i]) {
			size_t off = strlen(failed);

			n_failed++;
			fab_warn("discover: %s: %s", hosts.hosts[i].name,
				 c.errors[i] ? c.errors[i] : "no answer");
			if (off < sizeof(failed) - 1)
				snprintf(failed + off, sizeof(failed) - off, "%s%s", off ? ", " : "",
					 hosts.hosts[i].name);
		}
	}
	if (conflicts)
		fab_warn("discover: %u LLDP neighbor entries conflict with others (stale or shared ports)",
			 conflicts);
	t->src |= TOPO_SRC_LLDP;
	rc = 0;
	if (n_failed)
		rc = fab_err_set(&ctx->err, -EHOSTUNREACH, "lldp: %zu of %zu nodes failed: %s",
				 n_failed, hosts.n, failed);
out:
	if (f.w)
		fleet_fini(&f);
	for (size_t i = 0; c.results && i < hosts.n; i++)
		json_decref(c.results[i]);
	for (size_t i = 0; c.errors && i < hosts.n; i++)
		free(c.errors[i]);
	free(c.ids);
	free(c.results);
	free(c.errors);
	hosts_fini(&hosts);
	free(buf);
	return rc;
}

json_t *discover_lldp_worker_op(struct sys *sys, const json_t *req, struct fab_err *err)
{
	const json_t *s = json_object_get(req, "socket");
	struct lldp_view v;
	json_t *res = NULL;

	if (s && !json_is_null(s) && !json_is_string(s)) {
		fab_err_input(err, -EINVAL, "lldp: socket: not a string");
		return NULL;
	}
	if (!sys->ops->lldp_read) {
		fab_err_set(err, -EOPNOTSUPP, "lldp: not supported by %s", sys->ops->name);
		return NULL;
	}
	lldp_view_init(&v);
	if (sys->ops->lldp_read(sys, json_is_string(s) ? json_string_value(s) : NULL, &v, err) == 0) {
		res = lldp_view_to_json(&v);
		if (!res)
			fab_err_set(err, -ENOMEM, "lldp: out of memory");
	}
	lldp_view_fini(&v);
	return res;
}
