// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The change set's pending state as JSON (changeset.h "Pending-state
 * (de)serialization"): "fabricctl.pending/2" written by
 * changeset_undo_to_json() and read back by changeset_undo_from_json(),
 * with jansson.  Pure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model/changeset.h"
#include "util/array.h"
#include "util/str.h"

/* A step read back from the pending state: @a as its undo (when @has_undo), act marked FAIL. */
static int undo_step_add(struct changeset *cs, const struct change_action *a, bool has_undo)
{
	struct change_step *s = array_add((void **)&cs->steps, &cs->n_steps, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->act = *a;
	s->act.op = CHANGE_FAIL;
	if (has_undo) {
		s->undo = *a;
		s->has_undo = true;
		str_fmt(s->object, sizeof(s->object), "%s", a->obj);
		str_fmt(s->field, sizeof(s->field), "%s", change_op_name(a->op));
	}
	return 0;
}

/* ---- pending state as JSON ---- */

static json_t *u8_array(const uint8_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *u64_array(const uint64_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

static json_t *action_to_json_v1(const struct change_action *a);

/* The DCB parts added after pending/2 was first written: read back as optional. */
static json_t *action_dcb2_json(const struct change_action *a)
{
	uint64_t size[FAB_DCB_NBUF];

	for (size_t i = 0; i < FAB_DCB_NBUF; i++)
		size[i] = a->buffer.buffer_size[i];
	return json_pack("{s:o, s:{s:o, s:o, s:I}}", "maxrate", u64_array(a->maxrate, 8),
			 "buffer", "prio_buffer", u8_array(a->buffer.prio2buffer, 8),
			 "size", u64_array(size, 8), "total", (json_int_t)a->buffer.total_size);
}

static json_t *action_to_json(const struct change_action *a)
{
	json_t *j = action_to_json_v1(a);

	if (j && (a->op == CHANGE_MAXRATE_SET || a->op == CHANGE_BUFFER_SET) &&
	    json_object_update_new(j, action_dcb2_json(a)) < 0) {
		json_decref(j);
		return NULL;
	}
	if (j && a->op == CHANGE_DCQCN_SET &&
	    json_object_set_new(j, "val", json_integer((json_int_t)a->val)) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *action_to_json_v1(const struct change_action *a)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:i, s:b, s:i, s:s,"
			 " s:{s:i, s:i, s:i}, s:{s:b, s:o, s:o, s:o},"
			 " s:{s:i, s:i, s:i}, s:o,"
			 " s:{s:s, s:i, s:i, s:i, s:i, s:i}}",
			 "op", change_op_name(a->op), "obj", a->obj, "arg", a->arg,
			 "u", (json_int_t)a->u, "port", (json_int_t)a->port, "point", a->point,
			 "on", a->on, "errno", a->errno_, "msg", a->msg,
			 "pfc", "pfc_en", a->pfc.pfc_en, "mbc", a->pfc.mbc, "delay", a->pfc.delay_bits,
			 "ets", "willing", a->ets.willing, "prio_tc", u8_array(a->ets.prio_tc, 8),
			 "tc_bw", u8_array(a->ets.tc_tx_bw_pct, 8), "tsa", u8_array(a->ets.tc_tsa, 8),
			 "app", "selector", a->app.selector, "protocol", a->app.protocol,
			 "priority", a->app.priority,
			 "trust", u8_array(a->trust, a->n_trust),
			 "bond", "name", a->bond.name, "mode", a->bond.mode, "miimon", a->bond.miimon_ms,
			 "lacp_rate", a->bond.lacp_rate, "xmit_hash_policy", a->bond.xmit_hash_policy,
			 "min_links", a->bond.min_links);
}

char *changeset_undo_to_json(const struct changeset *cs, size_t n_done, const struct change_pending *pp)
{
	json_t *doc, *undo;
	char *s = NULL;

	undo = json_array();
	if (!undo)
		return NULL;
	for (size_t i = 0; i < n_done && i < cs->n_steps; i++) {
		const struct change_step *st = &cs->steps[i];
		json_t *a = st->has_undo ? action_to_json(&st->undo) : json_null();

		if (!a || json_array_append_new(undo, a) < 0) {
			json_decref(undo);
			return NULL;
		}
	}
	doc = json_pack("{s:s, s:s, s:i, s:I, s:I, s:i, s:I, s:o}", "schema", "fabricctl.pending/2",
			"state", pp->applying ? "applying" : "try", "owner", pp->owner,
			"started", (json_int_t)(pp->applying ? pp->started : json_array_size(undo)),
			"deadline", (json_int_t)pp->deadline, "pid", pp->pid,
			"pid_start", (json_int_t)pp->pid_start, "undo", undo);
	if (doc)
		s = json_dumps(doc, JSON_PRESERVE_ORDER | JSON_INDENT(1));
	json_decref(doc);
	return s;
}

static int u8_from(json_t *arr, uint8_t *out, size_t max, size_t *n, unsigned int hi)
{
	size_t i;
	json_t *v;

	if (!json_is_array(arr) || json_array_size(arr) > max)
		return -1;
	json_array_foreach(arr, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > (json_int_t)hi)
			return -1;
		out[i] = (uint8_t)json_integer_value(v);
	}
	if (n)
		*n = json_array_size(arr);
	else if (json_array_size(arr) != max)
		return -1;
	return 0;
}

static int u64_from(json_t *arr, uint64_t *out, uint64_t hi)
{
	size_t i;
	json_t *v;

	if (!json_is_array(arr) || json_array_size(arr) != 8)
		return -1;
	json_array_foreach(arr, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    (uint64_t)json_integer_value(v) > hi)
			return -1;
		out[i] = (uint64_t)json_integer_value(v);
	}
	return 0;
}

/* maxrate and buffer: present exactly for their own actions. */
static int action_dcb2_from_json(struct change_action *a, json_t *maxrate, json_t *buffer)
{
	uint64_t size[FAB_DCB_NBUF];
	json_int_t total;
	json_t *prio, *sz;
	json_error_t je;

	if ((a->op == CHANGE_MAXRATE_SET || a->op == CHANGE_BUFFER_SET) != (maxrate && buffer))
		return -1;
	if (!maxrate)
		return 0;
	if (u64_from(maxrate, a->maxrate, INT64_MAX) < 0 ||
	    json_unpack_ex(buffer, &je, JSON_STRICT, "{s:o, s:o, s:I}", "prio_buffer", &prio,
			   "size", &sz, "total", &total) < 0 ||
	    u8_from(prio, a->buffer.prio2buffer, 8, NULL, 7) < 0 ||
	    u64_from(sz, size, UINT32_MAX) < 0 || total < 0 || total > (json_int_t)UINT32_MAX)
		return -1;
	for (size_t i = 0; i < FAB_DCB_NBUF; i++)
		a->buffer.buffer_size[i] = (uint32_t)size[i];
	a->buffer.total_size = (uint32_t)total;
	return 0;
}

static int action_from_json(json_t *j, struct change_action *a)
{
	const char *op, *obj, *arg, *msg, *bname;
	json_int_t u, port;
	int point, on, errno_, pfc_en, mbc, delay, willing, sel, proto, prio;
	int mode, miimon, lacp, xmit, minl;
	json_t *prio_tc, *tc_bw, *tsa, *trust, *maxrate = NULL, *buffer = NULL;
	json_int_t val = -1;
	json_error_t je;

	if (json_unpack_ex(j, &je, JSON_STRICT,
			   "{s:s, s:s, s:s, s:I, s:I, s:i, s:b, s:i, s:s,"
			   " s:{s:i, s:i, s:i}, s:{s:b, s:o, s:o, s:o},"
			   " s:{s:i, s:i, s:i}, s:o,"
			   " s:{s:s, s:i, s:i, s:i, s:i, s:i}, s?o, s?o, s?I}",
			   "op", &op, "obj", &obj, "arg", &arg, "u", &u, "port", &port,
			   "point", &point, "on", &on, "errno", &errno_, "msg", &msg,
			   "pfc", "pfc_en", &pfc_en, "mbc", &mbc, "delay", &delay,
			   "ets", "willing", &willing, "prio_tc", &prio_tc, "tc_bw", &tc_bw, "tsa", &tsa,
			   "app", "selector", &sel, "protocol", &proto, "priority", &prio,
			   "trust", &trust,
			   "bond", "name", &bname, "mode", &mode, "miimon", &miimon,
			   "lacp_rate", &lacp, "xmit_hash_policy", &xmit, "min_links", &minl,
			   "maxrate", &maxrate, "buffer", &buffer, "val", &val) < 0)
		return -1;
	memset(a, 0, sizeof(*a));
	if (change_op_parse(op) < 0)
		return -1;
	a->op = (enum change_op)change_op_parse(op);
	if (a->op == CHANGE_FAIL)
		return -1;
	if (strlen(obj) >= sizeof(a->obj) || strlen(arg) >= sizeof(a->arg) ||
	    strlen(msg) >= sizeof(a->msg) || strlen(bname) >= sizeof(a->bond.name))
		return -1;
	if (u < 0 || u > 65535 || port < 0 || port > 255 || point < 0 || point > 1 ||
	    pfc_en < 0 || pfc_en > 255 || mbc < 0 || mbc > 255 || delay < 0 || delay > 65535 ||
	    sel < 0 || sel > 255 || proto < 0 || proto > 65535 || prio < 0 || prio > 7 ||
	    mode < -1 || mode > 6 || miimon < -1 || lacp < -1 || lacp > 1 || xmit < -1 ||
	    xmit > 5 || minl < -1)
		return -1;
	str_fmt(a->obj, sizeof(a->obj), "%s", obj);
	str_fmt(a->arg, sizeof(a->arg), "%s", arg);
	str_fmt(a->msg, sizeof(a->msg), "%s", msg);
	a->u = (unsigned int)u;
	a->port = (unsigned int)port;
	a->point = (enum fab_ecn_point)point;
	a->on = on;
	a->errno_ = errno_;
	a->pfc.pfc_en = (uint8_t)pfc_en;
	a->pfc.mbc = (uint8_t)mbc;
	a->pfc.delay_bits = (uint16_t)delay;
	a->ets.willing = willing;
	if (u8_from(prio_tc, a->ets.prio_tc, 8, NULL, 7) < 0 ||
	    u8_from(tc_bw, a->ets.tc_tx_bw_pct, 8, NULL, 100) < 0 ||
	    u8_from(tsa, a->ets.tc_tsa, 8, NULL, 255) < 0 ||
	    u8_from(trust, a->trust, FAB_DCB_TRUST_MAX, &a->n_trust, 255) < 0)
		return -1;
	a->app.selector = (uint8_t)sel;
	a->app.protocol = (uint16_t)proto;
	a->app.priority = (uint8_t)prio;
	fab_bond_init(&a->bond);
	str_fmt(a->bond.name, sizeof(a->bond.name), "%s", bname);
	a->bond.mode = mode;
	a->bond.miimon_ms = miimon;
	a->bond.lacp_rate = lacp;
	a->bond.xmit_hash_policy = xmit;
	a->bond.min_links = minl;
	if ((a->op == CHANGE_DCQCN_SET) != (val >= 0) || val > (json_int_t)UINT32_MAX ||
	    (a->op == CHANGE_DCQCN_SET && a->port >= DCQCN_N))
		return -1;
	if (val >= 0)
		a->val = (uint32_t)val;
	return action_dcb2_from_json(a, maxrate, buffer);
}

int changeset_undo_from_json(const char *name, const char *text, size_t len, struct changeset *cs,
			struct change_pending *pp, struct fab_err *err)
{
	json_error_t je;
	json_t *doc, *undo, *v;
	const char *schema, *state = "try";
	json_int_t deadline, start = 0, started = -1;
	size_t i;
	int rc = 0, p, owner = 0;

	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return fab_err_input(err, -EINVAL, "%s:%d:%d: %s", name, je.line, je.column, je.text);
	if (json_unpack_ex(doc, &je, JSON_STRICT, "{s:s, s?s, s?i, s?I, s:I, s:i, s?I, s:o}",
			   "schema", &schema, "state", &state, "owner", &owner, "started", &started,
			   "deadline", &deadline, "pid", &p, "pid_start", &start, "undo", &undo) < 0 ||
	    (strcmp(schema, "fabricctl.pending/2") && strcmp(schema, "fabricctl.pending/1")) ||
	    (strcmp(state, "try") && strcmp(state, "applying")) || !json_is_array(undo) ||
	    p < 0 || start < 0 || owner < 0 || started < -1 ||
	    started > (json_int_t)json_array_size(undo)) {
		rc = fab_err_input(err, -EINVAL, "%s: not a fabricctl.pending/2 document", name);
		goto out;
	}
	if (started < 0)
		started = (json_int_t)json_array_size(undo);
	json_array_foreach(undo, i, v) {
		struct change_action a;

		if ((json_int_t)i >= started)
			break;

		if (json_is_null(v)) {
			memset(&a, 0, sizeof(a));
			a.op = CHANGE_FAIL;
			rc = undo_step_add(cs, &a, false);
		} else if (action_from_json(v, &a) < 0) {
			rc = fab_err_input(err, -EINVAL, "%s: undo[%zu]: malformed action", name, i);
			goto out;
		} else {
			rc = undo_step_add(cs, &a, true);
		}
		if (rc < 0) {
			rc = fab_err_set(err, rc, "%s: out of memory", name);
			goto out;
		}
	}
	pp->applying = !strcmp(state, "applying");
	pp->started = (size_t)started;
	pp->owner = owner;
	pp->deadline = deadline;
	pp->pid = p;
	pp->pid_start = (unsigned long long)start;
out:
	json_decref(doc);
	return rc;
}
