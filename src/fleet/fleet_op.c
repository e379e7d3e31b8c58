// SPDX-License-Identifier: GPL-2.0-or-later
/* One op on every node, its answers checked and merged.  See fleet_op.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet/fleet_op.h"
#include "model/optics_wire.h"
#include "util/array.h"
#include "util/log.h"

struct op_req {
	const char *op;
	const json_t *params;
};

/* The same request for every node: {"op": op} plus the params' members. */
static json_t *op_req(const struct fab_host *host, const void *arg, struct fab_err *err)
{
	const struct op_req *r = arg;
	json_t *req = r->params ? json_deep_copy(r->params) : json_object();

	if (req && json_object_set_new(req, "op", json_string(r->op)) < 0) {
		json_decref(req);
		req = NULL;
	}
	return req;
}

/* ---- the answers ---- */

void fleet_run_init(struct fleet_run *run, const char *op)
{
	*run = (struct fleet_run){ .op = op };
}

void fleet_run_fini(struct fleet_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		json_decref(run->nodes[i].doc);
		free(run->nodes[i].error);
	}
	free(run->nodes);
	fleet_run_init(run, run->op);
}

int fleet_run_add(struct fleet_run *run, const char *node, const char *addr, json_t *doc,
		  const char *error)
{
	bool say = error || !doc;
	char *e = say ? strdup(error ? error : "no answer") : NULL;
	struct fleet_answer *a = NULL;

	if (!say || e)
		a = array_add((void **)&run->nodes, &run->n, sizeof(*a));
	if (!a) {
		free(e);
		json_decref(doc);
		return -ENOMEM;
	}
	*a = (struct fleet_answer){ .node = node, .addr = addr, .ok = doc != NULL, .doc = doc,
				    .error = e };
	run->n_failed += !a->ok;
	return 0;
}

int fleet_run_fail(struct fleet_run *run, size_t i, const char *why, const char *what,
		   bool drop)
{
	struct fleet_answer *a = &run->nodes[i];
	char *e;

	if (asprintf(&e, "%s%s", why, what) < 0)
		return -ENOMEM;
	free(a->error);
	a->error = e;
	if (drop) {
		json_decref(a->doc);
		a->doc = NULL;
	}
	if (a->ok)
		run->n_failed++;
	a->ok = false;
	return 0;
}

