// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SFF-8472 (SFP, SFP+, SFP28): identity from A0h bytes 0-95, diagnostics
 * from A2h bytes 0-119.  Offsets and units are the specification's
 * (SFF-8472 rev 12.4, tables 4-1, 8-3, 9-5 and 9-11 to 9-17):
 *
 *   A0h  0 identifier, 2 connector, 3-10 compliance, 8 bit 2/3 passive/active
 *        cable, 14-19 lengths, 20-35 vendor, 36 extended compliance,
 *        37-39 OUI, 40-55 PN, 56-59 rev, 60-61 wavelength, 63 CC_BASE,
 *        68-83 SN, 84-91 date, 92 monitoring type (bit 6 implemented,
 *        bit 5 internal / bit 4 external calibration, bit 3 Rx average
 *        power), 93 enhanced options (bit 7 alarm/warning flags, bit 5
 *        soft TX_FAULT, bit 4 soft RX_LOS), 94 compliance, 95 CC_EXT
 *   A2h  0-39 thresholds (temperature, Vcc, bias, Tx, Rx power; each high
 *        alarm, low alarm, high warning, low warning), 56-91 external
 *        calibration, 95 CC_DMI, 96-105 measurements, 110 status,
 *        112-113 alarm flags, 116-117 warning flags
 *
 * Units: temperature 1/256 C signed, Vcc 100 uV, bias 2 uA, power 0.1 uW.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/module.h"
#include "util/str.h"

/* A2h threshold and measurement offsets by quantity (table 9-5, 9-11). */
static const unsigned int th_off[MODULE_QTYS] = { 0, 8, 16, 24, 32 };
static const unsigned int meas_off[MODULE_QTYS] = { 96, 98, 100, 102, 104 };

static bool checksum_ok(const uint8_t *p, unsigned int from, unsigned int to, uint8_t cc)
{
	unsigned int sum = 0;

	for (unsigned int i = from; i <= to; i++)
		sum += p[i];
	return (uint8_t)sum == cc;
}

static const char *rev_name(uint8_t c)
{
	static const char *const names[] = {
		"", "9.3", "9.5", "10.2", "10.4", "11.0", "11.3", "11.4", "12.3", "12.4",
	};

	return c < sizeof(names) / sizeof(names[0]) ? names[c] : "";
}

static void compliance(struct fab_module *m, const uint8_t *a0)
{
	static const struct { unsigned int byte, bit; const char *name; } codes[] = {
		{ 3, 7, "10GBASE-ER" }, { 3, 6, "10GBASE-LRM" }, { 3, 5, "10GBASE-LR" },
		{ 3, 4, "10GBASE-SR" }, { 6, 3, "1000BASE-T" }, { 6, 2, "1000BASE-CX" },
		{ 6, 1, "1000BASE-LX" }, { 6, 0, "1000BASE-SX" },
	};
	const char *ext = sff8024_ext_compliance_name(a0[36]);

	if (*ext) {
		str_fmt(m->compliance, sizeof(m->compliance), "%s", ext);
		return;
	}
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (a0[codes[i].byte] & (1u << codes[i].bit)) {
			str_fmt(m->compliance, sizeof(m->compliance), "%s", codes[i].name);
			return;
		}
}

static void media_and_length(struct fab_module *m, const uint8_t *a0)
{
	bool passive = a0[8] & 0x04, active = a0[8] & 0x08;

	m->length.smf_m = a0[14] ? a0[14] * 1000 : a0[15] * 100;
	m->length.om2_m = a0[16] * 10;
	m->length.om1_m = a0[17] * 10;
	if (passive || active) {
		m->length.cable_m = a0[18];	/* copper or active cable, 1 m units */
		str_fmt(m->media, sizeof(m->media), "%s",
			passive ? "passive copper" : "active cable");
		return;
	}
	m->length.om4_m = a0[18] * 10;
	m->length.om3_m = a0[19] * 10;
	m->wavelength_nm = module_be16(a0 + 60);
	if (a0[2] == 0x22)
		str_fmt(m->media, sizeof(m->media), "%s", "BASE-T");
	else if (m->length.smf_m > 0)
		str_fmt(m->media, sizeof(m->media), "%s", "optical SMF");
	else if (m->length.om1_m > 0 || m->length.om2_m > 0 || m->length.om3_m > 0 ||
		 m->length.om4_m > 0)
		str_fmt(m->media, sizeof(m->media), "%s", "optical MMF");
}

