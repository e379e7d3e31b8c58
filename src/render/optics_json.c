// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Modules and their verdicts as JSON: the "modules" array of
 * "fabricctl.status/1" (docs/json-status.md, docs/optics.md).  Keys never
 * depend on the data: a value the module or the driver does not give is
 * null.
 */
#include <math.h>
#include <stdio.h>

#include "render/optics.h"
#include "render/render_impl.h"

static json_t *num_or_null(bool ok, double v)
{
	return ok && isfinite(v) ? json_real(v) : json_null();
}

static json_t *val(struct module_val v)
{
	return num_or_null(v.ok, v.v);
}

/* dBm of a power; null when not given or 0 mW (no light: see the mW field). */
static json_t *val_dbm(struct module_val v)
{
	return num_or_null(v.ok && v.v > 0, v.ok && v.v > 0 ? module_mw_to_dbm(v.v) : 0);
}

static json_t *flags(bool ok, uint8_t f)
{
	json_t *a;

	if (!ok)
		return json_null();
	a = json_array();
	for (unsigned int lv = 0; lv < MODULE_LEVELS; lv++)
		if (f & MODULE_FLAG(lv))
			json_array_append_new(a, json_string(module_level_name(lv)));
	return a;
}

static json_t *opt_bool(bool ok, bool v)
{
	return ok ? json_boolean(v) : json_null();
}

static json_t *len(int m)
{
	return m >= 0 ? json_integer(m) : json_null();
}

static json_t *lengths(const struct module_length *l)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "smf", len(l->smf_m), "om1", len(l->om1_m), "om2", len(l->om2_m),
			 "om3", len(l->om3_m), "om4", len(l->om4_m), "om5", len(l->om5_m),
			 "cable", l->cable_m >= 0 ? json_real(l->cable_m) : json_null());
}

static json_t *thresholds(const struct module_thresholds *th)
{
	static const char *const keys[MODULE_QTYS] = {
		"temperature_c", "voltage_v", "bias_ma", "tx_power_mw", "rx_power_mw",
	};
	json_t *o;

	if (!th->ok)
		return json_null();
	o = json_object();
	for (unsigned int q = 0; q < MODULE_QTYS; q++) {
		json_t *lv = json_object();

		for (unsigned int l = 0; l < MODULE_LEVELS; l++)
			json_object_set_new(lv, module_level_name(l), json_real(th->v[q][l]));
		json_object_set_new(o, keys[q], lv);
	}
	return o;
}

static json_t *lane(const struct fab_module *m, unsigned int i)
{
	const struct module_lane *l = &m->lane[i];
	json_t *o = json_object();

	json_object_set_new(o, "lane", json_integer(i + 1));
	json_object_set_new(o, "tx_power_mw", val(l->tx_mw));
	json_object_set_new(o, "tx_power_dbm", val_dbm(l->tx_mw));
	json_object_set_new(o, "rx_power_mw", val(l->rx_mw));
	json_object_set_new(o, "rx_power_dbm", val_dbm(l->rx_mw));
	json_object_set_new(o, "bias_ma", val(l->bias_ma));
	json_object_set_new(o, "tx_power_flags", flags(m->flags_ok, l->flags[MODULE_TX_POWER]));
	json_object_set_new(o, "rx_power_flags", flags(m->flags_ok, l->flags[MODULE_RX_POWER]));
	json_object_set_new(o, "bias_flags", flags(m->flags_ok, l->flags[MODULE_BIAS]));
	json_object_set_new(o, "rx_los", opt_bool(l->rx_los_ok, l->rx_los));
	json_object_set_new(o, "tx_los", opt_bool(l->tx_los_ok, l->tx_los));
	json_object_set_new(o, "tx_fault", opt_bool(l->tx_fault_ok, l->tx_fault));
	return o;
}