/* results[i] (stolen) and errors[i] of fleet_call_all() into @run. */
static int run_collect(struct fleet_run *run, const struct fab_hosts *hosts, json_t **results,
		       char **errors)
{
	for (size_t i = 0; i < hosts->n; i++) {
		const struct fab_host *h = &hosts->hosts[i];
		json_t *doc = results[i];

		results[i] = NULL;
		if (fleet_run_add(run, h->name, h->addr, doc, errors[i]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int fleet_op_run(const struct fab_hosts *hosts, const struct fleet_opts *o, const char *op,
		 const json_t *params, int timeout_ms, struct fleet_run *run,
		 struct fab_err *err)
{
	json_t **results = calloc(hosts->n ? hosts->n : 1, sizeof(*results));
	char **errors = calloc(hosts->n ? hosts->n : 1, sizeof(*errors));
	const struct fab_hosts *ports = run->ports;	/* the caller's, kept */
	struct fleet f = { 0 };
	int rc;

	fleet_run_init(run, op);
	run->ports = ports;
	if (!results || !errors) {
		rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
		goto out;
	}
	rc = fleet_launcher_check(o, hosts, err);
	if (rc == 0)
		rc = fleet_start(&f, hosts, o, err);
	if (rc == 0)
		rc = fleet_call_all(&f, op_req, &(struct op_req){ op, params }, timeout_ms, results,
				    errors, err);
	if (rc == 0 && run_collect(run, hosts, results, errors) < 0)
		rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
out:
	fleet_fini(&f);
	for (size_t i = 0; results && errors && i < hosts->n; i++) {
		json_decref(results[i]);
		free(errors[i]);
	}
	free(results);
	free(errors);
	return rc;
}

/* ---- up-front checks ---- */

static bool is_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* execvp()'s search: PATH (an empty entry is the current directory), else /bin:/usr/bin. */
static bool prog_found(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return is_exec_file(prog);
	if (!path || !*path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		size_t len = strcspn(p, ":");

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p, len ? "/" : "",
			     prog) < (int)sizeof(buf) && is_exec_file(buf))
			return true;
		p += len;
		if (!*p)
			return false;
	}
}

int fleet_launcher_check(const struct fleet_opts *o, const struct fab_hosts *hosts,
			 struct fab_err *err)
{
	char **argv = NULL;
	int rc;

	if (!hosts->n)
		return 0;
	rc = fleet_launcher_argv(o, hosts_node(&hosts->hosts[0]), &argv, err);
	if (rc < 0)
		return rc;
	if (!prog_found(argv[0]))
		rc = fab_err_input(err, -ENOENT, "launcher '%s': %s: %s", o->launcher, argv[0],
				   strchr(argv[0], '/') ? "not an executable file"
						       : "command not found in PATH");
	fleet_argv_free(argv);
	return rc;
}

static json_t *status_req(const struct fab_host *host, const void *arg, struct fab_err *err)
{
	return json_pack("{s:s}", "op", "status");
}

/* fleet_call_all() into arrays of its own: *@results and *@errors (f->n each) for call_free(). */
static int call_each(struct fleet *f, fleet_req_fn req_fn, const void *arg, int timeout_ms,
		     json_t ***results, char ***errors, struct fab_err *err)
{
	*results = calloc(f->n ? f->n : 1, sizeof(**results));
	*errors = calloc(f->n ? f->n : 1, sizeof(**errors));
	if (!*results || !*errors)
		return fab_err_set(err, -ENOMEM, "fleet: out of memory");
	return fleet_call_all(f, req_fn, arg, timeout_ms, *results, *errors, err);
}

static void call_free(const struct fleet *f, json_t **results, char **errors)
{
	for (size_t i = 0; results && errors && i < f->n; i++) {
		json_decref(results[i]);
		free(errors[i]);
	}
	free(results);
	free(errors);
}

static bool has_string(const json_t *arr, const char *s)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

/* What keeps @h from a verbs test, from its hello and status; false when nothing. */
static bool rdma_problem(const struct fab_host *h, const json_t *hello, const json_t *st,
			 char *buf, size_t len)
{
	const json_t *rdma = json_object_get(st, "rdma"), *d, *dev = NULL, *p;
	unsigned int port = h->rdma_port ? h->rdma_port : 1;
	char names[256] = "";
	size_t i, o = 0;

	if (!has_string(json_object_get(hello, "transports"), "verbs")) {
		snprintf(buf, len, "its fabricctl is built without verbs");
		return true;
	}
	if (!json_array_size(rdma)) {
		snprintf(buf, len, "no RDMA device");
		return true;
	}
	json_array_foreach(rdma, i, d) {
		const char *name = json_string_value(json_object_get(d, "name"));

		if (!name)
			continue;
		if (o < sizeof(names))
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "", name);
		if (strcmp(name, h->rdma) == 0)
			dev = d;
	}
	if (!*h->rdma) {
		snprintf(buf, len, "no rdma=DEV on line %u of the hosts file (it has %s)", h->line, names);
		return true;
	}
	if (!dev) {
		snprintf(buf, len, "no RDMA device %s (it has %s)", h->rdma, names);
		return true;
	}
	json_array_foreach(json_object_get(dev, "ports"), i, p)
		if (json_integer_value(json_object_get(p, "port")) == (json_int_t)port)
			return false;
	snprintf(buf, len, "%s has no port %u", h->rdma, port);
	return true;
}

int fleet_rdma_judge(const struct fleet *f, json_t *const *status, struct fab_err *err)
{
	char msg[sizeof(err->msg) - 128] = "", why[160], more[32] = "";
	size_t bad = 0, none = 0, o = 0, listed = 0;

	for (size_t i = 0; i < f->n; i++) {
		if (!status[i] || !rdma_problem(f->w[i].host, f->w[i].hello, status[i], why,
						sizeof(why)))
			continue;
		bad++;
		none += strcmp(why, "no RDMA device") == 0;
		if (listed < 4 && o < sizeof(msg)) {
			o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s%s: %s", o ? "; " : "",
					      f->w[i].host->name, why);
			listed++;
		}
	}
	if (!bad)
		return 0;
	if (bad > listed)
		snprintf(more, sizeof(more), "; and %zu more", bad - listed);
	return fab_err_input(err, -ENODEV, "--transport verbs: %zu of %zu node%s cannot run it: %s%s%s",
			     bad, f->n, f->n == 1 ? "" : "s", msg, more,
			     none == f->n ? " (sweep these nodes with --transport tcp)" : "");
}

