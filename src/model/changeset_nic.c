// SPDX-License-Identifier: GPL-2.0-or-later
/* Drift of the profile's `nics:` items; see plan_nic.h. */
#include <errno.h>
#include <string.h>

#include "model/pcie_topo.h"
#include "model/changeset_nic.h"
#include "util/array.h"
#include "util/str.h"

#define NEAR_MAX 64

struct nic_ck {
	const struct pcie_view *v;
	const struct profile_nic *want;
	const struct pcie_dev *d;
	struct changeset *cs;
};

static int drift(struct nic_ck *c, const char *field, const char *wanted, const char *found)
{
	struct drift *d = array_add((void **)&c->cs->drift, &c->cs->n_drift, sizeof(*d));

	if (!d)
		return -ENOMEM;
	str_fmt(d->object, sizeof(d->object), "%s", pcie_dev_name(c->d));
	str_fmt(d->field, sizeof(d->field), "%s", field);
	str_fmt(d->wanted, sizeof(d->wanted), "%s", wanted);
	str_fmt(d->found, sizeof(d->found), "%s", found);
	d->verify_only = true;
	return 0;
}

static int width_check(struct nic_ck *c)
{
	unsigned int best_s, best_w, want;
	char wb[32], fb[32];

	if (!c->want->pcie_width)
		return 0;
	pcie_link_best(c->d, &best_s, &best_w);
	want = c->want->pcie_width == PROFILE_NIC_MAX ? best_w : (unsigned int)c->want->pcie_width;
	if (!want)
		str_fmt(wb, sizeof(wb), "max");
	else
		str_fmt(wb, sizeof(wb), "x%u%s", want,
			c->want->pcie_width == PROFILE_NIC_MAX ? " (max)" : "");
	if (!want || !c->d->link.width)
		return drift(c, "pcie.width", wb, "unknown");
	if (c->d->link.width >= want)
		return 0;
	str_fmt(fb, sizeof(fb), "x%u", c->d->link.width);
	return drift(c, "pcie.width", wb, fb);
}

static int speed_check(struct nic_ck *c)
{
	unsigned int best_s, best_w, want;
	char wb[32], fb[16], s[16];

	if (!c->want->pcie_speed_mts)
		return 0;
	pcie_link_best(c->d, &best_s, &best_w);
	want = c->want->pcie_speed_mts == PROFILE_NIC_MAX ? best_s
							   : (unsigned int)c->want->pcie_speed_mts;
	str_fmt(wb, sizeof(wb), "%s%s", want ? pcie_speed_str(want, s, sizeof(s)) : "max",
		c->want->pcie_speed_mts == PROFILE_NIC_MAX && want ? " (max)" : "");
	if (!want || !c->d->link.speed_mts)
		return drift(c, "pcie.speed", wb, "unknown");
	if (c->d->link.speed_mts >= want)
		return 0;
	return drift(c, "pcie.speed", wb, pcie_speed_str(c->d->link.speed_mts, fb, sizeof(fb)));
}

static int acs_check(struct nic_ck *c, const size_t *idx, size_t n)
{
	const struct pcie_bridge *on[NEAR_MAX];
	size_t n_on, n_path, unread;
	char fb[128];

	if (!c->want->acs_off || !n)
		return 0;
	n_on = pcie_nic_acs(c->v, c->d, idx, n, on, NEAR_MAX, &n_path, &unread);
	if (n_on) {
		str_fmt(fb, sizeof(fb), "on at %s (ctl 0x%04x)%s", on[0]->bdf, on[0]->acs.ctl,
			n_on > 1 ? " and more" : "");
		return drift(c, "pcie.acs", "off", fb);
	}
	if (unread)
		return drift(c, "pcie.acs", "off", "unknown (config space needs root)");
	return 0;
}

