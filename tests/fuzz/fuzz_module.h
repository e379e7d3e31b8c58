/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The harness the three module decoder targets share (fuzz_sff8472.c,
 * fuzz_sff8636.c, fuzz_cmis.c): the input is the module's pages in the
 * order module_eeprom_next() asks for them, 128 bytes each, the first
 * byte an identifier of the target's specification (one that is not is
 * replaced by one chosen by its value); pages past the input's end fail with -EIO,
 * as an I2C read would.  The decoded module is judged, rendered to JSON
 * and checked: lanes and notes within bounds, every value finite.
 */
#ifndef FAB_FUZZ_MODULE_H
#define FAB_FUZZ_MODULE_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/module.h"
#include "model/optics.h"
#include "render/optics.h"

static void check_val(struct module_val v)
{
	if (v.ok && !isfinite(v.v))
		abort();	/* a decoder gives finite numbers or none */
}

static void fuzz_module_run(const uint8_t *data, size_t size, const uint8_t *ids, size_t n_ids)
{
	struct module_eeprom e;
	struct module_page_req req;
	static struct fab_module m;
	struct optics_policy pol;
	struct optics_verdict v;
	size_t off = 0;
	json_t *j;

	module_eeprom_init(&e);
	while (module_eeprom_next(&e, &req) == 1) {
		uint8_t page[MODULE_PAGE_LEN];

		if (off + MODULE_PAGE_LEN > size) {
			if (module_eeprom_put(&e, &req, NULL, -EIO) < 0)
				abort();
			continue;
		}
		memcpy(page, data + off, MODULE_PAGE_LEN);
		if (off == 0 && !memchr(ids, page[0], n_ids))
			page[0] = ids[page[0] % n_ids];
		off += MODULE_PAGE_LEN;
		if (module_eeprom_put(&e, &req, page, 0) < 0)
			abort();	/* the walk never asks twice, never past the cap */
	}
	if (module_decode(&e, &m) < 0)
		return;
	if (m.n_lanes > MODULE_LANES_MAX || m.n_notes > MODULE_NOTES_MAX)
		abort();
	check_val(m.temp_c);
	check_val(m.vcc_v);
	for (unsigned int i = 0; i < m.n_lanes; i++) {
		check_val(m.lane[i].tx_mw);
		check_val(m.lane[i].rx_mw);
		check_val(m.lane[i].bias_ma);
	}
	optics_policy_default(&pol);
	optics_verdict(&m, NULL, NULL, &pol, &v);
	if (v.n > OPTICS_FINDINGS_MAX || v.health > OPTICS_FAILING)
		abort();
	j = module_to_json(&m);
	if (!j)
		abort();
	json_decref(j);
	j = optics_verdict_to_json(&v);
	if (!j)
		abort();
	json_decref(j);
}

#endif