int fleet_rdma_check(struct fleet *f, int timeout_ms, struct fab_err *err)
{
	json_t **results = NULL;
	char **errors = NULL;
	int rc;

	rc = call_each(f, status_req, NULL, timeout_ms, &results, &errors, err);
	/* A node that did not answer fails its pairs in the sweep, with its reason. */
	if (rc == 0)
		rc = fleet_rdma_judge(f, results, err);
	call_free(f, results, errors);
	return rc;
}

/* ---- counters: every node's Ethernet / RoCE counters ---- */

/*
 * {"op": "counters", "addr", "ifname" (label ifname=), "rdma", "rdma_port"};
 * @arg non-NULL: without the rdma= device (only the interface is wanted:
 * a device the node lacks would fail the whole read).
 */
static json_t *counters_req(const struct fab_host *h, const void *arg, struct fab_err *err)
{
	const char *ifname = hosts_label(h, "ifname");
	bool rdma = !arg && h->rdma[0];

	(void)err;
	return json_pack("{s:s, s:s, s:o, s:o, s:I}", "op", "counters", "addr", h->addr,
			 "ifname", ifname ? json_string(ifname) : json_null(),
			 "rdma", rdma ? json_string(h->rdma) : json_null(),
			 "rdma_port", (json_int_t)(rdma ? h->rdma_port : 0));
}

int fleet_counters_read(struct fleet *f, int timeout_ms, struct nic_counters *out, bool *got,
			struct fab_err *err)
{
	json_t **results = NULL;
	char **errors = NULL;
	int rc;

	rc = call_each(f, counters_req, NULL, timeout_ms, &results, &errors, err);
	for (size_t i = 0; rc == 0 && i < f->n; i++) {
		struct fab_err e;

		fab_err_init(&e);
		got[i] = false;
		if (!results[i]) {
			fab_warn("counters: %s: %s", f->w[i].host->name,
				 errors[i] ? errors[i] : "no answer");
			continue;
		}
		if (nic_counters_from_json(&out[i], results[i], &e) < 0) {
			if (e.code == -ENOMEM) {
				rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
				break;
			}
			fab_warn("counters: %s: %s", f->w[i].host->name, e.msg);
			nic_counters_fini(&out[i]);
			continue;
		}
		got[i] = true;
	}
	call_free(f, results, errors);
	return rc;
}

/* ---- modules and links, raw from each node, decoded here ---- */

static json_t *optics_req(const struct fab_host *h, const void *arg, struct fab_err *err)
{
	const char *ifname = hosts_label(h, "ifname");

	(void)arg;
	(void)err;
	return json_pack("{s:s, s:o}", "op", "optics",
			 "ifnames", ifname ? json_pack("[s]", ifname) : json_null());
}

/* Worker @i's ports into @out; -EPROTO (@e) for an answer that cannot be read. */
static int optics_ports(const json_t *result, struct optics_set *out, struct fab_err *e)
{
	const json_t *ports = json_object_get(result, "ports"), *v;
	size_t i;

	if (!json_is_array(ports))
		return fab_err_set(e, -EPROTO, "optics: no \"ports\" array");
	json_array_foreach(ports, i, v) {
		struct optics_port *p = optics_set_add(out, "");

		if (!p)
			return fab_err_set(e, -ENOMEM, "fleet: out of memory");
		if (optics_wire_from_json(v, p, e) < 0)
			return e->code;
	}
	return 0;
}

