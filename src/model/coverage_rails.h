/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Coverage sweeps of hosts of several fabric ports (rails, model/hosts.h):
 * the picker (model/coverage.h) run once per rail.  Pure C, no I/O.
 *
 * Rule.  Rail R's end points are the lines of rail R and those of no
 * known rail (-1, which pair with every rail: hosts_ports_pair()).  For
 * each rail with at least two of them (and, with a subset, one subset end
 * point), the picker runs over them alone, on a route of their own over
 * the same graph: every link those end points' pairs can cross is crossed
 * by at least K of the rail's pairs, every end point (subset end point) is
 * in at least K of them, and every pair is rail-aligned (NIC i to NIC i of
 * another host: a rail has one end point a host).  A link two rails reach
 * (a spine joining rail leaves) is a target of each, K pairs of each.
 *
 * Output (struct coverage, indices into @hs and @r's links):
 *  - pairs: every rail's, the i-th pair of each rail side by side (rank i,
 *    then rail), so that a greedy packer (model/sched_topo.h) puts the
 *    rails' tests in the same rounds; a pair two rails both chose (two end
 *    points of no known rail) once;
 *  - link_cross, host_pairs: recounted over all the pairs on @r;
 *  - links_target, links_short, links_unreachable, hosts_target,
 *    hosts_short: the rails' sums (targets counted once a rail); with
 *    @req->want_link, links_unreachable counts the wanted links no rail
 *    reaches, once each (a rail leaf's link is out of the other rails'
 *    reach: not unreachable for that);
 *    first_short_link/host: the first rail's first; n_phase1: 0.
 *
 * Cost: one route_new() and route_place() and one coverage_pick() a rail
 * (the rail's end points only), and a copy of their hosts lines.
 * Ownership as struct coverage's (coverage_fini()).  @r is borrowed and
 * placed with @hs; its caches change: one thread at a time.
 */
#ifndef FAB_MODEL_COVERAGE_RAILS_H
#define FAB_MODEL_COVERAGE_RAILS_H

#include "model/coverage.h"
#include "model/hosts.h"

/*
 * Choose every rail's pairs (rule above) into @out; @req->subset (new
 * end points) and @req->want_link index @hs and @r's links.  0 (check the
 * short counts); -EINVAL (fab_err_input) for k == 0 or when no rail has
 * two end points (with a subset: a subset end point and another);
 * -ENOMEM.  @out is set only on success.
 */
int coverage_pick_rails(struct coverage *out, struct route *r, const struct fab_hosts *hs,
			const struct coverage_req *req, struct fab_err *err);

#endif