static void identity(json_t *o, const struct fab_module *m)
{
	char oui[16];

	snprintf(oui, sizeof(oui), "%02x:%02x:%02x", m->oui[0], m->oui[1], m->oui[2]);
	json_object_set_new(o, "spec", json_string(module_spec_name(m->spec)));
	json_object_set_new(o, "id", json_integer(m->id));
	json_object_set_new(o, "type", json_text_or_null(m->type));
	json_object_set_new(o, "spec_rev", json_text_or_null(m->spec_rev));
	json_object_set_new(o, "vendor", json_text_or_null(m->vendor));
	json_object_set_new(o, "oui", json_string(oui));
	json_object_set_new(o, "pn", json_text_or_null(m->pn));
	json_object_set_new(o, "rev", json_text_or_null(m->rev));
	json_object_set_new(o, "sn", json_text_or_null(m->sn));
	json_object_set_new(o, "date", json_text_or_null(m->date));
	json_object_set_new(o, "connector", json_text_or_null(m->connector));
	json_object_set_new(o, "media", json_text_or_null(m->media));
	json_object_set_new(o, "compliance", json_text_or_null(m->compliance));
	json_object_set_new(o, "wavelength_nm",
			    num_or_null(m->wavelength_nm > 0, m->wavelength_nm));
	json_object_set_new(o, "length_m", lengths(&m->length));
	json_object_set_new(o, "flat_memory", json_boolean(m->flat));
	json_object_set_new(o, "state", json_text_or_null(m->state));
}

json_t *module_to_json(const struct fab_module *m)
{
	json_t *o = json_object(), *lanes = json_array(), *notes = json_array();

	identity(o, m);
	json_object_set_new(o, "dom", json_boolean(m->dom));
	json_object_set_new(o, "rx_power_type", json_string(m->rx_power_avg ? "average" : "oma"));
	json_object_set_new(o, "temperature_c", val(m->temp_c));
	json_object_set_new(o, "voltage_v", val(m->vcc_v));
	json_object_set_new(o, "flags_supported", json_boolean(m->flags_ok));
	json_object_set_new(o, "temperature_flags", flags(m->flags_ok, m->temp_flags));
	json_object_set_new(o, "voltage_flags", flags(m->flags_ok, m->vcc_flags));
	json_object_set_new(o, "thresholds", thresholds(&m->th));
	for (unsigned int i = 0; i < m->n_lanes; i++)
		json_array_append_new(lanes, lane(m, i));
	json_object_set_new(o, "lanes", lanes);
	for (unsigned int i = 0; i < m->n_notes; i++)
		json_array_append_new(notes, json_text(m->notes[i]));
	json_object_set_new(o, "notes", notes);
	return o;
}

static json_t *fec_stat(const struct optics_fec_stat *s)
{
	json_t *lanes;

	if (!s->ok)
		return json_null();
	lanes = json_array();
	for (unsigned int i = 0; i < s->n_lanes; i++)
		json_array_append_new(lanes, json_integer((json_int_t)s->lane[i]));
	return json_pack("{s:I, s:o}", "total", (json_int_t)s->total, "lanes", lanes);
}

static json_t *fec(const struct optics_link *l)
{
	json_t *hist = json_array();

	for (unsigned int i = 0; i < l->n_hist; i++)
		json_array_append_new(hist, json_pack("{s:I, s:I, s:I}",
			"low", (json_int_t)l->hist[i].low, "high", (json_int_t)l->hist[i].high,
			"count", (json_int_t)l->hist[i].count));
	return json_pack("{s:b, s:o, s:b, s:o, s:o, s:o, s:o}",
			 "supported", l->fec_ok,
			 "active", json_text_or_null(optics_fec_name(l->fec)),
			 "auto", l->fec_auto,
			 "corrected_blocks", fec_stat(&l->corrected_blocks),
			 "uncorrectable_blocks", fec_stat(&l->uncorrectable_blocks),
			 "corrected_bits", fec_stat(&l->corrected_bits),
			 "histogram", hist);
}

static json_t *counter(bool ok, uint64_t v)
{
	return ok ? json_integer((json_int_t)v) : json_null();
}

json_t *optics_link_to_json(const struct optics_link *l)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "speed_mbps",
			 l->speed_mbps > 0 ? json_integer(l->speed_mbps) : json_null(),
			 "lanes", l->lanes ? json_integer(l->lanes) : json_null(),
			 "link_up", opt_bool(l->link_ok, l->link_up),
			 "fec", fec(l),
			 "link_down_events", counter(l->down_events_ok, l->down_events),
			 "carrier_changes", counter(l->carrier_changes_ok, l->carrier_changes),
			 "carrier_down_count", counter(l->carrier_down_ok, l->carrier_down));
}