int fleet_optics_read(struct fleet *f, int timeout_ms, struct optics_set *out, bool *got,
		      struct fab_err *err)
{
	json_t **results = NULL;
	char **errors = NULL;
	int rc;

	rc = call_each(f, optics_req, NULL, timeout_ms, &results, &errors, err);
	for (size_t i = 0; rc == 0 && i < f->n; i++) {
		struct fab_err e;

		fab_err_init(&e);
		got[i] = false;
		if (!results[i]) {
			fab_warn("optics: %s: %s", f->w[i].host->name,
				 errors[i] ? errors[i] : "no answer");
			continue;
		}
		if (optics_ports(results[i], &out[i], &e) < 0) {
			if (e.code == -ENOMEM) {
				rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
				break;
			}
			fab_warn("optics: %s: %s", f->w[i].host->name, e.msg);
			optics_set_fini(&out[i]);
			continue;
		}
		got[i] = true;
	}
	call_free(f, results, errors);
	return rc;
}

/* ---- accept's reach stage: every node's ports and its data-path interface ---- */

void fleet_ports_fini(struct fleet_ports *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		host_state_fini(&p[i].hs);
}

/* Worker @i's status into out->hs, or out->why. */
static int ports_status(struct fleet_ports *out, json_t *result, const char *error)
{
	struct fab_err e;

	fab_err_init(&e);
	if (!result) {
		snprintf(out->why, sizeof(out->why), "status: %s", error ? error : "no answer");
		return 0;
	}
	if (proto_status_from_json(result, &out->hs, &e) < 0) {
		host_state_fini(&out->hs);
		host_state_init(&out->hs);
		if (e.code == -ENOMEM)
			return -ENOMEM;
		snprintf(out->why, sizeof(out->why), "%.255s", e.msg);
		return 0;
	}
	out->got = true;
	return 0;
}

/* The interface the counters op read, from its answer, or out->why_datapath. */
static void ports_datapath(struct fleet_ports *out, const json_t *result, const char *error)
{
	const char *name = json_string_value(json_object_get(result, "ifname"));

	if (!result)
		snprintf(out->why_datapath, sizeof(out->why_datapath), "%s",
			 error ? error : "no answer");
	else if (!name || !name[0] || strlen(name) >= sizeof(out->datapath))
		snprintf(out->why_datapath, sizeof(out->why_datapath),
			 "counters: the answer names no interface");
	else
		snprintf(out->datapath, sizeof(out->datapath), "%s", name);
}

int fleet_ports_read(struct fleet *f, int timeout_ms, struct fleet_ports *out, struct fab_err *err)
{
	json_t **results = NULL;
	char **errors = NULL;
	int rc;

	for (size_t i = 0; i < f->n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		host_state_init(&out[i].hs);
	}
	rc = call_each(f, status_req, NULL, timeout_ms, &results, &errors, err);
	for (size_t i = 0; rc == 0 && i < f->n; i++)
		if (ports_status(&out[i], results[i], errors[i]) < 0)
			rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
	call_free(f, results, errors);
	results = NULL;
	errors = NULL;
	if (rc == 0)
		rc = call_each(f, counters_req, "no rdma", timeout_ms, &results, &errors, err);
	for (size_t i = 0; rc == 0 && i < f->n; i++)
		ports_datapath(&out[i], results[i], errors[i]);
	call_free(f, results, errors);
	return rc;
}

/* ---- verify --hosts, apply --hosts: checking and merging the node documents ---- */

static bool is_str(const json_t *o, const char *key)
{
	return json_is_string(json_object_get(o, key));
}

