// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Profile loader: libyaml's document API gives every node its start mark,
 * so each message points at the offending key or value.  Strict: unknown
 * keys, duplicate keys and wrong types are errors.  Aliases are rejected
 * (no use for them in a profile; keeps the walk linear for any input).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "model/host_state.h"
#include "model/profile.h"
#include "model/profile_nic.h"
#include "model/yaml_walk.h"
#include "util/array.h"
#include "util/str.h"

#define PROFILE_MAX_ITEMS 256

struct pctx {
	struct yaml_walk w;
};

/* A list of priorities 0..7 -> bitmask; duplicates are errors. */
static int get_prio_mask(struct pctx *c, const yaml_node_t *n, const char *what, uint8_t *mask)
{
	uint8_t m = 0;

	if (yw_want(&c->w, n, YAML_SEQUENCE_NODE, what) < 0)
		return -EINVAL;
	for (yaml_node_item_t *i = n->data.sequence.items.start;
	     i < n->data.sequence.items.top; i++) {
		yaml_node_t *e = yw_node(&c->w, *i);
		unsigned long p;

		if (yw_u64(&c->w, e, what, 10, 0, 7, &p) < 0)
			return -EINVAL;
		if (m & (1u << p))
			return yw_err(&c->w, e, "%s: priority %lu listed twice", what, p);
		m |= (uint8_t)(1u << p);
	}
	*mask = m;
	return 0;
}

/* A list of exactly 8 numbers in [0, hi], one per @per. */
static int get_u64_list8(struct pctx *c, const yaml_node_t *n, const char *what, const char *per,
			 unsigned long hi, uint64_t out[8])
{
	size_t k = 0;

	if (yw_want(&c->w, n, YAML_SEQUENCE_NODE, what) < 0)
		return -EINVAL;
	for (yaml_node_item_t *i = n->data.sequence.items.start;
	     i < n->data.sequence.items.top; i++, k++) {
		unsigned long v;

		if (k == 8)
			return yw_err(&c->w, yw_node(&c->w, *i), "%s: more than 8 entries", what);
		if (yw_u64(&c->w, yw_node(&c->w, *i), what, 10, 0, hi, &v) < 0)
			return -EINVAL;
		out[k] = v;
	}
	if (k != 8)
		return yw_err(&c->w, n, "%s: expected 8 entries (one per %s), found %zu", what, per, k);
	return 0;
}

/* A list of exactly 8 small numbers in [0, hi] (hi <= 255), one per @per. */
static int get_u8_list8(struct pctx *c, const yaml_node_t *n, const char *what, const char *per,
			unsigned long hi, uint8_t out[8])
{
	uint64_t v[8];
	int rc = get_u64_list8(c, n, what, per, hi, v);

	if (rc < 0)
		return rc;
	for (size_t k = 0; k < 8; k++)
		out[k] = (uint8_t)v[k];
	return 0;
}

/* Iterate a mapping (yw_map), handing key index and value to @cb. */
typedef int (*pair_cb)(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg);

struct map_call {
	struct pctx *c;
	pair_cb cb;
	void *arg;
};

static int map_call_one(void *p, int key, yaml_node_t *k, yaml_node_t *v)
{
	struct map_call *m = p;

	return m->cb(m->c, key, k, v, m->arg);
}

static int walk_map(struct pctx *c, const yaml_node_t *n, const char *what,
		    const char *const *keys, pair_cb cb, void *arg)
{
	struct map_call m = { .c = c, .cb = cb, .arg = arg };

	return yw_map(&c->w, n, what, keys, map_call_one, &m);
}

static int get_globs(struct pctx *c, const yaml_node_t *n, char (*globs)[32], size_t *count)
{
	return profile_globs_get(&c->w, n, globs, count);
}

/* ---- interfaces ---- */

static const char *const pfc_keys[] = { "enable", "delay", "storm_timeout_ms", NULL };

/* pfc.storm_timeout_ms: 0 (off), 80..8000, or auto (the driver's value, 0xffff). */
static int pfc_storm_get(struct pctx *c, yaml_node_t *v, struct profile_iface *f)
{
	uint64_t u;

	if (v->type == YAML_SCALAR_NODE && !strcmp(yw_scalar(v), "auto")) {
		f->pfc_storm_ms = PROFILE_PFC_STORM_AUTO;
		return 0;
	}
	if (yw_u64(&c->w, v, "pfc.storm_timeout_ms", 10, 0, 8000, &u) < 0)
		return -EINVAL;
	if (u && u < 80)
		return yw_err(&c->w, v, "pfc.storm_timeout_ms: %lu is under 80 (0 turns it off)",
			      (unsigned long)u);
	f->pfc_storm_ms = (int)u;
	return 0;
}

