// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One verdict per cable end (see optics.h; the rules, in words, are
 * docs/optics.md -- keep the two together).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/optics.h"
#include "util/str.h"

#define DBM_FLOOR -40.0		/* 0.1 uW, the power fields' resolution */

void optics_link_init(struct optics_link *l)
{
	memset(l, 0, sizeof(*l));
	l->speed_mbps = -1;
}

const char *optics_fec_name(enum optics_fec f)
{
	switch (f) {
	case OPTICS_FEC_NONE:
		return "None";
	case OPTICS_FEC_BASER:
		return "BaseR";
	case OPTICS_FEC_RS:
		return "RS";
	case OPTICS_FEC_LLRS:
		return "LLRS";
	default:
		return "";
	}
}

const char *optics_health_name(enum optics_health h)
{
	static const char *const names[] = { "unknown", "healthy", "marginal", "failing" };

	return (unsigned int)h < 4 ? names[h] : "unknown";
}

const char *optics_hint_text(enum optics_hint h)
{
	switch (h) {
	case OPTICS_HINT_CLEAN:
		return "inspect and clean the connectors at both ends";
	case OPTICS_HINT_RESEAT:
		return "reseat the module and the cable";
	case OPTICS_HINT_FAR_END:
		return "check the far end's transmitter";
	case OPTICS_HINT_REPLACE_CABLE:
		return "replace the cable";
	case OPTICS_HINT_REPLACE_OPTIC:
		return "replace the optic";
	case OPTICS_HINT_COOLING:
		return "check airflow, then replace the optic";
	default:
		return "";
	}
}

void optics_policy_default(struct optics_policy *p)
{
	*p = (struct optics_policy){
		.temp_high_warn_c = 70.0,
		.temp_high_alarm_c = 75.0,
		.rx_low_warn_dbm = -10.0,
		.rx_low_alarm_dbm = -13.0,
		.lane_spread_db = 3.0,
		.ber_limit_kp4 = 2.4e-4,
		.ber_limit_kr4 = 5e-5,
		.ber_marginal_ratio = 0.1,
		.flaps_failing = 3,
		.ib_ber_limit = 1e-12,
	};
}

static double dbm(double mw)
{
	return mw > 0 ? module_mw_to_dbm(mw) : DBM_FLOOR;
}

