// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Modules and links in the Prometheus text exposition format
 * (`status --prom`, for node_exporter's textfile collector): one family
 * at a time, HELP and TYPE first, then a series per port or per lane.
 * Units are in the names (docs/optics.md lists every family).  A value
 * the module does not give has no series; 0 mW has no dBm series (the
 * mW family says "no light").
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "render/optics.h"
#include "render/render_impl.h"

struct prom {
	FILE *f;
	const char *host;
};

static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static void head(struct prom *p, const char *name, const char *type, const char *help)
{
	fprintf(p->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* "name{host="H",ifname="I"[,lane="N"][,EXTRA]} value" */
static void series(struct prom *p, const char *name, const char *ifname, unsigned int lane,
		   const char *extra, double v)
{
	fprintf(p->f, "%s{host=\"", name);
	label(p->f, p->host);
	fputs("\",ifname=\"", p->f);
	label(p->f, ifname);
	fputc('"', p->f);
	if (lane)
		fprintf(p->f, ",lane=\"%u\"", lane);
	if (extra)
		fprintf(p->f, ",%s", extra);
	fprintf(p->f, "} %.10g\n", v);
}

static void info(struct prom *p, const struct optics_set *s)
{
	head(p, "fabricctl_module_info", "gauge",
	     "A plugged module, its identity in labels (value 1).");
	for (size_t i = 0; i < s->n; i++) {
		const struct fab_module *m = &s->v[i].mod;
		static const char *const keys[] = { "type", "vendor", "pn", "sn", "rev", "media" };
		const char *vals[] = { m->type, m->vendor, m->pn, m->sn, m->rev, m->media };

		if (s->v[i].module_rc)
			continue;
		fputs("fabricctl_module_info{host=\"", p->f);
		label(p->f, p->host);
		fputs("\",ifname=\"", p->f);
		label(p->f, s->v[i].ifname);
		fputc('"', p->f);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			fprintf(p->f, ",%s=\"", keys[k]);
			label(p->f, vals[k]);
			fputc('"', p->f);
		}
		fprintf(p->f, ",spec=\"%s\"} 1\n", module_spec_name(m->spec));
	}
}

static void module_vals(struct prom *p, const struct optics_set *s, bool temp)
{
	head(p, temp ? "fabricctl_module_temperature_celsius" : "fabricctl_module_voltage_volts",
	     "gauge", temp ? "Module temperature." : "Module supply voltage.");
	for (size_t i = 0; i < s->n; i++) {
		struct module_val v = temp ? s->v[i].mod.temp_c : s->v[i].mod.vcc_v;

		if (!s->v[i].module_rc && v.ok)
			series(p, temp ? "fabricctl_module_temperature_celsius" :
				"fabricctl_module_voltage_volts", s->v[i].ifname, 0, NULL, v.v);
	}
}

enum lane_fam { FAM_TX_MW, FAM_TX_DBM, FAM_RX_MW, FAM_RX_DBM, FAM_BIAS, FAM_N };

static void lane_family(struct prom *p, const struct optics_set *s, enum lane_fam fam)
{
	static const char *const names[FAM_N] = {
		"fabricctl_module_tx_power_milliwatts", "fabricctl_module_tx_power_dbm",
		"fabricctl_module_rx_power_milliwatts", "fabricctl_module_rx_power_dbm",
		"fabricctl_module_bias_milliamperes",
	};
	static const char *const help[FAM_N] = {
		"Transmitted optical power per lane.",
		"Transmitted optical power per lane (no series at 0 mW).",
		"Received optical power per lane.",
		"Received optical power per lane (no series at 0 mW).",
		"Laser bias current per lane.",
	};

	head(p, names[fam], "gauge", help[fam]);
	for (size_t i = 0; i < s->n; i++) {
		const struct fab_module *m = &s->v[i].mod;

		for (unsigned int l = 0; !s->v[i].module_rc && l < m->n_lanes; l++) {
			const struct module_lane *ln = &m->lane[l];
			struct module_val v = fam <= FAM_TX_DBM ? ln->tx_mw :
					      fam <= FAM_RX_DBM ? ln->rx_mw : ln->bias_ma;
			bool dbm = fam == FAM_TX_DBM || fam == FAM_RX_DBM;

			if (!v.ok || (dbm && v.v <= 0))
				continue;
			series(p, names[fam], s->v[i].ifname, l + 1, NULL,
			       dbm ? module_mw_to_dbm(v.v) : v.v);
		}
	}
}

/* 0 none, 1 warning, 2 alarm, per quantity (and lane). */
static int flag_level(uint8_t f)
{
	return f & MODULE_ALARMS ? 2 : f & MODULE_WARNS ? 1 : 0;
}

static void flags(struct prom *p, const struct optics_set *s)
{
	char extra[48];

	head(p, "fabricctl_module_flag", "gauge",
	     "The module's own alarm and warning flags: 0 none, 1 warning, 2 alarm.");
	for (size_t i = 0; i < s->n; i++) {
		const struct fab_module *m = &s->v[i].mod;

		if (s->v[i].module_rc || !m->flags_ok)
			continue;
		series(p, "fabricctl_module_flag", s->v[i].ifname, 0, "quantity=\"temperature\"",
		       flag_level(m->temp_flags));
		series(p, "fabricctl_module_flag", s->v[i].ifname, 0, "quantity=\"voltage\"",
		       flag_level(m->vcc_flags));
		for (unsigned int l = 0; l < m->n_lanes; l++)
			for (unsigned int q = MODULE_BIAS; q < MODULE_QTYS; q++) {
				snprintf(extra, sizeof(extra), "quantity=\"%s\"",
					 module_qty_name(q));
				series(p, "fabricctl_module_flag", s->v[i].ifname, l + 1, extra,
				       flag_level(m->lane[l].flags[q]));
			}
	}
}

static void health(struct prom *p, const struct optics_set *s)
{
	head(p, "fabricctl_module_health", "gauge",
	     "The cable end's verdict: -1 unknown, 0 healthy, 1 marginal, 2 failing.");
	for (size_t i = 0; i < s->n; i++)
		series(p, "fabricctl_module_health", s->v[i].ifname, 0, NULL,
		       (int)s->v[i].verdict.health - 1);
}

static void fec_counter(struct prom *p, const struct optics_set *s, const char *name,
			const char *help, size_t off)
{
	head(p, name, "counter", help);
	for (size_t i = 0; i < s->n; i++) {
		const struct optics_fec_stat *st =
			(const struct optics_fec_stat *)((const char *)&s->v[i].link + off);

		if (!s->v[i].link_rc && st->ok)
			series(p, name, s->v[i].ifname, 0, NULL, (double)st->total);
	}
}

static void link_counters(struct prom *p, const struct optics_set *s)
{
	head(p, "fabricctl_link_carrier_changes_total", "counter",
	     "Carrier changes of the interface since it was created.");
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].link_rc && s->v[i].link.carrier_changes_ok)
			series(p, "fabricctl_link_carrier_changes_total", s->v[i].ifname, 0, NULL,
			       (double)s->v[i].link.carrier_changes);
	head(p, "fabricctl_link_down_events_total", "counter",
	     "Link-down events the driver counted (ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT).");
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].link_rc && s->v[i].link.down_events_ok)
			series(p, "fabricctl_link_down_events_total", s->v[i].ifname, 0, NULL,
			       (double)s->v[i].link.down_events);
	head(p, "fabricctl_link_pre_fec_ber", "gauge",
	     "Pre-FEC bit error ratio over the status window (corrected bits over bits carried).");
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].verdict.ber_ok)
			series(p, "fabricctl_link_pre_fec_ber", s->v[i].ifname, 0, NULL,
			       s->v[i].verdict.ber);
}

int optics_prom(FILE *f, const char *host, const struct optics_set *s)
{
	struct prom p = { f, host };
	struct optics_set empty = { 0 };

	if (!s)
		s = &empty;
	info(&p, s);
	module_vals(&p, s, true);
	module_vals(&p, s, false);
	for (int fam = 0; fam < FAM_N; fam++)
		lane_family(&p, s, (enum lane_fam)fam);
	flags(&p, s);
	health(&p, s);
	fec_counter(&p, s, "fabricctl_link_fec_corrected_blocks_total",
		    "FEC codewords corrected.", offsetof(struct optics_link, corrected_blocks));
	fec_counter(&p, s, "fabricctl_link_fec_uncorrectable_blocks_total",
		    "FEC codewords that could not be corrected.",
		    offsetof(struct optics_link, uncorrectable_blocks));
	fec_counter(&p, s, "fabricctl_link_fec_corrected_bits_total",
		    "Bits corrected by FEC.", offsetof(struct optics_link, corrected_bits));
	link_counters(&p, s);
	return fflush(f) == EOF ? -EIO : 0;
}

int status_prom(struct render *out, const struct host_state *hs)
{
	return optics_prom(out->f, hs->hostname, hs->optics);
}