static int pfc_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct profile_iface *f = arg;
	unsigned long u;

	if (key == 0) {
		f->has_pfc = true;
		return get_prio_mask(c, v, "pfc.enable", &f->pfc_en);
	}
	if (key == 2)
		return pfc_storm_get(c, v, f);
	if (yw_u64(&c->w, v, "pfc.delay", 10, 0, 65535, &u) < 0)
		return -EINVAL;
	f->has_pfc_delay = true;
	f->pfc_delay = (uint16_t)u;
	return 0;
}

static const char *const buffer_keys[] = { "prio_buffer", "size", NULL };

static int buffer_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct profile_iface *f = arg;

	if (key == 0) {
		f->has_buf_prio = true;
		return get_u8_list8(c, v, "buffer.prio_buffer", "priority", 7, f->buf_prio);
	}
	f->has_buf_size = true;
	return get_u64_list8(c, v, "buffer.size", "buffer", UINT32_MAX, f->buf_size);
}

static const char *const ets_keys[] = { "prio_tc", "tc_bw", "tsa", NULL };

static int ets_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct profile_iface *f = arg;
	size_t j = 0;

	switch (key) {
	case 0:
		return get_u8_list8(c, v, "ets.prio_tc", "priority", 7, f->ets_prio_tc);
	case 1:
		return get_u8_list8(c, v, "ets.tc_bw", "traffic class", 100, f->ets_tc_bw_pct);
	default:
		if (yw_want(&c->w, v, YAML_SEQUENCE_NODE, "ets.tsa") < 0)
			return -EINVAL;
		for (yaml_node_item_t *i = v->data.sequence.items.start;
		     i < v->data.sequence.items.top; i++, j++) {
			yaml_node_t *e = yw_node(&c->w, *i);
			int t;

			if (j == 8)
				return yw_err(&c->w, e, "ets.tsa: more than 8 entries");
			if (yw_want(&c->w, e, YAML_SCALAR_NODE, "ets.tsa") < 0)
				return -EINVAL;
			t = fab_dcb_tsa_parse(yw_scalar(e));
			if (t < 0 || t == FAB_DCB_TSA_VENDOR)
				return yw_err(&c->w, e, "ets.tsa: unknown algorithm '%.32s' (known: strict, cbs, ets)",
					    yw_scalar(e));
			f->ets_tsa[j] = (uint8_t)t;
		}
		if (j != 8)
			return yw_err(&c->w, v, "ets.tsa: expected 8 entries (one per traffic class), found %zu", j);
		return 0;
	}
}

static const char *const ecn_keys[] = { "np", "rp", NULL };

static int ecn_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct profile_iface *f = arg;

	if (key == 0) {
		f->has_ecn_np = true;
		return get_prio_mask(c, v, "ecn.np", &f->ecn_np);
	}
	f->has_ecn_rp = true;
	return get_prio_mask(c, v, "ecn.rp", &f->ecn_rp);
}

/* dcqcn: {cnp_dscp, cnp_prio, np: {...}, rp: {...}}; keys in enum dcqcn_param order. */
static const char *const dcqcn_keys[] = { "cnp_dscp", "cnp_prio", "np", "rp", NULL };
static const char *const dcqcn_np_keys[] = { "min_time_between_cnps", NULL };
static const char *const dcqcn_rp_keys[] = {
	"clamp_tgt_rate", "clamp_tgt_rate_after_time_inc", "time_reset", "byte_reset",
	"threshold", "ai_rate", "max_rate", "hai_rate", "min_dec_fac", "min_rate",
	"rate_to_set_on_first_cnp", "dce_tcp_g", "dce_tcp_rtt", "rate_reduce_monitor_period",
	"initial_alpha_value", "gd", NULL,
};

static int dcqcn_value(struct pctx *c, yaml_node_t *v, struct profile_iface *f, int param)
{
	char what[64];
	uint64_t u;

	str_fmt(what, sizeof(what), "dcqcn.%s", dcqcn_params[param].key);
	if (yw_u64(&c->w, v, what, 10, 0, dcqcn_params[param].max, &u) < 0)
		return -EINVAL;
	f->has_dcqcn[param] = true;
	f->dcqcn[param] = (uint32_t)u;
	return 0;
}

