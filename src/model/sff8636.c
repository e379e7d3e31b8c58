// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SFF-8636 (QSFP, QSFP+, QSFP28), four lanes.  Offsets and units are the
 * specification's (SFF-8636 rev 2.10a, tables 6-2 to 6-10, 6-14 to 6-24,
 * 6-28):
 *
 *   lower  1 revision compliance, 2 status (bit 2 Flat_mem), 3 LOS (bits
 *          0-3 Rx lanes 1-4, 4-7 Tx), 4 Tx fault (bits 0-3), 6 temperature
 *          flags and 7 Vcc flags (bits 7-4: high alarm, low alarm, high
 *          warning, low warning), 9-10 Rx power, 11-12 bias, 13-14 Tx power
 *          flags (lane 1 in bits 7-4 of the first byte, lane 2 in bits 3-0,
 *          lanes 3 and 4 in the second), 22-23 temperature, 26-27 Vcc,
 *          34-41 Rx power, 42-49 bias, 50-57 Tx power (lanes 1-4)
 *   00h    130 connector, 131 compliance (bit 7: extended, byte 192),
 *          142-146 lengths, 147 device technology (bits 7-4), 148-163
 *          vendor, 165-167 OUI, 168-183 PN, 184-185 rev, 186-187
 *          wavelength (1/20 nm), 191 CC_BASE, 192 extended compliance,
 *          195 options (bit 3 Tx fault, bit 1 Tx LOS reported), 196-211 SN,
 *          212-219 date, 220 monitoring (bit 5 temperature, bit 4 Vcc,
 *          bit 3 Rx average power, bit 2 Tx power), 223 CC_EXT
 *   03h    128-135 temperature, 144-151 Vcc, 176-183 Rx power, 184-191
 *          bias, 192-199 Tx power thresholds (high alarm, low alarm,
 *          high warning, low warning)
 *
 * Units: temperature 1/256 C signed, Vcc 100 uV, bias 2 uA, power 0.1 uW.
 */
#include <errno.h>
#include <string.h>

#include "model/module.h"
#include "util/str.h"

#define LANES 4

static const char *rev_name(uint8_t c)
{
	static const char *const names[] = {
		"", "SFF-8436 rev 4.8 or earlier", "SFF-8436 rev 4.8 or earlier",
		"SFF-8636 rev 1.3 or earlier", "SFF-8636 rev 1.4", "SFF-8636 rev 1.5",
		"SFF-8636 rev 2.0", "SFF-8636 rev 2.5-2.7", "SFF-8636 rev 2.8-2.10",
	};

	return c < sizeof(names) / sizeof(names[0]) ? names[c] : "";
}

static bool copper(const uint8_t *p0)
{
	return (p0[147 - 128] >> 4) >= 0x0a;
}

static bool aoc(uint8_t ext)
{
	return ext == 0x01 || ext == 0x18 || ext == 0x31 || ext == 0x33;
}

static void compliance(struct fab_module *m, const uint8_t *p0)
{
	static const char *const eth[7] = {
		"40G active cable (XLPPI)", "40GBASE-LR4", "40GBASE-SR4", "40GBASE-CR4",
		"10GBASE-SR", "10GBASE-LR", "10GBASE-LRM",
	};
	uint8_t c = p0[131 - 128];

	if (c & 0x80) {
		str_fmt(m->compliance, sizeof(m->compliance), "%s",
			sff8024_ext_compliance_name(p0[192 - 128]));
		return;
	}
	for (unsigned int b = 0; b < 7; b++)
		if (c & (1u << b)) {
			str_fmt(m->compliance, sizeof(m->compliance), "%s", eth[b]);
			return;
		}
}

static void media_and_length(struct fab_module *m, const uint8_t *p0)
{
	unsigned int tech = p0[147 - 128] >> 4;
	bool cable = copper(p0) || aoc(p0[192 - 128]);

	m->length.smf_m = p0[142 - 128] * 1000;
	m->length.om3_m = p0[143 - 128] * 2;
	m->length.om2_m = p0[144 - 128];
	m->length.om1_m = p0[145 - 128];
	if (cable)
		m->length.cable_m = p0[146 - 128];
	else
		m->length.om4_m = p0[146 - 128] * 2;
	if (!copper(p0))
		m->wavelength_nm = module_be16(p0 + 186 - 128) / 20.0;
	if (tech == 0x0a || tech == 0x0b)
		str_fmt(m->media, sizeof(m->media), "passive copper");
	else if (tech >= 0x0c || aoc(p0[192 - 128]))
		str_fmt(m->media, sizeof(m->media), "active cable");
	else if (m->length.smf_m > 0)
		str_fmt(m->media, sizeof(m->media), "optical SMF");
	else if (m->length.om1_m > 0 || m->length.om2_m > 0 || m->length.om3_m > 0 ||
		 m->length.om4_m > 0)
		str_fmt(m->media, sizeof(m->media), "optical MMF");
}

static bool sum_ok(const uint8_t *p0, unsigned int from, unsigned int to, unsigned int at)
{
	unsigned int sum = 0;

	for (unsigned int i = from; i <= to; i++)
		sum += p0[i - 128];
	return (uint8_t)sum == p0[at - 128];
}

