/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One cable end as the worker's "optics" op carries it
 * (docs/worker-protocol.md): the module's raw pages (hex) and one reading
 * of the link, so the controller decodes with the same decoders and
 * judges a window from two readings of the same node.  The wire may
 * change without the public schema (render/optics_json.c builds that).
 *
 *   {"ifname": "eth0",
 *    "module": {"rc": 0, "error": null,
 *               "pages": [{"i2c": 80, "bank": 0, "page": 0, "upper": false,
 *                          "err": 0, "data": "110800..." (256 hex digits)}]},
 *    "link": {"rc": 0, "error": null, "t_s": 812.25, "speed_mbps": 100000,
 *             "lanes": 4, "link_up": true|null, "fec_ok": true, "fec": "RS",
 *             "fec_auto": true, "corrected_blocks": {"total": 5, "lanes": [2, 3]}|null,
 *             "uncorrectable_blocks": ..., "corrected_bits": ...,
 *             "hist": [[low, high, count], ...], "down_events": 3|null,
 *             "carrier_changes": 2|null, "carrier_down": 1|null}}
 *
 * Pure: builds and reads jansson values.
 */
#ifndef FAB_MODEL_OPTICS_WIRE_H
#define FAB_MODEL_OPTICS_WIRE_H

#include <jansson.h>

#include "model/module.h"
#include "model/optics.h"
#include "util/err.h"

/* @p's ifname, module_rc/err, link_rc/err and link, with the pages of @e; NULL: ENOMEM. */
json_t *optics_wire_to_json(const struct module_eeprom *e, const struct optics_port *p);

/*
 * Read one port back into @p (zeroed by optics_set_add()): its pages are
 * decoded (module_decode()) into p->mod, module_rc set from the node's rc
 * or the decoder's; the link into p->link.  Bad input names the field
 * ("optics: eth0: pages[2].data: want 256 hex digits"); -EPROTO.
 */
int optics_wire_from_json(const json_t *j, struct optics_port *p, struct fab_err *err);

#endif
