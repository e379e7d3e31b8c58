// SPDX-License-Identifier: GPL-2.0-or-later
/* One worker's "bond" op; see fleet_bond.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_bond.h"
#include "fleet/proto_bond.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/str.h"

struct bond_call {
	size_t i;
	long long id;
	bool done;
	json_t *result;		/* new reference when ok */
	char error[256];
};

static void bond_msg(struct fleet *f, size_t i, struct proto_msg *m, void *arg)
{
	struct bond_call *c = arg;

	if (i != c->i || c->done)
		return;
	if (!m) {
		snprintf(c->error, sizeof(c->error), "%s", f->w[i].reason);
		c->done = true;
	} else if (m->kind == PROTO_REPLY && m->id == c->id) {
		if (m->ok)
			c->result = m->result ? json_incref(m->result) : json_object();
		else
			snprintf(c->error, sizeof(c->error), "%s", m->error ? m->error : "failed");
		c->done = true;
	}
}

int fleet_bond_snap(struct fleet *f, size_t i, int timeout_ms, struct bond_snap *out,
		    struct fab_err *err)
{
	const struct fab_host *h = f->w[i].host;
	struct bond_call c = { .i = i };
	uint64_t deadline = clock_mono_ms() + (uint64_t)timeout_ms;
	json_t *req = proto_bond_req(h->addr, hosts_label(h, "ifname"));
	int rc;

	if (!req)
		return fab_err_set(err, -ENOMEM, "fleet: out of memory");
	if (f->w[i].dead || fleet_send(f, i, req, &c.id) < 0)
		return fab_err_set(err, -EPIPE, "bond: %s: %s", h->name, f->w[i].reason);
	while (!c.done) {
		uint64_t now = clock_mono_ms();

		if (now >= deadline)
			return fab_err_set(err, -ETIMEDOUT, "bond: %s: no answer within %d ms",
					   h->name, timeout_ms);
		rc = fleet_poll(f, (int)(deadline - now), bond_msg, &c);
		if (rc < 0)
			return fab_err_set(err, rc, "fleet: %s", strerror(-rc));
	}
	if (!c.result)
		return fab_err_set(err, -EIO, "bond: %s: %s", h->name, c.error);
	rc = proto_bond_from_json(c.result, out, err);
	json_decref(c.result);
	return rc;
}

static json_t *bond_req(const struct fab_host *h, const void *arg, struct fab_err *err)
{
	(void)arg;
	(void)err;
	return proto_bond_req(h->addr, hosts_label(h, "ifname"));
}

int fleet_bond_snap_all(struct fleet *f, int timeout_ms, struct bond_snap *out, bool *have,
			char (*why_out)[FLEET_BOND_WHY_LEN], struct fab_err *err)
{
	json_t **res = calloc(f->n ? f->n : 1, sizeof(*res));
	char **why = calloc(f->n ? f->n : 1, sizeof(*why));
	bool keep;
	int rc;

	if (!res || !why) {
		free(res);
		free(why);
		return fab_err_set(err, -ENOMEM, "fleet: out of memory");
	}
	/* no "bond: N of M nodes answered" line: a sweep without bonds shows nothing new */
	keep = f->progress;
	f->progress = false;
	rc = fleet_call_all(f, bond_req, NULL, timeout_ms, res, why, err);
	f->progress = keep;
	for (size_t i = 0; i < f->n; i++) {
		struct fab_err e;
		const char *reason;

		fab_err_init(&e);
		have[i] = rc == 0 && res[i] && proto_bond_from_json(res[i], &out[i], &e) == 0;
		reason = have[i] || rc < 0 ? "" : res[i] ? e.msg : why[i] ? why[i] : "no answer";
		if (why_out)
			str_fmt(why_out[i], FLEET_BOND_WHY_LEN, "%s", reason);
		if (reason[0])
			fab_debug("bond: %s: %s", f->w[i].host->name, reason);
		json_decref(res[i]);
		free(why[i]);
	}
	free(res);
	free(why);
	return rc;
}