/* A node's "fabricctl.verify/1": NULL when well-formed, else what is wrong. */
static const char *verify_doc_check(const json_t *v)
{
	const json_t *drift = json_object_get(v, "drift"), *d, *n = json_object_get(v, "n_drift");
	size_t i;

	if (!json_is_object(v))
		return "not an object";
	if (!json_is_string(json_object_get(v, "schema")) ||
	    strcmp(json_string_value(json_object_get(v, "schema")), "fabricctl.verify/1") != 0)
		return "schema is not \"fabricctl.verify/1\"";
	if (!json_is_array(drift))
		return "\"drift\" is not an array";
	if (!json_is_integer(n) || json_integer_value(n) != (json_int_t)json_array_size(drift))
		return "\"n_drift\" is not the length of \"drift\"";
	if (!json_is_boolean(json_object_get(v, "ok")) ||
	    json_is_true(json_object_get(v, "ok")) != (json_array_size(drift) == 0))
		return "\"ok\" does not agree with \"drift\"";
	json_array_foreach(drift, i, d)
		if (!json_is_object(d) || !is_str(d, "interface") || !is_str(d, "field") ||
		    !is_str(d, "wanted") || !is_str(d, "found"))
			return "a \"drift\" entry lacks interface, field, wanted or found";
	return NULL;
}

/* A node's "fabricctl.apply/1": NULL when well-formed, else what is wrong. */
static const char *apply_doc_check(const json_t *a)
{
	const json_t *steps = json_object_get(a, "steps"), *s, *e = json_object_get(a, "error");
	size_t i;

	if (!json_is_object(a))
		return "not an object";
	if (!json_is_string(json_object_get(a, "schema")) ||
	    strcmp(json_string_value(json_object_get(a, "schema")), "fabricctl.apply/1") != 0)
		return "schema is not \"fabricctl.apply/1\"";
	if (!json_is_array(steps))
		return "\"steps\" is not an array";
	if (!json_is_boolean(json_object_get(a, "ok")) ||
	    !json_is_boolean(json_object_get(a, "dry_run")) ||
	    !json_is_boolean(json_object_get(a, "rolled_back")))
		return "\"ok\", \"dry_run\" or \"rolled_back\" is not a boolean";
	if (!json_is_null(e) && !json_is_string(e))
		return "\"error\" is neither a string nor null";
	if (!json_is_true(json_object_get(a, "ok")) && !json_is_string(e))
		return "a failed apply without an \"error\"";
	json_array_foreach(steps, i, s)
		if (!json_is_object(s) || !is_str(s, "object") || !is_str(s, "field") ||
		    !is_str(s, "from") || !is_str(s, "to") || !is_str(s, "status"))
			return "a \"steps\" entry lacks object, field, from, to or status";
	return NULL;
}

/* A string member @key of @o, copied; NULL: ENOMEM (the checks made sure it is a string). */
static char *dup_member(const json_t *o, const char *key)
{
	return strdup(json_string_value(json_object_get(o, key)));
}

static void drift_fini(struct fleet_drift *d)
{
	free(d->interface);
	free(d->field);
	free(d->wanted);
	free(d->found);
}

int fleet_verify_drift_add(struct fleet_verify *v, const char *node, const char *interface,
			   const char *field, const char *wanted, const char *found)
{
	struct fleet_drift d = { .node = node, .interface = strdup(interface),
				 .field = strdup(field), .wanted = strdup(wanted),
				 .found = strdup(found) }, *e = NULL;

	if (d.interface && d.field && d.wanted && d.found)
		e = array_add((void **)&v->drift, &v->n_drift, sizeof(d));
	if (!e) {
		drift_fini(&d);
		return -ENOMEM;
	}
	*e = d;
	return 0;
}

bool fleet_verify_drifted(const struct fleet_verify *v, const char *node)
{
	for (size_t i = 0; i < v->n_drift; i++)
		if (strcmp(v->drift[i].node, node) == 0)
			return true;
	return false;
}

void fleet_verify_fini(struct fleet_verify *v)
{
	for (size_t i = 0; i < v->n_drift; i++)
		drift_fini(&v->drift[i]);
	free(v->drift);
	v->drift = NULL;
	v->n_drift = 0;
}

/* Node @a's drift entries into @v. */
static int verify_node_drift(struct fleet_verify *v, const struct fleet_answer *a)
{
	const json_t *d;
	size_t k;

	json_array_foreach(json_object_get(a->doc, "drift"), k, d)
		if (fleet_verify_drift_add(v, a->node ? a->node : "",
					   json_string_value(json_object_get(d, "interface")),
					   json_string_value(json_object_get(d, "field")),
					   json_string_value(json_object_get(d, "wanted")),
					   json_string_value(json_object_get(d, "found"))) < 0)
			return -ENOMEM;
	return 0;
}