static struct optics_finding *add(struct optics_verdict *v, enum optics_health level,
				  const char *code, unsigned int lane, enum optics_hint hint,
				  const char *source, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static struct optics_finding *add(struct optics_verdict *v, enum optics_health level,
				  const char *code, unsigned int lane, enum optics_hint hint,
				  const char *source, const char *fmt, ...)
{
	static struct optics_finding spill;	/* past the cap: written, never shown */
	struct optics_finding *f = v->n < OPTICS_FINDINGS_MAX ? &v->f[v->n++] : &spill;
	va_list ap;

	memset(f, 0, sizeof(*f));
	f->level = level;
	f->lane = lane;
	f->hint = hint;
	str_fmt(f->code, sizeof(f->code), "%s", code);
	str_fmt(f->source, sizeof(f->source), "%s", source);
	va_start(ap, fmt);
	str_vfmt(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	if (level > v->health) {
		v->health = level;
		v->hint = hint;
	}
	return f;
}

static void set_value(struct optics_finding *f, double value, double limit, const char *unit)
{
	f->has_value = true;
	f->value = value;
	f->limit = limit;
	str_fmt(f->unit, sizeof(f->unit), "%s", unit);
}

/* ---- module rules ---- */

static enum optics_hint qty_hint(enum module_qty q, bool high)
{
	switch (q) {
	case MODULE_TEMP:
		return OPTICS_HINT_COOLING;
	case MODULE_VCC:
		return OPTICS_HINT_RESEAT;
	case MODULE_RX_POWER:
		return high ? OPTICS_HINT_REPLACE_OPTIC : OPTICS_HINT_CLEAN;
	default:
		return OPTICS_HINT_REPLACE_OPTIC;	/* bias, Tx power: the laser */
	}
}

/* A value as people read it: dBm for power, the field's unit otherwise. */
static double shown(enum module_qty q, double v)
{
	return q == MODULE_TX_POWER || q == MODULE_RX_POWER ? dbm(v) : v;
}

static const char *shown_unit(enum module_qty q)
{
	return q == MODULE_TX_POWER || q == MODULE_RX_POWER ? "dBm" : module_qty_unit(q);
}

struct judged {
	enum optics_health level;
	enum module_level lv;		/* which threshold */
	const char *source;
	double limit;			/* in the field's unit; NAN when none */
};

/* The worst of the module's flag and the value against the module's thresholds. */
static struct judged judge_module(const struct fab_module *m, enum module_qty q,
				  struct module_val val, uint8_t flags)
{
	struct judged j = { OPTICS_HEALTHY, MODULE_HIGH_ALARM, "", NAN };

	for (unsigned int lv = 0; lv < MODULE_LEVELS; lv++) {
		enum optics_health lvl = lv <= MODULE_LOW_ALARM ? OPTICS_FAILING : OPTICS_MARGINAL;
		bool high = lv == MODULE_HIGH_ALARM || lv == MODULE_HIGH_WARN;
		bool flag = m->flags_ok && (flags & MODULE_FLAG(lv));
		bool over = m->th.ok && val.ok &&
			    (high ? val.v > m->th.v[q][lv] : val.v < m->th.v[q][lv]);

		if ((flag || over) && lvl > j.level) {
			j = (struct judged){ lvl, lv, flag ? "module flag" : "module threshold",
					     m->th.ok ? m->th.v[q][lv] : NAN };
		}
	}
	return j;
}

/* Where the module gives no thresholds: the policy's, for temperature and Rx power. */
static struct judged judge_policy(enum module_qty q, struct module_val val,
				  const struct optics_policy *pol)
{
	struct judged j = { OPTICS_HEALTHY, MODULE_HIGH_ALARM, "policy", NAN };

	if (!val.ok)
		return j;
	if (q == MODULE_TEMP && val.v > pol->temp_high_alarm_c)
		j = (struct judged){ OPTICS_FAILING, MODULE_HIGH_ALARM, "policy",
				     pol->temp_high_alarm_c };
	else if (q == MODULE_TEMP && val.v > pol->temp_high_warn_c)
		j = (struct judged){ OPTICS_MARGINAL, MODULE_HIGH_WARN, "policy",
				     pol->temp_high_warn_c };
	else if (q == MODULE_RX_POWER && dbm(val.v) < pol->rx_low_alarm_dbm)
		j = (struct judged){ OPTICS_FAILING, MODULE_LOW_ALARM, "policy",
				     pow(10.0, pol->rx_low_alarm_dbm / 10.0) };
	else if (q == MODULE_RX_POWER && dbm(val.v) < pol->rx_low_warn_dbm)
		j = (struct judged){ OPTICS_MARGINAL, MODULE_LOW_WARN, "policy",
				     pow(10.0, pol->rx_low_warn_dbm / 10.0) };
	return j;
}

/* Judge one quantity of the module (lane 0) or of a lane; true when a finding was made. */
static bool judge_qty(const struct fab_module *m, enum module_qty q, unsigned int lane,
		      struct module_val val, uint8_t flags, const struct optics_policy *pol,
		      struct optics_verdict *v)
{
	struct judged j = judge_module(m, q, val, flags);
	bool high;
	char code[32], where[16] = "";
	struct optics_finding *f;

	if (j.level == OPTICS_HEALTHY && !m->th.ok)
		j = judge_policy(q, val, pol);
	if (j.level == OPTICS_HEALTHY)
		return false;
	high = j.lv == MODULE_HIGH_ALARM || j.lv == MODULE_HIGH_WARN;
	str_fmt(code, sizeof(code), "%s_%s", module_qty_name(q), module_level_name(j.lv));
	if (lane)
		str_fmt(where, sizeof(where), " on lane %u", lane);
	f = add(v, j.level, code, lane, qty_hint(q, high), j.source, "%s %s%s (%s)",
		module_qty_name(q), module_level_name(j.lv), where, j.source);
	if (val.ok) {
		double lim = isnan(j.limit) ? NAN : shown(q, j.limit);

		set_value(f, shown(q, val.v), lim, shown_unit(q));
		str_fmt(f->text, sizeof(f->text), "%s %.2f %s%s, %s %s %.2f %s (%s)",
			module_qty_name(q), shown(q, val.v), shown_unit(q), where,
			high ? "above" : "below", module_level_name(j.lv),
			lim, shown_unit(q), j.source);
		if (isnan(j.limit))
			str_fmt(f->text, sizeof(f->text), "%s %.2f %s%s: %s set by the module",
				module_qty_name(q), shown(q, val.v), shown_unit(q), where,
				module_level_name(j.lv));
	}
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the lanes' power in dBm (lanes with light only); NAN when < 2. */
static double lane_median_dbm(const struct fab_module *m, bool rx)
{
	double d[MODULE_LANES_MAX];
	unsigned int n = 0;

	for (unsigned int i = 0; i < m->n_lanes; i++) {
		struct module_val p = rx ? m->lane[i].rx_mw : m->lane[i].tx_mw;

		if (p.ok && p.v > 0)
			d[n++] = dbm(p.v);
	}
	if (n < 2)
		return NAN;
	qsort(d, n, sizeof(d[0]), cmp_double);
	return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
}

static bool lane_dark(const struct module_lane *l)
{
	return (l->rx_mw.ok && l->rx_mw.v <= 0) || l->rx_los;
}

/* Lanes with light; *@dark gets those without (0 mW or loss of signal). */
static unsigned int lanes_lit(const struct fab_module *m, unsigned int *dark)
{
	unsigned int lit = 0;

	*dark = 0;
	for (unsigned int i = 0; i < m->n_lanes; i++) {
		*dark += lane_dark(&m->lane[i]);
		lit += !lane_dark(&m->lane[i]) && m->lane[i].rx_mw.ok;
	}
	return lit;
}

/*
 * Lanes with no light while a sibling has light (one fibre of the cable:
 * lane_lost, instead of that lane's Rx threshold finding), or no light on
 * any lane (the far end).  Marks the lanes it judged in @judged.
 */
static void lane_lost(const struct fab_module *m, bool *judged, struct optics_verdict *v)
{
	unsigned int dark, lit = lanes_lit(m, &dark);

	if (!dark)
		return;
	if (!lit) {
		for (unsigned int i = 0; i < m->n_lanes; i++)
			judged[i] = lane_dark(&m->lane[i]);
		add(v, OPTICS_FAILING, "rx_no_light", 0, OPTICS_HINT_FAR_END, "module",
		    "no light on any lane: the far end is off or the fibre is not connected");
		return;
	}
	for (unsigned int i = 0; i < m->n_lanes; i++) {
		const struct module_lane *l = &m->lane[i];

		if (!lane_dark(l))
			continue;
		judged[i] = true;
		add(v, OPTICS_FAILING, "lane_lost", i + 1, OPTICS_HINT_CLEAN, "module",
		    "lane %u has no light (%s) while %u other lane%s do: one fibre of the cable; "
		    "clean it, then replace the cable", i + 1,
		    l->rx_los ? "loss of signal" : "0 mW", lit, lit == 1 ? "" : "s");
	}
}

/* A lane far below the median of its siblings (Rx: the fibre; Tx: the laser). */
static void lane_spread(const struct fab_module *m, bool rx, const bool *judged,
			const struct optics_policy *pol, struct optics_verdict *v)
{
	double med = lane_median_dbm(m, rx);

	if (isnan(med))
		return;
	for (unsigned int i = 0; i < m->n_lanes; i++) {
		struct module_val p = rx ? m->lane[i].rx_mw : m->lane[i].tx_mw;
		struct optics_finding *f;

		if (judged[i] || !p.ok || p.v <= 0 || dbm(p.v) >= med - pol->lane_spread_db)
			continue;
		f = add(v, OPTICS_MARGINAL, rx ? "rx_power_lane_low" : "tx_power_lane_low", i + 1,
			rx ? OPTICS_HINT_CLEAN : OPTICS_HINT_REPLACE_OPTIC, "policy",
			"lane %u %s power %.2f dBm is %.1f dB below its lanes' median %.2f dBm",
			i + 1, rx ? "Rx" : "Tx", dbm(p.v), med - dbm(p.v), med);
		set_value(f, dbm(p.v), med - pol->lane_spread_db, "dBm");
	}
}

static void lane_rules(const struct fab_module *m, const struct optics_policy *pol,
		       struct optics_verdict *v)
{
	bool rx_judged[MODULE_LANES_MAX] = { false }, tx_judged[MODULE_LANES_MAX] = { false };

	for (unsigned int i = 0; i < m->n_lanes; i++) {
		const struct module_lane *l = &m->lane[i];

		if (l->tx_fault)
			add(v, OPTICS_FAILING, "tx_fault", i + 1, OPTICS_HINT_REPLACE_OPTIC,
			    "module flag", "transmitter fault on lane %u", i + 1);
		judge_qty(m, MODULE_BIAS, i + 1, l->bias_ma, l->flags[MODULE_BIAS], pol, v);
		tx_judged[i] = judge_qty(m, MODULE_TX_POWER, i + 1, l->tx_mw,
					 l->flags[MODULE_TX_POWER], pol, v);
	}
	lane_lost(m, rx_judged, v);
	for (unsigned int i = 0; i < m->n_lanes; i++)
		if (!rx_judged[i])
			rx_judged[i] = judge_qty(m, MODULE_RX_POWER, i + 1, m->lane[i].rx_mw,
						 m->lane[i].flags[MODULE_RX_POWER], pol, v);
	lane_spread(m, true, rx_judged, pol, v);
	lane_spread(m, false, tx_judged, pol, v);
}

static void module_rules(const struct fab_module *m, const struct optics_policy *pol,
			 struct optics_verdict *v)
{
	if (!strcmp(m->state, "ModuleFault"))
		add(v, OPTICS_FAILING, "module_fault", 0, OPTICS_HINT_REPLACE_OPTIC, "module",
		    "the module reports ModuleFault");
	judge_qty(m, MODULE_TEMP, 0, m->temp_c, m->temp_flags, pol, v);
	judge_qty(m, MODULE_VCC, 0, m->vcc_v, m->vcc_flags, pol, v);
	lane_rules(m, pol, v);
}

/* ---- link rules ---- */

/* @b - @a of a counter read twice; false when either is missing or it went back. */
static bool delta(bool ok_a, uint64_t a, bool ok_b, uint64_t b, uint64_t *d)
{
	if (!ok_a || !ok_b || b < a)
		return false;
	*d = b - a;
	return true;
}

int optics_ber(const struct optics_link *before, const struct optics_link *now, double *ber,
	       bool *lower_bound)
{
	double secs = now->t_s - before->t_s, bits;
	uint64_t d;

	if (secs <= 0 || now->speed_mbps <= 0)
		return -ENODATA;
	bits = (double)now->speed_mbps * 1e6 * secs;
	if (delta(before->corrected_bits.ok, before->corrected_bits.total,
		  now->corrected_bits.ok, now->corrected_bits.total, &d)) {
		*ber = (double)d / bits;
		*lower_bound = false;
		return 0;
	}
	if (delta(before->corrected_blocks.ok, before->corrected_blocks.total,
		  now->corrected_blocks.ok, now->corrected_blocks.total, &d)) {
		*ber = (double)d / bits;
		*lower_bound = true;
		return 0;
	}
	return -ENODATA;
}

double optics_ber_limit(const struct optics_link *l, const struct fab_module *m,
			const struct optics_policy *pol, char *code, size_t len)
{
	unsigned int lanes = l->lanes;
	double lane_mbps;

	str_fmt(code, len, "%s", "");
	if (l->fec != OPTICS_FEC_RS || l->speed_mbps <= 0)
		return 0;
	if (!lanes && m && m->present && m->n_lanes)
		lanes = m->n_lanes;
	if (!lanes && l->speed_mbps >= 200000)
		lanes = 1;	/* every Ethernet rate from 200G up runs PAM4 lanes */
	if (!lanes)
		return 0;
	lane_mbps = (double)l->speed_mbps / lanes;
	if (lane_mbps >= 50000) {
		str_fmt(code, len, "RS(544,514)");
		return pol->ber_limit_kp4;
	}
	str_fmt(code, len, "RS(528,514)");
	return pol->ber_limit_kr4;
}

static uint64_t flaps(const struct optics_link *a, const struct optics_link *b)
{
	uint64_t d = 0, best = 0;

	if (delta(a->carrier_down_ok, a->carrier_down, b->carrier_down_ok, b->carrier_down, &d))
		best = d;
	else if (delta(a->carrier_changes_ok, a->carrier_changes, b->carrier_changes_ok,
		       b->carrier_changes, &d))
		best = (d + 1) / 2;
	if (delta(a->down_events_ok, a->down_events, b->down_events_ok, b->down_events, &d) &&
	    d > best)
		best = d;
	return best;
}

static void ber_rule(const struct fab_module *m, const struct optics_link *a,
		     const struct optics_link *b, const struct optics_policy *pol,
		     struct optics_verdict *v)
{
	struct optics_finding *f;
	double limit;

	limit = optics_ber_limit(b, m, pol, v->fec_code, sizeof(v->fec_code));
	v->ber_limit = limit;
	v->ber_ok = optics_ber(a, b, &v->ber, &v->ber_lower_bound) == 0;
	if (!v->ber_ok || limit <= 0)
		return;
	if (v->ber > limit) {
		f = add(v, OPTICS_FAILING, "pre_fec_ber", 0, OPTICS_HINT_CLEAN, "window",
			"pre-FEC BER %s%.2e above the %s limit %.1e: the FEC is near the end of "
			"what it corrects", v->ber_lower_bound ? "at least " : "", v->ber,
			v->fec_code, limit);
		set_value(f, v->ber, limit, "");
	} else if (!v->ber_lower_bound && v->ber > limit * pol->ber_marginal_ratio) {
		f = add(v, OPTICS_MARGINAL, "pre_fec_ber", 0, OPTICS_HINT_CLEAN, "window",
			"pre-FEC BER %.2e within a decade of the %s limit %.1e", v->ber,
			v->fec_code, limit);
		set_value(f, v->ber, limit * pol->ber_marginal_ratio, "");
	}
}

static void link_rules(const struct fab_module *m, const struct optics_link *a,
		       const struct optics_link *b, const struct optics_policy *pol,
		       struct optics_verdict *v)
{
	struct optics_finding *f;
	uint64_t d;

	v->windowed = true;
	v->window_s = b->t_s - a->t_s;
	if (delta(a->uncorrectable_blocks.ok, a->uncorrectable_blocks.total,
		  b->uncorrectable_blocks.ok, b->uncorrectable_blocks.total, &d)) {
		v->uncorrectable = d;
		if (d) {
			f = add(v, OPTICS_FAILING, "fec_uncorrectable", 0, OPTICS_HINT_CLEAN,
				"window", "%llu uncorrectable FEC blocks in %.3g s: frames were "
				"lost; clean, reseat, then replace the cable",
				(unsigned long long)d, v->window_s);
			set_value(f, (double)d, 0, "blocks");
		}
	}
	ber_rule(m, a, b, pol, v);
	v->flaps = flaps(a, b);
	if (v->flaps) {
		enum optics_health lvl = v->flaps >= pol->flaps_failing ? OPTICS_FAILING :
								       OPTICS_MARGINAL;

		f = add(v, lvl, "flaps", 0, OPTICS_HINT_RESEAT, "window",
			"the link went down %llu time%s in %.3g s",
			(unsigned long long)v->flaps, v->flaps == 1 ? "" : "s", v->window_s);
		set_value(f, (double)v->flaps, pol->flaps_failing, "downs");
	}
}

static bool link_judgeable(const struct optics_link *a, const struct optics_link *b)
{
	return a && b && b->t_s > a->t_s &&
	       (b->fec_ok || b->carrier_changes_ok || b->carrier_down_ok || b->down_events_ok);
}

void optics_verdict(const struct fab_module *m, const struct optics_link *before,
		    const struct optics_link *now, const struct optics_policy *pol,
		    struct optics_verdict *v)
{
	bool judged = false;

	memset(v, 0, sizeof(*v));
	if (m && m->present && (m->dom || m->flags_ok || m->state[0])) {
		module_rules(m, pol, v);
		judged = true;
	}
	if (link_judgeable(before, now)) {
		link_rules(m, before, now, pol, v);
		judged = true;
	}
	if (v->health == OPTICS_UNKNOWN && judged)
		v->health = OPTICS_HEALTHY;
}

/* ---- both ends of a cable ---- */

/* How low @rx (mW) is at @m: failing past the alarm, marginal past the warning. */
static enum optics_health rx_low(const struct fab_module *m, double rx,
				 const struct optics_policy *pol)
{
	double alarm = m->th.ok ? dbm(m->th.v[MODULE_RX_POWER][MODULE_LOW_ALARM]) :
		       pol->rx_low_alarm_dbm;
	double warn = m->th.ok ? dbm(m->th.v[MODULE_RX_POWER][MODULE_LOW_WARN]) :
		      pol->rx_low_warn_dbm;

	if (dbm(rx) < alarm)
		return OPTICS_FAILING;
	return dbm(rx) < warn ? OPTICS_MARGINAL : OPTICS_HEALTHY;
}

/* Tx of lane @l at @m is low: a flag at low warning or alarm, or below the module's low warning. */
static bool tx_low(const struct fab_module *m, const struct module_lane *l)
{
	if (m->flags_ok && (l->flags[MODULE_TX_POWER] &
			    (MODULE_FLAG(MODULE_LOW_ALARM) | MODULE_FLAG(MODULE_LOW_WARN))))
		return true;
	return m->th.ok && l->tx_mw.v < m->th.v[MODULE_TX_POWER][MODULE_LOW_WARN];
}

/* Light from @tx's end (named @tx_name) to @rx's end (@rx_name), lane by lane. */
static void cable_direction(const struct optics_port *rx, const char *rx_name,
			    const struct optics_port *tx, const char *tx_name,
			    const struct optics_policy *pol, struct optics_verdict *v,
			    bool *judged)
{
	const struct fab_module *mr = &rx->mod, *mt = &tx->mod;
	unsigned int n = mr->n_lanes < mt->n_lanes ? mr->n_lanes : mt->n_lanes;

	for (unsigned int i = 0; i < n; i++) {
		const struct module_lane *lr = &mr->lane[i], *lt = &mt->lane[i];
		enum optics_health h;
		struct optics_finding *f;
		double loss;

		if (!lr->rx_mw.ok || !lt->tx_mw.ok)
			continue;
		*judged = true;
		h = rx_low(mr, lr->rx_mw.v, pol);
		if (h == OPTICS_HEALTHY)
			continue;
		loss = dbm(lt->tx_mw.v) - dbm(lr->rx_mw.v);
		if (tx_low(mt, lt)) {
			f = add(v, h, "far_tx_low", i + 1, OPTICS_HINT_REPLACE_OPTIC, "both ends",
				"lane %u: Rx %.2f dBm at %s because Tx is low (%.2f dBm) at %s: "
				"replace that optic", i + 1, dbm(lr->rx_mw.v), rx_name,
				dbm(lt->tx_mw.v), tx_name);
		} else {
			f = add(v, h, "cable_loss", i + 1, OPTICS_HINT_CLEAN, "both ends",
				"lane %u: %.2f dBm sent at %s, %.2f dBm received at %s: "
				"%.1f dB lost between them; clean both connectors, then "
				"replace the cable", i + 1, dbm(lt->tx_mw.v), tx_name,
				dbm(lr->rx_mw.v), rx_name, loss);
		}
		set_value(f, loss, 0, "dB");
	}
}

void optics_cable_verdict(const struct optics_port *a, const char *a_name,
			  const struct optics_port *b, const char *b_name,
			  const struct optics_policy *pol, struct optics_verdict *v)
{
	bool judged = false;

	memset(v, 0, sizeof(*v));
	if (a->module_rc || b->module_rc || !a->mod.present || !b->mod.present)
		return;
	a_name = a_name && *a_name ? a_name : a->ifname;
	b_name = b_name && *b_name ? b_name : b->ifname;
	cable_direction(a, a_name, b, b_name, pol, v, &judged);
	cable_direction(b, b_name, a, a_name, pol, v, &judged);
	if (judged && v->health == OPTICS_UNKNOWN)
		v->health = OPTICS_HEALTHY;
}

/* ---- the set ---- */

void optics_set_init(struct optics_set *s)
{
	memset(s, 0, sizeof(*s));
}

void optics_set_fini(struct optics_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

struct optics_port *optics_set_add(struct optics_set *s, const char *ifname)
{
	struct optics_port *v = realloc(s->v, (s->n + 1) * sizeof(*v)), *p;

	if (!v)
		return NULL;
	s->v = v;
	p = &s->v[s->n++];
	memset(p, 0, sizeof(*p));
	str_fmt(p->ifname, sizeof(p->ifname), "%s", ifname);
	module_init(&p->mod);
	optics_link_init(&p->link);
	optics_link_init(&p->before);
	return p;
}

enum optics_health optics_set_worst(const struct optics_set *s)
{
	enum optics_health w = OPTICS_UNKNOWN;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].verdict.health > w)
			w = s->v[i].verdict.health;
	return w;
}

struct optics_port *optics_set_find(const struct optics_set *s, const char *ifname)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].ifname, ifname) == 0)
			return &s->v[i];
	return NULL;
}