static int dcqcn_np_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	return dcqcn_value(c, v, arg, DCQCN_NP_MIN_TIME_BETWEEN_CNPS + key);
}

static int dcqcn_rp_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	return dcqcn_value(c, v, arg, DCQCN_RP_CLAMP_TGT_RATE + key);
}

static int dcqcn_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	switch (key) {
	case 0: return dcqcn_value(c, v, arg, DCQCN_CNP_DSCP);
	case 1: return dcqcn_value(c, v, arg, DCQCN_CNP_PRIO);
	case 2: return walk_map(c, v, "dcqcn.np", dcqcn_np_keys, dcqcn_np_cb, arg);
	default: return walk_map(c, v, "dcqcn.rp", dcqcn_rp_keys, dcqcn_rp_cb, arg);
	}
}

static const char *const roce_keys[] = { "tos", "mtu", "lossless", "prio", "gid_index", NULL };

static int roce_mtu_get(struct pctx *c, yaml_node_t *v, struct profile_iface *f)
{
	unsigned long u;

	if (yw_u64(&c->w, v, "roce.mtu", 10, 256, 4096, &u) < 0)
		return -EINVAL;
	if (u & (u - 1))
		return yw_err(&c->w, v, "roce.mtu: %lu is not one of 256, 512, 1024, 2048, 4096", u);
	f->roce_mtu = (unsigned int)u;
	return 0;
}

static int roce_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct profile_iface *f = arg;
	unsigned long u;
	bool b;

	switch (key) {
	case 0:
		if (yw_u64(&c->w, v, "roce.tos", 10, 0, 255, &u) < 0)
			return -EINVAL;
		f->roce_tos = (int)u;
		return 0;
	case 1:
		return roce_mtu_get(c, v, f);
	case 2:
		if (yw_bool(&c->w, v, "roce.lossless", &b) < 0)
			return -EINVAL;
		f->roce_lossless = b ? 1 : 0;
		return 0;
	case 3:
		if (yw_u64(&c->w, v, "roce.prio", 10, 0, 7, &u) < 0)
			return -EINVAL;
		f->roce_prio = (int)u;
		return 0;
	default:
		if (yw_u64(&c->w, v, "roce.gid_index", 10, 0, 65535, &u) < 0)
			return -EINVAL;
		f->roce_gid_index = (int)u;
		return 0;
	}
}

static int get_trust(struct pctx *c, yaml_node_t *v, struct profile_iface *f)
{
	if (yw_want(&c->w, v, YAML_SEQUENCE_NODE, "trust") < 0)
		return -EINVAL;
	f->has_trust = true;
	f->n_trust = 0;
	for (yaml_node_item_t *i = v->data.sequence.items.start;
	     i < v->data.sequence.items.top; i++) {
		yaml_node_t *e = yw_node(&c->w, *i);
		int s;

		if (yw_want(&c->w, e, YAML_SCALAR_NODE, "trust") < 0)
			return -EINVAL;
		s = fab_dcb_sel_parse(yw_scalar(e));
		if (s < 0)
			return yw_err(&c->w, e, "trust: unknown selector '%.32s' (known: pcp, dscp, ethertype, stream, dgram, any)",
				    yw_scalar(e));
		for (size_t j = 0; j < f->n_trust; j++)
			if (f->trust[j] == s)
				return yw_err(&c->w, e, "trust: '%s' listed twice", yw_scalar(e));
		if (f->n_trust == FAB_DCB_TRUST_MAX)
			return yw_err(&c->w, e, "trust: more than %d selectors", FAB_DCB_TRUST_MAX);
		f->trust[f->n_trust++] = (uint8_t)s;
	}
	return 0;
}