static void identity(struct fab_module *m, const uint8_t *lower, const uint8_t *p0)
{
	str_fmt(m->spec_rev, sizeof(m->spec_rev), "%s", rev_name(lower[1]));
	module_ascii(m->vendor, p0 + 148 - 128, 16);
	memcpy(m->oui, p0 + 165 - 128, 3);
	module_ascii(m->pn, p0 + 168 - 128, 16);
	module_ascii(m->rev, p0 + 184 - 128, 2);
	module_ascii(m->sn, p0 + 196 - 128, 16);
	module_ascii(m->date, p0 + 212 - 128, 8);
	str_fmt(m->connector, sizeof(m->connector), "%s", sff8024_connector_name(p0[130 - 128]));
	compliance(m, p0);
	media_and_length(m, p0);
	if (!sum_ok(p0, 128, 190, 191))
		module_note(m, "page 00h: CC_BASE checksum mismatch (bytes 128-190)");
	if (!sum_ok(p0, 192, 222, 223))
		module_note(m, "page 00h: CC_EXT checksum mismatch (bytes 192-222)");
}

/* Flags of lane @l (0-3) in the byte pair at @off: high alarm, low alarm, high/low warning. */
static uint8_t lane_flags(const uint8_t *lower, unsigned int off, unsigned int l)
{
	uint8_t nib = (uint8_t)(lower[off + l / 2] >> (l % 2 ? 0 : 4)) & 0x0f;
	uint8_t f = 0;

	f |= nib & 0x08 ? MODULE_FLAG(MODULE_HIGH_ALARM) : 0;
	f |= nib & 0x04 ? MODULE_FLAG(MODULE_LOW_ALARM) : 0;
	f |= nib & 0x02 ? MODULE_FLAG(MODULE_HIGH_WARN) : 0;
	f |= nib & 0x01 ? MODULE_FLAG(MODULE_LOW_WARN) : 0;
	return f;
}

static uint8_t module_flags(uint8_t b)
{
	return lane_flags(&b, 0, 0);
}

static void lanes(struct fab_module *m, const uint8_t *lower, const uint8_t *p0)
{
	bool optical = !copper(p0), tx = p0[220 - 128] & 0x04;
	uint8_t opts = p0[195 - 128];

	m->n_lanes = LANES;
	for (unsigned int i = 0; i < LANES; i++) {
		struct module_lane *l = &m->lane[i];

		if (optical) {
			l->rx_mw = module_val_of(module_be16(lower + 34 + 2 * i) / 10000.0);
			l->bias_ma = module_val_of(module_be16(lower + 42 + 2 * i) / 500.0);
			l->rx_los_ok = true;
			l->rx_los = lower[3] & (1u << i);
		}
		if (optical && tx)
			l->tx_mw = module_val_of(module_be16(lower + 50 + 2 * i) / 10000.0);
		l->flags[MODULE_RX_POWER] = lane_flags(lower, 9, i);
		l->flags[MODULE_BIAS] = lane_flags(lower, 11, i);
		l->flags[MODULE_TX_POWER] = lane_flags(lower, 13, i);
		l->tx_los_ok = opts & 0x02;
		l->tx_los = l->tx_los_ok && (lower[3] & (0x10u << i));
		l->tx_fault_ok = opts & 0x08;
		l->tx_fault = l->tx_fault_ok && (lower[4] & (1u << i));
	}
	m->dom = optical || (p0[220 - 128] & 0x30);
	if (!optical)
		module_note(m, "copper cable: no optical monitors");
}

static void thresholds(struct fab_module *m, const uint8_t *p3)
{
	static const unsigned int off[MODULE_QTYS] = { 128, 144, 184, 192, 176 };
	static const double div[MODULE_QTYS] = { 256.0, 10000.0, 500.0, 10000.0, 10000.0 };

	m->th.ok = !module_bytes_zero(p3, 200 - 128);
	if (!m->th.ok) {
		module_note(m, "page 03h: no alarm or warning thresholds (bytes 128-199 are zero)");
		return;
	}
	for (unsigned int q = 0; q < MODULE_QTYS; q++)
		for (unsigned int lv = 0; lv < MODULE_LEVELS; lv++) {
			const uint8_t *f = p3 + off[q] - 128 + 2 * lv;

			double raw = q == MODULE_TEMP ? module_be16s(f) : (int)module_be16(f);

			m->th.v[q][lv] = raw / div[q];
		}
}

int sff8636_decode(const struct module_eeprom *e, struct fab_module *m)
{
	const uint8_t *lower = module_eeprom_data(e, MODULE_I2C_A0, 0, 0, false);
	const struct module_page *p0p = module_eeprom_find(e, MODULE_I2C_A0, 0, 0, true);
	const struct module_page *p3p = module_eeprom_find(e, MODULE_I2C_A0, 0, 3, true);
	const uint8_t *p0;
	uint8_t mon;

	if (!lower)
		return -ENODEV;
	m->id = lower[0];
	m->spec = MODULE_SPEC_SFF8636;
	m->present = true;
	str_fmt(m->type, sizeof(m->type), "%s", sff8024_id_name(m->id));
	m->flat = lower[2] & 0x04;
	if (!p0p || p0p->err) {
		module_note(m, "page 00h: not read: %s", module_page_why(p0p));
		return 0;
	}
	p0 = p0p->data;
	identity(m, lower, p0);
	if (lower[2] & 0x01)
		module_note(m, "data not ready (lower page byte 2 bit 0): monitors may be stale");
	mon = p0[220 - 128];
	m->rx_power_avg = mon & 0x08;
	if (mon & 0x20)
		m->temp_c = module_val_of(module_be16s(lower + 22) / 256.0);
	if (mon & 0x10)
		m->vcc_v = module_val_of(module_be16(lower + 26) / 10000.0);
	m->flags_ok = true;
	m->temp_flags = module_flags(lower[6]);
	m->vcc_flags = module_flags(lower[7]);
	lanes(m, lower, p0);
	if (m->flat)
		module_note(m, "flat memory: no page 03h thresholds");
	else if (!p3p || p3p->err)
		module_note(m, "page 03h: not read: %s", module_page_why(p3p));
	else
		thresholds(m, p3p->data);
	return 0;
}