static void identity(struct fab_module *m, const uint8_t *a0)
{
	m->spec = MODULE_SPEC_SFF8472;
	m->present = true;
	str_fmt(m->type, sizeof(m->type), "%s", sff8024_id_name(m->id));
	if (*rev_name(a0[94]))
		str_fmt(m->spec_rev, sizeof(m->spec_rev), "SFF-8472 rev %s", rev_name(a0[94]));
	module_ascii(m->vendor, a0 + 20, 16);
	memcpy(m->oui, a0 + 37, 3);
	module_ascii(m->pn, a0 + 40, 16);
	module_ascii(m->rev, a0 + 56, 4);
	module_ascii(m->sn, a0 + 68, 16);
	module_ascii(m->date, a0 + 84, 8);
	str_fmt(m->connector, sizeof(m->connector), "%s", sff8024_connector_name(a0[2]));
	compliance(m, a0);
	media_and_length(m, a0);
	if (!checksum_ok(a0, 0, 62, a0[63]))
		module_note(m, "A0h: CC_BASE checksum mismatch (bytes 0-62)");
	if (!checksum_ok(a0, 64, 94, a0[95]))
		module_note(m, "A0h: CC_EXT checksum mismatch (bytes 64-94)");
}

/* IEEE 754 single precision, big-endian (A2h bytes 56-75). */
static double be_float(const uint8_t *p)
{
	uint32_t u = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Slope: unsigned 8.8 fixed point; offset: signed 16 bits (table 9-16). */
static double cal_linear(const uint8_t *a2, unsigned int off, double raw)
{
	double slope = a2[off] + a2[off + 1] / 256.0;

	return slope * raw + module_be16s(a2 + off + 2);
}

/* Rx power: the fourth-order polynomial of Rx_PWR(4..0) (bytes 56-75). */
static double cal_rx(const uint8_t *a2, double raw)
{
	double v = 0;

	for (unsigned int i = 0; i < 5; i++)	/* Rx_PWR(4) at 56 first */
		v = v * raw + be_float(a2 + 56 + 4 * i);
	return v;
}

/* A raw A2h field at @off of quantity @q, calibrated, in the unit of module_qty_unit(). */
static double field(const uint8_t *a2, bool ext, enum module_qty q, unsigned int off)
{
	static const unsigned int cal_off[MODULE_QTYS] = { 84, 88, 76, 80, 0 };
	double raw = q == MODULE_TEMP ? (double)module_be16s(a2 + off) :
					(double)module_be16(a2 + off);

	if (ext)
		raw = q == MODULE_RX_POWER ? cal_rx(a2, raw) : cal_linear(a2, cal_off[q], raw);
	switch (q) {
	case MODULE_TEMP:
		return raw / 256.0;
	case MODULE_VCC:
	case MODULE_TX_POWER:
	case MODULE_RX_POWER:
		return raw / 10000.0;
	default:
		return raw / 500.0;	/* 2 uA units to mA */
	}
}

/* Alarm flags at 112-113, warnings at 116-117: bit of each quantity's high level. */
static uint8_t flags_of(const uint8_t *a2, enum module_qty q)
{
	static const struct { unsigned int byte, hi_bit; } at[MODULE_QTYS] = {
		{ 0, 7 }, { 0, 5 }, { 0, 3 }, { 0, 1 }, { 1, 7 },
	};
	uint8_t a = a2[112 + at[q].byte], w = a2[116 + at[q].byte], f = 0;
	unsigned int hi = at[q].hi_bit;

	f |= a & (1u << hi) ? MODULE_FLAG(MODULE_HIGH_ALARM) : 0;
	f |= a & (1u << (hi - 1)) ? MODULE_FLAG(MODULE_LOW_ALARM) : 0;
	f |= w & (1u << hi) ? MODULE_FLAG(MODULE_HIGH_WARN) : 0;
	f |= w & (1u << (hi - 1)) ? MODULE_FLAG(MODULE_LOW_WARN) : 0;
	return f;
}

/* A measurement; one whose calibration gives no finite number is not given (and said). */
static struct module_val measured(struct fab_module *m, const uint8_t *a2, bool ext,
				  enum module_qty q)
{
	double v = field(a2, ext, q, meas_off[q]);

	if (isfinite(v))
		return module_val_of(v);
	module_note(m, "A2h: %s: external calibration gives no finite value", module_qty_name(q));
	return (struct module_val){ false, 0 };
}

static void thresholds(struct fab_module *m, const uint8_t *a2, bool ext)
{
	m->th.ok = !module_bytes_zero(a2, 40);
	if (!m->th.ok) {
		module_note(m, "A2h: no alarm or warning thresholds (bytes 0-39 are zero)");
		return;
	}
	for (unsigned int q = 0; q < MODULE_QTYS; q++)
		for (unsigned int lv = 0; lv < MODULE_LEVELS; lv++) {
			m->th.v[q][lv] = field(a2, ext, q, th_off[q] + 2 * lv);
			if (!isfinite(m->th.v[q][lv]))
				m->th.ok = false;
		}
	if (!m->th.ok)
		module_note(m, "A2h: thresholds: external calibration gives no finite value");
}

static void diagnostics(struct fab_module *m, const uint8_t *a0, const uint8_t *a2)
{
	bool ext = a0[92] & 0x10;
	struct module_lane *l = &m->lane[0];

	m->dom = true;
	m->rx_power_avg = a0[92] & 0x08;
	m->n_lanes = 1;
	m->temp_c = measured(m, a2, ext, MODULE_TEMP);
	m->vcc_v = measured(m, a2, ext, MODULE_VCC);
	l->bias_ma = measured(m, a2, ext, MODULE_BIAS);
	l->tx_mw = measured(m, a2, ext, MODULE_TX_POWER);
	l->rx_mw = measured(m, a2, ext, MODULE_RX_POWER);
	thresholds(m, a2, ext);
	m->flags_ok = a0[93] & 0x80;
	if (m->flags_ok) {
		m->temp_flags = flags_of(a2, MODULE_TEMP);
		m->vcc_flags = flags_of(a2, MODULE_VCC);
		for (unsigned int q = MODULE_BIAS; q < MODULE_QTYS; q++)
			l->flags[q] = flags_of(a2, q);
	}
	l->rx_los_ok = a0[93] & 0x10;
	l->rx_los = l->rx_los_ok && (a2[110] & 0x02);
	l->tx_fault_ok = a0[93] & 0x20;
	l->tx_fault = l->tx_fault_ok && (a2[110] & 0x04);
	if (!checksum_ok(a2, 0, 94, a2[95]))
		module_note(m, "A2h: CC_DMI checksum mismatch (bytes 0-94)");
}

int sff8472_decode(const struct module_eeprom *e, struct fab_module *m)
{
	const uint8_t *a0 = module_eeprom_data(e, MODULE_I2C_A0, 0, 0, false);
	const struct module_page *a2p;

	if (!a0)
		return -ENODEV;
	m->id = a0[0];
	identity(m, a0);
	if (!(a0[92] & 0x40)) {
		module_note(m, "no digital diagnostics (A0h byte 92 bit 6 clear)");
		return 0;
	}
	a2p = module_eeprom_find(e, MODULE_I2C_A2, 0, 0, false);
	if (!a2p || a2p->err) {
		module_note(m, "A2h: not read: %s", module_page_why(a2p));
		return 0;
	}
	diagnostics(m, a0, a2p->data);
	return 0;
}