/* dscp_map: {26: 3, 48: 6} — DSCP -> priority. */
static int get_dscp_map(struct pctx *c, yaml_node_t *v, struct profile_iface *f)
{
	if (yw_want(&c->w, v, YAML_MAPPING_NODE, "dscp_map") < 0)
		return -EINVAL;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yw_node(&c->w, p->key), *e = yw_node(&c->w, p->value);
		unsigned long dscp, prio;

		if (!k || !e)
			return fab_err_input(c->w.err, -EINVAL, "%s: malformed document", c->w.fname);
		if (yw_u64(&c->w, k, "dscp_map: dscp", 10, 0, 63, &dscp) < 0 ||
		    yw_u64(&c->w, e, "dscp_map: priority", 10, 0, 7, &prio) < 0)
			return -EINVAL;
		if (fab_dcb_app_find(&(struct fab_dcb){ .apps = f->apps, .n_apps = f->n_apps },
				     FAB_DCB_APP_SEL_DSCP, (uint16_t)dscp))
			return yw_err(&c->w, k, "dscp_map: dscp %lu listed twice", dscp);
		f->apps[f->n_apps++] = (struct fab_dcb_app){
			.selector = FAB_DCB_APP_SEL_DSCP,
			.protocol = (uint16_t)dscp,
			.priority = (uint8_t)prio,
		};
	}
	return 0;
}

static const char *const iface_keys[] = {
	"match", "driver", "kind", "optional", "mtu", "pfc", "ets", "trust",
	"dscp_map", "ecn", "roce", "buffer", "maxrate_kbps", "dcqcn", NULL,
};

static int iface_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct profile_iface *f = arg;
	unsigned long u;

	switch (key) {
	case 0: return get_globs(c, v, f->match, &f->n_match);
	case 1: return yw_str(&c->w, v, "driver", f->driver, sizeof(f->driver));
	case 2: return yw_str(&c->w, v, "kind", f->kind, sizeof(f->kind));
	case 3: return yw_bool(&c->w, v, "optional", &f->optional);
	case 4:
		if (yw_u64(&c->w, v, "mtu", 10, 68, 65535, &u) < 0)
			return -EINVAL;
		f->mtu = (unsigned int)u;
		return 0;
	case 5: return walk_map(c, v, "pfc", pfc_keys, pfc_cb, f);
	case 6: {
		int rc;
		unsigned int sum = 0;
		bool any_ets = false;

		/* Defaults: everything on TC 0, TC 0 ETS 100%. */
		memset(f->ets_prio_tc, 0, sizeof(f->ets_prio_tc));
		memset(f->ets_tc_bw_pct, 0, sizeof(f->ets_tc_bw_pct));
		memset(f->ets_tsa, FAB_DCB_TSA_ETS, sizeof(f->ets_tsa));
		f->ets_tc_bw_pct[0] = 100;
		rc = walk_map(c, v, "ets", ets_keys, ets_cb, f);
		if (rc < 0)
			return rc;
		for (int i = 0; i < FAB_DCB_NTC; i++) {
			if (f->ets_tsa[i] == FAB_DCB_TSA_ETS) {
				sum += f->ets_tc_bw_pct[i];
				any_ets = true;
			} else if (f->ets_tc_bw_pct[i]) {
				return yw_err(&c->w, v, "ets: tc %d has bandwidth %u%% but tsa %s (only ets classes get a share)",
					    i, f->ets_tc_bw_pct[i], fab_dcb_tsa_name(f->ets_tsa[i]));
			}
		}
		if (any_ets && sum != 100)
			return yw_err(&c->w, v, "ets: tc_bw of the ets classes sums to %u%%, must be 100%%", sum);
		f->has_ets = true;
		return 0;
	}
	case 7: return get_trust(c, v, f);
	case 8: return get_dscp_map(c, v, f);
	case 9: return walk_map(c, v, "ecn", ecn_keys, ecn_cb, f);
	case 10: return walk_map(c, v, "roce", roce_keys, roce_cb, f);
	case 11: return walk_map(c, v, "buffer", buffer_keys, buffer_cb, f);
	case 13: return walk_map(c, v, "dcqcn", dcqcn_keys, dcqcn_cb, f);
	default:
		f->has_maxrate = true;
		return get_u64_list8(c, v, "maxrate_kbps", "traffic class", 10000000000UL,
				     f->maxrate_kbps);
	}
}

/* ---- bonds ---- */

static const char *const bond_keys[] = {
	"name", "mode", "miimon", "lacp_rate", "xmit_hash_policy", "min_links",
	"members", "mtu", NULL,
};