int fleet_verify_check(struct fleet_run *run, const char *profile, struct fleet_verify *v)
{
	*v = (struct fleet_verify){ .run = run, .profile = profile };
	for (size_t i = 0; i < run->n; i++) {
		const struct fleet_answer *a = &run->nodes[i];
		const char *bad;

		if (!a->ok)
			continue;
		bad = verify_doc_check(a->doc);
		if (bad) {
			if (fleet_run_fail(run, i, "sent a malformed verify document: ", bad,
					   true) < 0)
				goto oom;
			continue;
		}
		v->n_drifted += json_array_size(json_object_get(a->doc, "drift")) > 0;
		if (verify_node_drift(v, a) < 0)
			goto oom;
	}
	return 0;
oom:
	fleet_verify_fini(v);
	return -ENOMEM;
}

static void change_fini(struct fleet_change *c)
{
	free(c->object);
	free(c->field);
	free(c->from);
	free(c->to);
	free(c->status);
	free(c->fails);
}

void fleet_apply_fini(struct fleet_apply *a)
{
	for (size_t i = 0; i < a->n_changes; i++)
		change_fini(&a->changes[i]);
	free(a->changes);
	a->changes = NULL;
	a->n_changes = 0;
}

/* Node @n's steps into @a's changes. */
static int apply_node_changes(struct fleet_apply *a, const struct fleet_answer *n)
{
	const json_t *s;
	size_t k;

	json_array_foreach(json_object_get(n->doc, "steps"), k, s) {
		const json_t *fails = json_object_get(s, "fails");
		struct fleet_change c = {
			.node = n->node ? n->node : "", .object = dup_member(s, "object"),
			.field = dup_member(s, "field"), .from = dup_member(s, "from"),
			.to = dup_member(s, "to"), .status = dup_member(s, "status"),
			.fails = json_is_string(fails) ? strdup(json_string_value(fails)) : NULL,
		};

		struct fleet_change *e = NULL;

		if (c.object && c.field && c.from && c.to && c.status &&
		    (!json_is_string(fails) || c.fails))
			e = array_add((void **)&a->changes, &a->n_changes, sizeof(c));
		if (!e) {
			change_fini(&c);
			return -ENOMEM;
		}
		*e = c;
	}
	return 0;
}

/* Node @i of @run against what was asked: 1 failed, 0 well-formed, -ENOMEM. */
static int apply_node_check(struct fleet_run *run, size_t i, bool dry_run)
{
	const char *bad = apply_doc_check(run->nodes[i].doc);

	if (!bad && json_is_true(json_object_get(run->nodes[i].doc, "dry_run")) == dry_run)
		return 0;
	if (bad)
		return fleet_run_fail(run, i, "sent a malformed apply document: ", bad, true) < 0
		       ? -ENOMEM : 1;
	return fleet_run_fail(run, i, "", dry_run ? "applied instead of a dry run"
					      : "did a dry run instead of applying", true) < 0
	       ? -ENOMEM : 1;
}

int fleet_apply_check(struct fleet_run *run, const char *profile, bool dry_run,
		      struct fleet_apply *a)
{
	*a = (struct fleet_apply){ .run = run, .profile = profile, .dry_run = dry_run };
	for (size_t i = 0; i < run->n; i++) {
		const struct fleet_answer *n = &run->nodes[i];
		int rc;

		if (!n->ok)
			continue;
		rc = apply_node_check(run, i, dry_run);
		if (rc < 0)
			goto oom;
		if (rc > 0)
			continue;
		a->n_changed += json_array_size(json_object_get(n->doc, "steps")) > 0;
		if (apply_node_changes(a, n) < 0)
			goto oom;
		/* The node's own rollback ran; its document tells how far. */
		if (!json_is_true(json_object_get(n->doc, "ok")) &&
		    fleet_run_fail(run, i, json_string_value(json_object_get(n->doc, "error")), "",
				   false) < 0)
			goto oom;
	}
	return 0;
oom:
	fleet_apply_fini(a);
	return -ENOMEM;
}
