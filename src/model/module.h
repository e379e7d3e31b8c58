/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pluggable modules (transceivers and cables): the memory pages read from
 * a module, and what they say once decoded.  Pure C, no I/O; the pages
 * come from src/sys/ (ethtool netlink, or the old ioctl), the decoders
 * live one per specification:
 *
 *   model/sff8472.c   SFP, SFP+, SFP28 (SFF-8472: A0h identity, A2h diagnostics)
 *   model/sff8636.c   QSFP, QSFP+, QSFP28 (SFF-8636: lower page, upper pages 00h, 03h)
 *   model/cmis.c      QSFP-DD, OSFP, QSFP with CMIS 4/5 (lower page, pages 00h, 01h,
 *                     02h, 11h of each bank)
 *
 * Identifier codes, connector and compliance names are SFF-8024's.
 *
 * A page is 128 bytes, as the kernel hands it out: the lower half (bytes
 * 0-127 of an I2C address, page 0 only) or the upper half of a page
 * (bytes 128-255).  Offsets below are the specifications' (upper-page
 * fields at 128-255).  A page that was asked for and not read is kept
 * with its error, so a decoder can say which page it lacks; a decoder
 * never guesses a value it was not given: every value has an `ok` flag.
 *
 * Ownership: everything here is plain data, embedded by the caller.
 */
#ifndef FAB_MODEL_MODULE_H
#define FAB_MODEL_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODULE_PAGE_LEN 128
#define MODULE_PAGES_MAX 16
#define MODULE_LANES_MAX 32	/* CMIS: 8 lanes a bank, 4 banks */
#define MODULE_NOTES_MAX 4

#define MODULE_I2C_A0 0x50	/* SFF-8472 A0h; the only address of SFF-8636 and CMIS */
#define MODULE_I2C_A2 0x51	/* SFF-8472 A2h (diagnostics) */

/* One 128-byte half page, or the error that kept it from being read. */
struct module_page {
	uint8_t i2c;		/* MODULE_I2C_A0 or MODULE_I2C_A2 */
	uint8_t bank;
	uint8_t page;
	bool upper;		/* bytes 128-255 of the page; false: bytes 0-127 */
	int err;		/* 0, or -errno from the read (data is zero then) */
	uint8_t data[MODULE_PAGE_LEN];
};

struct module_eeprom {
	struct module_page pages[MODULE_PAGES_MAX];
	size_t n;
	char source[16];	/* "netlink", "ioctl", "fixture"; "" unknown */
};

/* What to read next (module_eeprom_next()). */
struct module_page_req {
	uint8_t i2c, bank, page;
	bool upper;
};

void module_eeprom_init(struct module_eeprom *e);
/*
 * Record the result of reading @req: @data (MODULE_PAGE_LEN bytes) when
 * @err is 0, nothing but the error otherwise.  -ENOSPC when full, -EEXIST
 * when that page is already there.
 */
int module_eeprom_put(struct module_eeprom *e, const struct module_page_req *req,
		      const uint8_t *data, int err);
/* The page, read or failed; NULL when it was never asked for. */
const struct module_page *module_eeprom_find(const struct module_eeprom *e, uint8_t i2c,
					     uint8_t bank, uint8_t page, bool upper);
/* The page's bytes; NULL when absent or failed. */
const uint8_t *module_eeprom_data(const struct module_eeprom *e, uint8_t i2c, uint8_t bank,
				  uint8_t page, bool upper);
/*
 * The next page a decoder needs, given those read so far: 1 and *@req,
 * or 0 when nothing more is needed (or can be).  The order, from the
 * lower page's identifier on: SFF-8472 A0h then A2h (when diagnostics
 * are implemented); SFF-8636 page 00h then 03h (when paged); CMIS page
 * 00h then, when paged, 01h, 02h and 11h of each advertised bank.  A
 * failed read ends the walk where later pages depend on it.
 */
int module_eeprom_next(const struct module_eeprom *e, struct module_page_req *req);

/* The specification a module's identifier belongs to. */
enum module_spec {
	MODULE_SPEC_UNKNOWN = 0,
	MODULE_SPEC_SFF8472,
	MODULE_SPEC_SFF8636,
	MODULE_SPEC_CMIS,
};
enum module_spec module_spec_of(uint8_t id);
const char *module_spec_name(enum module_spec s);	/* "SFF-8472", ..., "unknown" */

/* A value the module gave, in the unit its field names; ok false: not given. */
struct module_val {
	bool ok;
	double v;
};

/* Alarm and warning levels: the order of thresholds and of flag bits. */
enum module_level {
	MODULE_HIGH_ALARM = 0,
	MODULE_LOW_ALARM,
	MODULE_HIGH_WARN,
	MODULE_LOW_WARN,
	MODULE_LEVELS,
};
#define MODULE_FLAG(l) (1u << (l))	/* bit of a flags byte below */
#define MODULE_ALARMS (MODULE_FLAG(MODULE_HIGH_ALARM) | MODULE_FLAG(MODULE_LOW_ALARM))
#define MODULE_WARNS (MODULE_FLAG(MODULE_HIGH_WARN) | MODULE_FLAG(MODULE_LOW_WARN))
const char *module_level_name(enum module_level l);	/* "high_alarm", ... */