static int bond_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	struct profile_bond *b = arg;
	unsigned long u;

	switch (key) {
	case 0: return yw_str(&c->w, v, "name", b->want.name, sizeof(b->want.name));
	case 1:
		if (yw_want(&c->w, v, YAML_SCALAR_NODE, "mode") < 0)
			return -EINVAL;
		b->want.mode = fab_bond_mode_parse(yw_scalar(v));
		if (b->want.mode < 0)
			return yw_err(&c->w, v, "mode: unknown bonding mode '%.32s' (known: balance-rr, active-backup, balance-xor, broadcast, 802.3ad, balance-tlb, balance-alb)",
				    yw_scalar(v));
		return 0;
	case 2:
		if (yw_u64(&c->w, v, "miimon", 10, 0, 60000, &u) < 0)
			return -EINVAL;
		b->want.miimon_ms = (int)u;
		return 0;
	case 3:
		if (yw_want(&c->w, v, YAML_SCALAR_NODE, "lacp_rate") < 0)
			return -EINVAL;
		b->want.lacp_rate = fab_bond_lacp_parse(yw_scalar(v));
		if (b->want.lacp_rate < 0)
			return yw_err(&c->w, v, "lacp_rate: expected slow or fast, found '%.32s'", yw_scalar(v));
		return 0;
	case 4:
		if (yw_want(&c->w, v, YAML_SCALAR_NODE, "xmit_hash_policy") < 0)
			return -EINVAL;
		b->want.xmit_hash_policy = fab_bond_xmit_parse(yw_scalar(v));
		if (b->want.xmit_hash_policy < 0)
			return yw_err(&c->w, v, "xmit_hash_policy: unknown policy '%.32s' (known: layer2, layer3+4, layer2+3, encap2+3, encap3+4, vlan+srcmac)",
				    yw_scalar(v));
		return 0;
	case 5:
		if (yw_u64(&c->w, v, "min_links", 10, 0, FAB_BOND_MAX_MEMBERS, &u) < 0)
			return -EINVAL;
		b->want.min_links = (int)u;
		return 0;
	case 6:
		if (yw_want(&c->w, v, YAML_SEQUENCE_NODE, "members") < 0)
			return -EINVAL;
		for (yaml_node_item_t *i = v->data.sequence.items.start;
		     i < v->data.sequence.items.top; i++) {
			yaml_node_t *e = yw_node(&c->w, *i);
			char name[16];

			if (yw_str(&c->w, e, "members", name, sizeof(name)) < 0)
				return -EINVAL;
			if (fab_bond_member_find(&b->want, name))
				return yw_err(&c->w, e, "members: '%s' listed twice", name);
			if (b->want.n_members == FAB_BOND_MAX_MEMBERS)
				return yw_err(&c->w, e, "members: more than %d", FAB_BOND_MAX_MEMBERS);
			if (!fab_bond_member_add(&b->want, name))
				return fab_err_set(c->w.err, -ENOMEM, "profile: out of memory");
		}
		return 0;
	default:
		if (yw_u64(&c->w, v, "mtu", 10, 68, 65535, &u) < 0)
			return -EINVAL;
		b->mtu = (unsigned int)u;
		return 0;
	}
}

/* ---- infiniband ---- */

static const char *const ib_keys[] = {
	"match", "port", "optional", "state", "phys_state", "width", "speed", "active_mtu", NULL,
};

static int upper_in(struct pctx *c, yaml_node_t *v, const char *what, char *buf, size_t len,
		    const char *const *allowed)
{
	if (yw_str(&c->w, v, what, buf, len) < 0)
		return -EINVAL;
	for (char *p = buf; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	for (int i = 0; allowed[i]; i++)
		if (!strcmp(allowed[i], buf))
			return 0;
	return yw_err(&c->w, v, "%s: unknown value '%s'", what, buf);
}

static int ib_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	static const char *const states[] = { "DOWN", "INIT", "ARMED", "ACTIVE", NULL };
	static const char *const phys[] = { "SLEEP", "POLLING", "DISABLED", "LINK_UP",
					    "LINK_ERROR_RECOVERY", NULL };
	static const char *const speeds[] = { "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR",
					      "HDR", "NDR", "XDR", NULL };
	struct profile_ib *ib = arg;
	unsigned long u;
	char w[8];

	switch (key) {
	case 0: return get_globs(c, v, ib->match, &ib->n_match);
	case 1:
		if (yw_u64(&c->w, v, "port", 10, 1, 255, &u) < 0)
			return -EINVAL;
		ib->port = (unsigned int)u;
		return 0;
	case 2: return yw_bool(&c->w, v, "optional", &ib->optional);
	case 3: return upper_in(c, v, "state", ib->state, sizeof(ib->state), states);
	case 4: return upper_in(c, v, "phys_state", ib->phys_state, sizeof(ib->phys_state), phys);
	case 5:
		if (yw_str(&c->w, v, "width", w, sizeof(w)) < 0)
			return -EINVAL;
		ib->width_x = ib_width_parse(w);
		if (!ib->width_x)
			return yw_err(&c->w, v, "width: expected 1x, 2x, 4x, 8x or 12x, found '%s'", w);
		return 0;
	case 6: return upper_in(c, v, "speed", ib->speed, sizeof(ib->speed), speeds);
	default:
		if (yw_u64(&c->w, v, "active_mtu", 10, 256, 4096, &u) < 0)
			return -EINVAL;
		if (u & (u - 1))
			return yw_err(&c->w, v, "active_mtu: %lu is not one of 256, 512, 1024, 2048, 4096", u);
		ib->active_mtu = (unsigned int)u;
		return 0;
	}
}