static int numa_check(struct nic_ck *c, const size_t *idx, size_t n)
{
	int mine = pcie_numa(c->v, c->d);
	char wb[32], fb[128];

	if (!c->want->numa_local || !n)
		return 0;
	str_fmt(wb, sizeof(wb), mine >= 0 ? "local (node %d)" : "local", mine);
	if (mine < 0)
		return drift(c, "pcie.numa", wb, "nic node unknown");
	for (size_t i = 0; i < n; i++) {
		const struct pcie_dev *g = &c->v->gpus[idx[i]];
		int theirs = pcie_numa(c->v, g);

		if (theirs == mine)
			continue;
		if (theirs < 0)
			str_fmt(fb, sizeof(fb), "gpu %s node unknown", g->bdf);
		else
			str_fmt(fb, sizeof(fb), "gpu %s on node %d", g->bdf, theirs);
		return drift(c, "pcie.numa", wb, fb);
	}
	return 0;
}

static int gpudirect_check(struct nic_ck *c)
{
	if (!c->want->gpudirect || pcie_gpudirect_ready(c->v))
		return 0;
	return drift(c, "gpudirect", "ready",
		     c->v->n_gpus ? "no peer-memory module, no dma-buf" : "no gpu");
}

static int fw_lldp_check(struct nic_ck *c)
{
	enum pcie_fw_lldp want = c->want->fw_lldp ? PCIE_FW_LLDP_ON : PCIE_FW_LLDP_OFF;
	char fb[64];

	if (c->want->fw_lldp < 0 || c->d->fw_lldp == PCIE_FW_LLDP_UNKNOWN || c->d->fw_lldp == want)
		return 0;
	str_fmt(fb, sizeof(fb), "%s (%s)", pcie_fw_lldp_name(c->d->fw_lldp), c->d->fw_lldp_flag);
	return drift(c, "fw_lldp", pcie_fw_lldp_name(want), fb);
}

static int nic_check(struct nic_ck *c)
{
	size_t idx[NEAR_MAX], n;
	enum pcie_distance dist;
	int rc;

	n = pcie_nic_gpus(c->v, c->d, idx, NEAR_MAX, &dist);
	rc = width_check(c);
	if (rc == 0)
		rc = speed_check(c);
	if (rc == 0)
		rc = acs_check(c, idx, n);
	if (rc == 0)
		rc = numa_check(c, idx, n);
	if (rc == 0)
		rc = gpudirect_check(c);
	if (rc == 0)
		rc = fw_lldp_check(c);
	return rc;
}

static int unmatched(struct changeset *cs, const struct profile_nic *want)
{
	struct drift *d;
	char buf[300];

	cs->n_unmatched++;
	profile_match_str(want->match, want->n_match, buf, sizeof(buf));
	if (want->driver[0])
		str_fmt(buf + strlen(buf), sizeof(buf) - strlen(buf), " driver %s", want->driver);
	d = array_add((void **)&cs->drift, &cs->n_drift, sizeof(*d));
	if (!d)
		return -ENOMEM;
	str_fmt(d->object, sizeof(d->object), "%s", buf);
	str_fmt(d->field, sizeof(d->field), "match");
	str_fmt(d->wanted, sizeof(d->wanted), "a nic");
	str_fmt(d->found, sizeof(d->found), "none");
	return 0;
}

int changeset_nic_check(const struct profile *p, const struct pcie_view *v, struct changeset *cs)
{
	static const struct pcie_view none;

	if (!v)
		v = &none;
	for (size_t i = 0; i < p->n_nics; i++) {
		struct nic_ck c = { .v = v, .want = &p->nics[i], .cs = cs };
		size_t found = 0;
		int rc;

		for (size_t j = 0; j < v->n_nics; j++) {
			if (!profile_nic_matches(c.want, &v->nics[j]))
				continue;
			found++;
			c.d = &v->nics[j];
			rc = nic_check(&c);
			if (rc < 0)
				return rc;
		}
		if (!found && !c.want->optional && unmatched(cs, c.want) < 0)
			return -ENOMEM;
	}
	return 0;
}