const struct optics_finding *optics_verdict_worst(const struct optics_verdict *v)
{
	if (v->health < OPTICS_MARGINAL)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (v->f[i].level == v->health)
			return &v->f[i];
	return NULL;
}

void optics_set_judge(struct optics_set *now, const struct optics_set *before,
		      const struct optics_policy *pol)
{
	now->window_s = 0;
	for (size_t i = 0; i < now->n; i++) {
		struct optics_port *p = &now->v[i];
		const struct optics_port *b = before ? optics_set_find(before, p->ifname) : NULL;

		p->have_before = b && !b->link_rc && !p->link_rc;
		if (p->have_before)
			p->before = b->link;
		optics_verdict(p->module_rc ? NULL : &p->mod, p->have_before ? &p->before : NULL,
			       p->link_rc ? NULL : &p->link, pol, &p->verdict);
		if (p->verdict.windowed && p->verdict.window_s > now->window_s)
			now->window_s = p->verdict.window_s;
	}
}

int optics_hosts_init(struct optics_hosts *h, size_t n)
{
	memset(h, 0, sizeof(*h));
	h->set = calloc(n ? n : 1, sizeof(*h->set));
	h->read = calloc(n ? n : 1, sizeof(*h->read));
	h->why = calloc(n ? n : 1, sizeof(*h->why));
	h->wanted = calloc(n ? n : 1, sizeof(*h->wanted));
	if (!h->set || !h->read || !h->why || !h->wanted) {
		optics_hosts_fini(h);
		return -ENOMEM;
	}
	h->n = n;
	for (size_t i = 0; i < n; i++)
		optics_set_init(&h->set[i]);
	return 0;
}

