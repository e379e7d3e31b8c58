/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rails `discover --lldp --hosts FILE --save-plan P.yaml` writes into
 * the plan (docs/plan.md "Rails"): a host's `nics:` and a leaf's `rail:`,
 * where the hosts file and the discovered graph give them.
 *
 *   nics:  a host of several lines in the hosts file: its ports (ifname=)
 *          in rail order (rail=, else the lines' order), when the rails
 *          are 0..k-1 and every port was seen cabled.  A host of one line:
 *          the ports LLDP saw cabled to switches, in name order (eth2
 *          before eth10), when there are at least two and each reaches a
 *          different switch; else none (a host of one port has no rails).
 *   rail:  a switch every railed NIC cabled to which has the same rail;
 *          ports of hosts without nics do not count.
 *
 * A plan written with these loads back (plan_yaml_parse) to the same
 * rails, and topo_rail_plan_check() finds no rail problem on the graph
 * they were taken from.  Pure, no I/O.
 */
#ifndef FAB_MODEL_PLAN_RAILS_H
#define FAB_MODEL_PLAN_RAILS_H

#include "model/hosts.h"
#include "model/topo.h"
#include "model/topo_lldp_checks.h"

/*
 * The rails of @t's hosts named in @hs (every line of the hosts file;
 * a host's graph node is its NAME or its label lldp_name=) into @out
 * (topo_rails_init'ed): each host's NICs together, in rail order.
 * 0 or -ENOMEM.
 */
int plan_rails_derive(const struct topo *t, const struct fab_hosts *hs, struct topo_rails *out);

#endif
