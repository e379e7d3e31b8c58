// SPDX-License-Identifier: GPL-2.0-or-later
/* The node's modules and links, read and judged; see optics.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/optics_wire.h"
#include "node/optics.h"
#include "util/log.h"
#include "util/str.h"

/* The pages the decoders ask for, one at a time; 1st page -EOPNOTSUPP: no module interface. */
static int read_pages(struct sys *sys, const char *ifname, struct module_eeprom *e,
		      struct optics_port *p)
{
	struct module_page_req req;
	uint8_t buf[MODULE_PAGE_LEN];
	struct fab_err err;
	int rc;

	while (module_eeprom_next(e, &req) == 1) {
		fab_err_init(&err);
		rc = sys_module_page_read(sys, ifname, &req, buf, &err);
		if (rc < 0 && e->n == 0) {
			p->module_rc = rc;
			str_fmt(p->module_err, sizeof(p->module_err), "%s", err.msg);
			if (rc == -EOPNOTSUPP)
				return rc;
		} else if (rc < 0) {
			fab_debug("%s", err.msg);
		}
		if (module_eeprom_put(e, &req, rc < 0 ? NULL : buf, rc) < 0)
			break;
		if (rc < 0 && e->n == 1)
			break;
	}
	return 0;
}

int node_optics_raw(struct sys *sys, const char *ifname, struct module_eeprom *e,
		    struct optics_port *p)
{
	struct fab_err err;
	int rc;

	module_eeprom_init(e);
	optics_link_init(&p->link);
	rc = read_pages(sys, ifname, e, p);
	if (rc < 0)
		return rc;	/* no module interface: no cable end, no link to read */
	fab_err_init(&err);
	p->link_rc = sys_link_phy_read(sys, ifname, &p->link, &err);
	if (p->link_rc < 0)
		str_fmt(p->link_err, sizeof(p->link_err), "%s", err.msg);
	return 0;
}

int node_optics_port(struct sys *sys, const char *ifname, struct optics_port *p)
{
	struct module_eeprom e;
	int rc = node_optics_raw(sys, ifname, &e, p);

	if (rc < 0)
		return rc;
	if (!p->module_rc) {
		p->module_rc = module_decode(&e, &p->mod);
		if (p->module_rc < 0 && p->mod.n_notes)
			str_fmt(p->module_err, sizeof(p->module_err), "module: %s: %s", ifname,
				p->mod.notes[0]);
	}
	return 0;
}

static bool wanted(const struct fab_link *l)
{
	return !l->kind[0] && strcmp(l->name, "lo") != 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The second reading of each port's link, the first kept as "before". */
static void reread(struct sys *sys, struct optics_set *set)
{
	struct fab_err err;

	for (size_t i = 0; i < set->n; i++) {
		struct optics_port *p = &set->v[i];

		if (p->link_rc < 0)
			continue;
		p->before = p->link;
		p->have_before = true;
		fab_err_init(&err);
		optics_link_init(&p->link);
		p->link_rc = sys_link_phy_read(sys, p->ifname, &p->link, &err);
		if (p->link_rc < 0) {
			p->have_before = false;
			str_fmt(p->link_err, sizeof(p->link_err), "%s", err.msg);
		}
	}
}

int node_optics_read(struct sys *sys, struct host_state *hs, const struct node_optics_opts *o,
		     struct fab_err *err)
{
	struct optics_set *set = calloc(1, sizeof(*set));
	struct optics_policy def;
	const struct optics_policy *pol = o && o->pol ? o->pol : &def;

	if (!set)
		return fab_err_set(err, -ENOMEM, "optics: out of memory");
	optics_policy_default(&def);
	optics_set_init(set);
	for (size_t i = 0; i < hs->n_links; i++) {
		struct optics_port *p;

		if (!wanted(&hs->links[i]))
			continue;
		p = optics_set_add(set, hs->links[i].name);
		if (!p) {
			optics_set_fini(set);
			free(set);
			return fab_err_set(err, -ENOMEM, "optics: out of memory");
		}
		if (node_optics_port(sys, hs->links[i].name, p) == -EOPNOTSUPP)
			set->n--;	/* no module interface: not a cable end we can see */
	}
	if (o && o->window_s > 0 && set->n) {
		set->window_s = o->window_s;
		sleep_s(o->window_s);
		reread(sys, set);
	}
	for (size_t i = 0; i < set->n; i++) {
		struct optics_port *p = &set->v[i];

		optics_verdict(p->module_rc == 0 ? &p->mod : NULL,
			       p->have_before ? &p->before : NULL,
			       p->link_rc == 0 ? &p->link : NULL, pol, &p->verdict);
	}
	if (hs->optics) {
		optics_set_fini(hs->optics);
		free(hs->optics);
	}
	hs->optics = set;
	return 0;
}

/* One port, raw, appended to @ports; a port with no module interface is left out when @skip. */
static int wire_port(struct sys *sys, const char *ifname, bool skip, json_t *ports)
{
	struct optics_port *p = calloc(1, sizeof(*p));
	struct module_eeprom e;
	json_t *j;
	int rc;

	if (!p)
		return -ENOMEM;
	str_fmt(p->ifname, sizeof(p->ifname), "%s", ifname);
	module_init(&p->mod);
	rc = node_optics_raw(sys, ifname, &e, p);
	if (rc == -EOPNOTSUPP && skip) {
		free(p);
		return 0;
	}
	if (rc == -EOPNOTSUPP) {
		e.n = 0;	/* the port is kept, with why, and no link reading */
		p->link_rc = -EOPNOTSUPP;
		str_fmt(p->link_err, sizeof(p->link_err),
			"link: %s: not read (no module interface)", ifname);
	}
	j = optics_wire_to_json(&e, p);
	free(p);
	return j && json_array_append_new(ports, j) == 0 ? 0 : -ENOMEM;
}

json_t *node_optics_wire(struct sys *sys, const char *const *names, size_t n,
			 struct fab_err *err)
{
	json_t *ports = json_array();
	struct host_state hs;
	int rc = 0;

	host_state_init(&hs);
	if (!n && sys_host_state_read(sys, &hs, 0, err) < 0) {
		json_decref(ports);
		return NULL;
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = wire_port(sys, names[i], false, ports);
	for (size_t i = 0; rc == 0 && !n && i < hs.n_links; i++)
		if (wanted(&hs.links[i]))
			rc = wire_port(sys, hs.links[i].name, true, ports);
	host_state_fini(&hs);
	if (rc < 0 || !ports) {
		json_decref(ports);
		fab_err_set(err, -ENOMEM, "optics: out of memory");
		return NULL;
	}
	return json_pack("{s:o}", "ports", ports);
}