/* The quantities a module monitors. */
enum module_qty {
	MODULE_TEMP = 0,	/* degrees C */
	MODULE_VCC,		/* V */
	MODULE_BIAS,		/* mA, per lane */
	MODULE_TX_POWER,	/* mW, per lane */
	MODULE_RX_POWER,	/* mW, per lane */
	MODULE_QTYS,
};
const char *module_qty_name(enum module_qty q);	/* "temperature", "voltage", "bias", ... */
const char *module_qty_unit(enum module_qty q);	/* "C", "V", "mA", "mW" */

struct module_lane {
	struct module_val bias_ma;
	struct module_val tx_mw;
	struct module_val rx_mw;
	/* MODULE_FLAG() bits per quantity; meaningful when the module's flags_ok */
	uint8_t flags[MODULE_QTYS];
	/* Loss of signal and fault, where the module reports them */
	bool rx_los_ok, rx_los;
	bool tx_los_ok, tx_los;
	bool tx_fault_ok, tx_fault;
};

struct module_thresholds {
	bool ok;			/* the module gives thresholds (non-zero page) */
	double v[MODULE_QTYS][MODULE_LEVELS];	/* in module_qty_unit() */
};

struct module_length {
	int smf_m;		/* single-mode fibre; -1 not given (0: not for this medium) */
	int om1_m, om2_m, om3_m, om4_m, om5_m;
	double cable_m;		/* copper or active cable assembly; < 0 not given */
};

struct fab_module {
	bool present;			/* a module answered with a known identifier */
	enum module_spec spec;
	uint8_t id;			/* SFF-8024 identifier (byte 0) */
	char type[32];			/* "SFP/SFP+/SFP28", "QSFP28", "QSFP-DD", "OSFP" */
	char spec_rev[24];		/* "SFF-8636 rev 2.5+", "CMIS 5.0"; "" unknown */
	char vendor[17], pn[17], rev[5], sn[17], date[9];	/* blanks trimmed */
	uint8_t oui[3];
	char connector[32];		/* "LC", "MPO 1x12", "No separable connector" */
	char media[24];			/* "optical MMF", "optical SMF", "passive copper",
					 * "active cable", "BASE-T", "" unknown */
	char compliance[64];		/* "100GBASE-SR4 or 25GBASE-SR", "" unknown */
	struct module_length length;
	double wavelength_nm;		/* 0: not given (copper) */
	bool flat;			/* only page 00h: no thresholds, no lane pages */
	char state[16];			/* CMIS module state ("ModuleReady"); "" others */

	/* Diagnostics (DOM / DDM). */
	bool dom;			/* the module measures (some of) the values below */
	bool rx_power_avg;		/* Rx power is average power; false: OMA */
	struct module_val temp_c, vcc_v;
	uint8_t temp_flags, vcc_flags;
	bool flags_ok;			/* the alarm/warning flags were read */
	struct module_thresholds th;
	unsigned int n_lanes;
	struct module_lane lane[MODULE_LANES_MAX];

	/* What could not be decoded, in words ("page 03h: not read: Input/output error"). */
	char notes[MODULE_NOTES_MAX][96];
	unsigned int n_notes;
};

void module_init(struct fab_module *m);
/* Append a note (dropped when MODULE_NOTES_MAX are there). */
void module_note(struct fab_module *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Decode @e into @m (module_init'ed inside): the decoder of the lower
 * page's identifier.  0 when a module was decoded (@m->notes say what was
 * missing), -ENODEV when no page could be read, -EPROTONOSUPPORT when the
 * identifier is one no decoder knows (@m->present false, @m->id and a
 * note say which).
 */
int module_decode(const struct module_eeprom *e, struct fab_module *m);
int sff8472_decode(const struct module_eeprom *e, struct fab_module *m);
int sff8636_decode(const struct module_eeprom *e, struct fab_module *m);
int cmis_decode(const struct module_eeprom *e, struct fab_module *m);

/* ---- helpers shared by the decoders (model/module.c) ---- */

/* A value the module gave. */
static inline struct module_val module_val_of(double v)
{
	return (struct module_val){ true, v };
}
/* Why a page is missing, for a note: its error, or "not asked for" (NULL). */
const char *module_page_why(const struct module_page *p);
/* Optical power: mW to dBm; -INFINITY for 0 mW (no light). */
double module_mw_to_dbm(double mw);
/* Big-endian fields. */
static inline unsigned int module_be16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}
static inline int module_be16s(const uint8_t *p)
{
	return (int16_t)(uint16_t)(p[0] << 8 | p[1]);
}
/* Copy @len bytes of ASCII into @out (len + 1), blanks at the end trimmed,
 * unprintable bytes as '_' (what `ethtool -m` shows). */
void module_ascii(char *out, const uint8_t *p, size_t len);
/* SFF-8024 names: identifier (table 4-1), connector (table 4-3),
 * extended compliance (table 4-4); "" when the code is reserved or unknown. */
const char *sff8024_id_name(uint8_t id);
const char *sff8024_connector_name(uint8_t c);
const char *sff8024_ext_compliance_name(uint8_t c);
/* A page's values are all 0: a module that fills none of its thresholds. */
bool module_bytes_zero(const uint8_t *p, size_t len);

#endif
