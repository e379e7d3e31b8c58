// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profile's `nics:` section: each NIC inside the host, verify only
 * (docs/profile.md "nics", fabricctl-profile(5)).
 *
 *   nics:
 *     - match: [enp*np0, mlx5_*]   # netdev or RDMA device names; driver: glob
 *       pcie_width: max            # or 16: the current link at least this wide
 *       pcie_speed: max            # or 32, "32GT/s", gen5
 *       acs: off                   # no bridge to its GPUs redirects P2P
 *       numa: local                # its GPUs on its NUMA node
 *       gpudirect: ready           # peer-memory module or dma-buf
 *       fw_lldp: off               # the NIC firmware's own LLDP agent
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/pcie.h"
#include "model/profile_nic.h"
#include "util/array.h"
#include "util/str.h"

static const char *const nic_keys[] = {
	"match", "driver", "optional", "pcie_width", "pcie_speed", "acs", "numa", "gpudirect",
	"fw_lldp", NULL,
};

struct nic_walk {
	const struct yaml_walk *w;
	struct profile_nic *n;
};

static int get_width(const struct yaml_walk *w, const yaml_node_t *v, int *out)
{
	static const unsigned int ok[] = { 1, 2, 4, 8, 12, 16, 32 };
	unsigned int u;

	if (yw_want(w, v, YAML_SCALAR_NODE, "pcie_width") < 0)
		return -EINVAL;
	if (!strcasecmp(yw_scalar(v), "max")) {
		*out = PROFILE_NIC_MAX;
		return 0;
	}
	if (yw_uint(w, v, "pcie_width", 10, 1, 32, &u) < 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (ok[i] == u) {
			*out = (int)u;
			return 0;
		}
	return yw_err(w, v, "pcie_width: %u is not a link width (1, 2, 4, 8, 12, 16, 32 or max)", u);
}

/* "max", "gen1".."gen6", or GT/s: 2.5, 5, 8, 16, 32, 64 (a "GT/s" suffix allowed). */
static int get_speed(const struct yaml_walk *w, const yaml_node_t *v, int *out)
{
	static const unsigned int gen[] = { 2500, 5000, 8000, 16000, 32000, 64000 };
	const char *s;
	char buf[32];
	unsigned int mts;

	if (yw_want(w, v, YAML_SCALAR_NODE, "pcie_speed") < 0)
		return -EINVAL;
	s = yw_scalar(v);
	if (!strcasecmp(s, "max")) {
		*out = PROFILE_NIC_MAX;
		return 0;
	}
	if (!strncasecmp(s, "gen", 3) && s[3] >= '1' && s[3] <= '6' && !s[4]) {
		*out = (int)gen[s[3] - '1'];
		return 0;
	}
	str_fmt(buf, sizeof(buf), "%s%s", s, strstr(s, "GT/s") ? "" : " GT/s");
	mts = pcie_speed_parse(buf);
	for (size_t i = 0; i < ARRAY_SIZE(gen); i++)
		if (gen[i] == mts) {
			*out = (int)mts;
			return 0;
		}
	return yw_err(w, v, "pcie_speed: expected 2.5, 5, 8, 16, 32 or 64 (GT/s), gen1..gen6 or max, found '%.32s'",
		      s);
}

/* A scalar that must be @word (case aside): the one value a check has. */
static int get_word(const struct yaml_walk *w, const yaml_node_t *v, const char *what,
		    const char *word, bool *out)
{
	if (yw_want(w, v, YAML_SCALAR_NODE, what) < 0)
		return -EINVAL;
	if (strcasecmp(yw_scalar(v), word))
		return yw_err(w, v, "%s: the only value is %s, found '%.32s'", what, word,
			      yw_scalar(v));
	*out = true;
	return 0;
}

static int nic_cb(void *arg, int key, yaml_node_t *k, yaml_node_t *v)
{
	struct nic_walk *nw = arg;
	struct profile_nic *n = nw->n;
	bool b;

	switch (key) {
	case 0: return profile_globs_get(nw->w, v, n->match, &n->n_match);
	case 1: return yw_str(nw->w, v, "driver", n->driver, sizeof(n->driver));
	case 2: return yw_bool(nw->w, v, "optional", &n->optional);
	case 3: return get_width(nw->w, v, &n->pcie_width);
	case 4: return get_speed(nw->w, v, &n->pcie_speed_mts);
	case 5:
		/* YAML's off: ACS on is never wanted on a NIC-GPU path. */
		if (yw_bool(nw->w, v, "acs", &b) < 0)
			return -EINVAL;
		if (b)
			return yw_err(nw->w, v, "acs: the only value is off (ACS on is never wanted between a NIC and its GPUs)");
		n->acs_off = true;
		return 0;
	case 6: return get_word(nw->w, v, "numa", "local", &n->numa_local);
	case 7: return get_word(nw->w, v, "gpudirect", "ready", &n->gpudirect);
	default:
		if (yw_bool(nw->w, v, "fw_lldp", &b) < 0)
			return -EINVAL;
		n->fw_lldp = b;
		return 0;
	}
}

int profile_nic_parse(const struct yaml_walk *w, yaml_node_t *e, const char *what,
		      struct profile_mark m, struct profile *p)
{
	struct profile_nic *n = array_add((void **)&p->nics, &p->n_nics, sizeof(*n));
	struct nic_walk nw = { .w = w, .n = n };
	int rc;

	if (!n)
		return fab_err_set(w->err, -ENOMEM, "profile: out of memory");
	n->mark = m;
	n->fw_lldp = -1;
	rc = yw_map(w, e, what, nic_keys, nic_cb, &nw);
	if (rc == 0 && !n->pcie_width && !n->pcie_speed_mts && !n->acs_off && !n->numa_local &&
	    !n->gpudirect && n->fw_lldp < 0)
		rc = yw_err(w, e, "%s: checks nothing (give pcie_width, pcie_speed, acs, numa, gpudirect or fw_lldp)",
			    what);
	return rc;
}

static bool any_glob(const struct profile_nic *n, const char *name)
{
	for (size_t i = 0; i < n->n_match; i++)
		if (fnmatch(n->match[i], name, 0) == 0)
			return true;
	return false;
}

bool profile_nic_matches(const struct profile_nic *n, const struct pcie_dev *d)
{
	bool hit = !n->n_match;

	if (n->driver[0] && fnmatch(n->driver, d->driver, 0))
		return false;
	for (size_t i = 0; i < d->n_netdevs && !hit; i++)
		hit = any_glob(n, d->netdevs[i]);
	for (size_t i = 0; i < d->n_rdma && !hit; i++)
		hit = any_glob(n, d->rdma[i]);
	return hit;
}
