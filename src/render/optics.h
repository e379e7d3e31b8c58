/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Modules, links and their verdicts (model/optics.h) in every output:
 * JSON builders (render/optics_json.c) for "fabricctl.status/1" and for
 * whatever document later carries a cable's evidence (diagnose, accept);
 * the text views of `status` (render/optics_text.c); the Prometheus
 * gauges (render/optics_prom.c).  Kept apart from status_*.c so other
 * status additions merge without touching these.
 */
#ifndef FAB_RENDER_OPTICS_H
#define FAB_RENDER_OPTICS_H

#include <jansson.h>
#include <stdio.h>

#include "model/hosts.h"
#include "model/optics.h"

/* New references; optics_set_to_json(NULL) is null (modules not read). */
json_t *module_to_json(const struct fab_module *m);
json_t *optics_link_to_json(const struct optics_link *l);
json_t *optics_verdict_to_json(const struct optics_verdict *v);
json_t *optics_port_to_json(const struct optics_port *p);
json_t *optics_set_to_json(const struct optics_set *s);

/* status text: one line per module under a header; nothing when @s is NULL or empty. */
void optics_text_summary(FILE *f, const struct optics_set *s);
/* status --optics: every module in detail (identity, lanes, thresholds, FEC, findings). */
void optics_text_detail(FILE *f, const struct optics_set *s);

/*
 * diagnose's evidence: the cable ends of the hosts its suspects name
 * (@c->wanted), host names from @hosts.  Text: a header, then per host
 * each port's verdict, the module, and every finding with its hint (a
 * host not read, or without a port that has a module interface, says
 * so); nothing when @c is NULL.  JSON: {"window_s", "hosts": [{"node",
 * "read", "note", "ports": [optics_port_to_json()...]}]}, or null.
 */
void optics_text_hosts(FILE *f, const struct fab_hosts *hosts, const struct optics_hosts *c);
json_t *optics_hosts_to_json(const struct fab_hosts *hosts, const struct optics_hosts *c);

/*
 * status --hosts: the fleet document's cable ends grouped by verdict
 * (render/optics_fleet.c): "module_groups" added to @doc; the text after
 * the table (nothing when no node reported a module).
 */
void optics_fleet_json(json_t *doc);
void optics_fleet_text(FILE *f, const json_t *doc);

/*
 * discover --lldp --hosts: the hosts' cable ends on the graph
 * (model/topo_optics.h; render/discover_optics.c).  JSON: the "cables"
 * array, a new reference; text: the "cable ends:" lines after the links,
 * nothing when @o is NULL or holds no cable.
 */
struct topo_optics;
json_t *discover_optics_json(const struct topo_optics *o);
void discover_optics_text(FILE *f, const struct topo_optics *o);

/* Prometheus text exposition of every module, lane and link of @s on @host. */
int optics_prom(FILE *f, const char *host, const struct optics_set *s);

#endif
