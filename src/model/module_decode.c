// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * module_decode(): the lower page's identifier picks the decoder
 * (sff8472.c, sff8636.c, cmis.c).  Its own file: the decoders call
 * module.c's shared parts, and module.c calls no decoder (no two files
 * call each other: scripts/check-calls).
 */
#include <errno.h>

#include "model/module.h"

int module_decode(const struct module_eeprom *e, struct fab_module *m)
{
	const struct module_page *lp = module_eeprom_find(e, MODULE_I2C_A0, 0, 0, false);

	module_init(m);
	if (!lp || lp->err) {
		module_note(m, "lower page: not read: %s", module_page_why(lp));
		return -ENODEV;
	}
	m->id = lp->data[0];
	switch (module_spec_of(m->id)) {
	case MODULE_SPEC_SFF8472:
		return sff8472_decode(e, m);
	case MODULE_SPEC_SFF8636:
		return sff8636_decode(e, m);
	case MODULE_SPEC_CMIS:
		return cmis_decode(e, m);
	default:
		module_note(m, "identifier 0x%02x (%s): no decoder for this module type",
			    m->id, sff8024_id_name(m->id)[0] ? sff8024_id_name(m->id) : "unknown");
		return -EPROTONOSUPPORT;
	}
}