/* ---- top level ---- */

static const char *const top_keys[] = { "name", "interfaces", "bonds", "infiniband", "nics", NULL };

static int top_cb(struct pctx *c, int key, yaml_node_t *k, yaml_node_t *v, void *arg)
{
	static const char *const sect[] = { NULL, "interfaces", "bonds", "infiniband", "nics" };
	struct profile *p = arg;
	size_t count = 0;

	if (key == 0)
		return yw_str(&c->w, v, "name", p->name, sizeof(p->name));
	if (yw_want(&c->w, v, YAML_SEQUENCE_NODE, sect[key]) < 0)
		return -EINVAL;
	for (yaml_node_item_t *i = v->data.sequence.items.start;
	     i < v->data.sequence.items.top; i++) {
		yaml_node_t *e = yw_node(&c->w, *i);
		struct profile_mark m;
		char what[32];
		int rc;

		if (!e)
			return fab_err_input(c->w.err, -EINVAL, "%s: malformed document", c->w.fname);
		if (++count > PROFILE_MAX_ITEMS)
			return yw_err(&c->w, e, "%s: more than %d items", sect[key], PROFILE_MAX_ITEMS);
		m.line = (unsigned int)e->start_mark.line + 1;
		m.col = (unsigned int)e->start_mark.column + 1;
		str_fmt(what, sizeof(what), "%s[%zu]", sect[key], count - 1);
		if (key == 1) {
			struct profile_iface *f;

			f = array_add((void **)&p->ifaces, &p->n_ifaces, sizeof(*f));
			if (!f)
				return fab_err_set(c->w.err, -ENOMEM, "profile: out of memory");
			f->mark = m;
			f->roce_tos = -1;
			f->roce_lossless = -1;
			f->roce_prio = -1;
			f->roce_gid_index = -1;
			f->pfc_storm_ms = -1;
			rc = walk_map(c, e, what, iface_keys, iface_cb, f);
			if (rc == 0 && !f->n_match && !f->driver[0] && !f->kind[0])
				rc = yw_err(&c->w, e, "%s: needs at least one of match, driver, kind", what);
		} else if (key == 2) {
			struct profile_bond *b;

			b = array_add((void **)&p->bonds, &p->n_bonds, sizeof(*b));
			if (!b)
				return fab_err_set(c->w.err, -ENOMEM, "profile: out of memory");
			fab_bond_init(&b->want);
			b->mark = m;
			rc = walk_map(c, e, what, bond_keys, bond_cb, b);
			if (rc == 0 && !b->want.name[0])
				rc = yw_err(&c->w, e, "%s: 'name' is required", what);
			for (size_t j = 0; rc == 0 && j + 1 < p->n_bonds; j++)
				if (!strcmp(p->bonds[j].want.name, b->want.name))
					rc = yw_err(&c->w, e, "%s: bond '%s' defined twice", what,
						  b->want.name);
		} else if (key == 4) {
			rc = profile_nic_parse(&c->w, e, what, m, p);
		} else {
			struct profile_ib *ib;

			ib = array_add((void **)&p->ib, &p->n_ib, sizeof(*ib));
			if (!ib)
				return fab_err_set(c->w.err, -ENOMEM, "profile: out of memory");
			ib->mark = m;
			rc = walk_map(c, e, what, ib_keys, ib_cb, ib);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_bonds; i++)
		fab_bond_fini(&p->bonds[i].want);
	free(p->bonds);
	free(p->ifaces);
	free(p->ib);
	free(p->nics);
	free(p);
}

/* Reject aliases anywhere: walk the raw events once. */
static int check_no_alias(const char *name, const unsigned char *buf, size_t len,
			  struct fab_err *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return fab_err_set(err, -ENOMEM, "profile: out of memory");
	yaml_parser_set_input_string(&parser, buf, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev))
			break;	/* the document loader reports the syntax error */
		if (ev.type == YAML_ALIAS_EVENT || (ev.type == YAML_SCALAR_EVENT && ev.data.scalar.anchor) ||
		    (ev.type == YAML_SEQUENCE_START_EVENT && ev.data.sequence_start.anchor) ||
		    (ev.type == YAML_MAPPING_START_EVENT && ev.data.mapping_start.anchor)) {
			rc = fab_err_input(err, -EINVAL, "%s:%zu:%zu: anchors and aliases are not allowed in a profile",
					   name, ev.start_mark.line + 1, ev.start_mark.column + 1);
			done = true;
		}
		if (ev.type == YAML_STREAM_END_EVENT)
			done = true;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int profile_parse(const char *name, const unsigned char *buf, size_t len,
		  struct profile **out, struct fab_err *err)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	struct profile *p = NULL;
	struct pctx c = { .w = { .doc = &doc, .fname = name, .err = err } };
	yaml_node_t *root;
	bool have_doc = false;
	int rc;

	if (len > PROFILE_MAX_BYTES)
		return fab_err_input(err, -EFBIG, "%s: larger than %d bytes", name, PROFILE_MAX_BYTES);
	rc = check_no_alias(name, buf, len, err);
	if (rc < 0)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return fab_err_set(err, -ENOMEM, "profile: out of memory");
	yaml_parser_set_input_string(&parser, buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = fab_err_input(err, -EINVAL, "%s:%zu:%zu: %s%s%s", name,
				   parser.problem_mark.line + 1, parser.problem_mark.column + 1,
				   parser.problem ? parser.problem : "malformed yaml",
				   parser.context ? " " : "", parser.context ? parser.context : "");
		goto out;
	}
	have_doc = true;
	p = calloc(1, sizeof(*p));
	if (!p) {
		rc = fab_err_set(err, -ENOMEM, "profile: out of memory");
		goto out;
	}
	str_fmt(p->path, sizeof(p->path), "%s", name);
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = fab_err_input(err, -EINVAL, "%s:1:1: empty profile", name);
		goto out;
	}
	rc = walk_map(&c, root, "profile", top_keys, top_cb, p);
	if (rc < 0)
		goto out;
	/* A second document in the same file is almost certainly a mistake. */
	if (!yaml_parser_load(&parser, &extra)) {
		rc = fab_err_input(err, -EINVAL, "%s:%zu:%zu: %s", name,
				   parser.problem_mark.line + 1, parser.problem_mark.column + 1,
				   parser.problem ? parser.problem : "malformed yaml");
		goto out;
	}
	if (yaml_document_get_root_node(&extra)) {
		rc = fab_err_input(err, -EINVAL, "%s:%zu:%zu: more than one document in a profile",
				   name, extra.start_mark.line + 1, extra.start_mark.column + 1);
		yaml_document_delete(&extra);
		goto out;
	}
	yaml_document_delete(&extra);
	*out = p;
	p = NULL;
	rc = 0;
out:
	profile_free(p);
	if (have_doc)
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

static bool glob_ok(const char *pat, const char *s)
{
	return !pat[0] || fnmatch(pat, s ? s : "", 0) == 0;
}

static bool globs_ok(const char (*globs)[32], size_t n, const char *s)
{
	if (!n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], s, 0) == 0)
			return true;
	return false;
}

bool profile_ib_matches(const struct profile_ib *ib, const char *dev)
{
	return globs_ok(ib->match, ib->n_match, dev);
}

const char *profile_match_str(const char (*globs)[32], size_t n, char *buf, size_t len)
{
	size_t off = 0;

	str_fmt(buf, len, "*");
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)str_fmt(buf + off, len - off, "%s%s", i ? "|" : "", globs[i]);
	return buf;
}

bool profile_iface_matches(const struct profile_iface *iface, const char *name,
			   const char *driver, const char *kind)
{
	if (!globs_ok(iface->match, iface->n_match, name) || !glob_ok(iface->driver, driver))
		return false;
	if (!strcmp(iface->kind, "hw"))
		return !kind || !kind[0];
	return glob_ok(iface->kind, kind);
}