void optics_hosts_fini(struct optics_hosts *h)
{
	for (size_t i = 0; h->set && i < h->n; i++)
		optics_set_fini(&h->set[i]);
	for (size_t i = 0; h->why && i < h->n; i++)
		free(h->why[i]);
	free(h->ib);
	free(h->set);
	free(h->read);
	free(h->why);
	free(h->wanted);
	memset(h, 0, sizeof(*h));
}

struct optics_ib_end *optics_hosts_ib_add(struct optics_hosts *h)
{
	struct optics_ib_end *v = realloc(h->ib, (h->n_ib + 1) * sizeof(*v));

	if (!v)
		return NULL;
	h->ib = v;
	memset(&v[h->n_ib], 0, sizeof(*v));
	return &v[h->n_ib++];
}

/* ---- InfiniBand ---- */

static void ib_symbol_rule(uint64_t d, bool ceiling, double window_s, double rate_mbps,
			   const struct optics_policy *pol, struct optics_verdict *v)
{
	struct optics_finding *f;
	double bits = rate_mbps * 1e6 * window_s;

	if (!d)
		return;
	v->ber_ok = bits > 0;
	v->ber_lower_bound = ceiling;
	v->ber = bits > 0 ? (double)d / bits : 0;
	v->ber_limit = pol->ib_ber_limit;
	str_fmt(v->fec_code, sizeof(v->fec_code), "IB symbol");
	if (v->ber_ok && v->ber > pol->ib_ber_limit) {
		f = add(v, OPTICS_FAILING, "symbol_errors", 0, OPTICS_HINT_CLEAN, "window",
			"%s%llu symbol errors in %.3g s: %s%.2e per bit, above the %.0e the "
			"InfiniBand specification allows", ceiling ? "at least " : "",
			(unsigned long long)d, window_s, ceiling ? "at least " : "", v->ber,
			pol->ib_ber_limit);
		set_value(f, v->ber, pol->ib_ber_limit, "");
		return;
	}
	f = add(v, OPTICS_MARGINAL, "symbol_errors", 0, OPTICS_HINT_CLEAN, "window",
		"%llu symbol error%s in %.3g s%s", (unsigned long long)d, d == 1 ? "" : "s",
		window_s, v->ber_ok ? "" : " (the link's rate unknown: no ratio)");
	set_value(f, (double)d, 0, "errors");
}