static json_t *finding(const struct optics_finding *f)
{
	json_t *o = json_object();

	json_object_set_new(o, "level", json_string(optics_health_name(f->level)));
	json_object_set_new(o, "code", json_string(f->code));
	json_object_set_new(o, "lane", f->lane ? json_integer(f->lane) : json_null());
	json_object_set_new(o, "value", num_or_null(f->has_value, f->value));
	json_object_set_new(o, "limit", num_or_null(f->has_value, f->limit));
	json_object_set_new(o, "unit", json_text_or_null(f->has_value ? f->unit : ""));
	json_object_set_new(o, "source", json_string(f->source));
	json_object_set_new(o, "hint", json_text_or_null(optics_hint_text(f->hint)));
	json_object_set_new(o, "text", json_text(f->text));
	return o;
}

json_t *optics_verdict_to_json(const struct optics_verdict *v)
{
	json_t *o = json_object(), *fs = json_array();

	json_object_set_new(o, "health", json_string(optics_health_name(v->health)));
	json_object_set_new(o, "hint", json_text_or_null(optics_hint_text(v->hint)));
	json_object_set_new(o, "windowed", json_boolean(v->windowed));
	json_object_set_new(o, "window_s", num_or_null(v->windowed, v->window_s));
	json_object_set_new(o, "pre_fec_ber", num_or_null(v->ber_ok, v->ber));
	json_object_set_new(o, "ber_lower_bound", json_boolean(v->ber_ok && v->ber_lower_bound));
	json_object_set_new(o, "ber_limit", num_or_null(v->ber_limit > 0, v->ber_limit));
	json_object_set_new(o, "fec_code", json_text_or_null(v->fec_code));
	json_object_set_new(o, "uncorrectable_blocks", counter(v->windowed, v->uncorrectable));
	json_object_set_new(o, "flaps", counter(v->windowed, v->flaps));
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(fs, finding(&v->f[i]));
	json_object_set_new(o, "findings", fs);
	return o;
}

json_t *optics_port_to_json(const struct optics_port *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "ifname", json_text(p->ifname));
	json_object_set_new(o, "module", p->module_rc == 0 ? module_to_json(&p->mod) : json_null());
	json_object_set_new(o, "module_error",
			    json_text_or_null(p->module_rc ? p->module_err : ""));
	json_object_set_new(o, "link",
			    p->link_rc == 0 ? optics_link_to_json(&p->link) : json_null());
	json_object_set_new(o, "link_error", json_text_or_null(p->link_rc ? p->link_err : ""));
	json_object_set_new(o, "verdict", optics_verdict_to_json(&p->verdict));
	return o;
}

json_t *optics_set_to_json(const struct optics_set *s)
{
	json_t *a;

	if (!s)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(a, optics_port_to_json(&s->v[i]));
	return a;
}

static json_t *ib_pma_json(const struct optics_ib_pma *p)
{
	if (!p->ok)
		return json_null();
	return json_pack("{s:I, s:I, s:I}", "symbol_errors", (json_int_t)p->symbol_errors,
			 "link_error_recovery", (json_int_t)p->link_recovers,
			 "link_downed", (json_int_t)p->link_downed);
}

static json_t *ib_ends_json(const struct optics_hosts *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->n_ib; i++) {
		const struct optics_ib_end *e = &c->ib[i];

		json_array_append_new(a, json_pack("{s:o, s:I, s:o, s:o, s:o, s:o}", "node",
						   json_text(e->node), "port", (json_int_t)e->port,
						   "rate_mbps", num_or_null(e->rate_mbps > 0, e->rate_mbps),
						   "before", ib_pma_json(&e->before),
						   "after", ib_pma_json(&e->after),
						   "verdict", optics_verdict_to_json(&e->verdict)));
	}
	return a;
}

json_t *optics_hosts_to_json(const struct fab_hosts *hosts, const struct optics_hosts *c)
{
	json_t *a, *o;
	double w = 0;

	if (!c)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < c->n && i < hosts->n; i++) {
		if (!c->wanted[i])
			continue;
		if (c->set[i].window_s > w)
			w = c->set[i].window_s;
		json_array_append_new(a, json_pack("{s:o, s:b, s:o, s:o}",
						   "node", json_text(hosts->hosts[i].name),
						   "read", c->read[i],
						   "note", json_text_or_null(c->why[i] ? c->why[i] : ""),
						   "ports", c->read[i] ? optics_set_to_json(&c->set[i])
								       : json_array()));
	}
	o = json_pack("{s:o, s:o, s:o, s:o}", "window_s", num_or_null(w > 0, w), "hosts", a,
		      "ib_window_s", num_or_null(c->ib_window_s > 0, c->ib_window_s),
		      "ib_ports", ib_ends_json(c));
	return o;
}