void optics_ib_verdict(const struct optics_ib_pma *before, const struct optics_ib_pma *after,
		       double window_s, double rate_mbps, const struct optics_policy *pol,
		       struct optics_verdict *v)
{
	struct optics_finding *f;
	uint64_t sym, rec, down;

	memset(v, 0, sizeof(*v));
	if (!before || !after || !before->ok || !after->ok)
		return;
	v->windowed = true;
	v->window_s = window_s > 0 ? window_s : 0;
	v->health = OPTICS_HEALTHY;
	if (delta(true, before->symbol_errors, true, after->symbol_errors, &sym))
		ib_symbol_rule(sym, after->symbol_errors >= OPTICS_IB_SYMBOL_MAX, window_s,
			       rate_mbps, pol, v);
	if (!delta(true, before->link_recovers, true, after->link_recovers, &rec) ||
	    !delta(true, before->link_downed, true, after->link_downed, &down))
		return;
	v->flaps = rec + down;
	if (!v->flaps)
		return;
	f = add(v, v->flaps >= pol->flaps_failing ? OPTICS_FAILING : OPTICS_MARGINAL, "flaps", 0,
		OPTICS_HINT_RESEAT, "window", "the link went down %llu time%s and retrained %llu "
		"time%s in %.3g s", (unsigned long long)down, down == 1 ? "" : "s",
		(unsigned long long)rec, rec == 1 ? "" : "s", window_s);
	set_value(f, (double)v->flaps, pol->flaps_failing, "downs");
}
