// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The executor shared by apply, verify and confirm (see node/apply.h):
 * reading what a profile needs from the node through the sys_*()
 * wrappers and running a change set with rollback in reverse order.  (The
 * pending state of --try is src/sys/pending.c, behind sys_ops.)
 * Kept apart from cmd_apply() so unit tests link it with a recording
 * sys_ops and without main.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/apply.h"

/* ---- reading the node ---- */

static void copy_err(int *rc_out, char *msg, size_t len, int rc, const struct fab_err *e)
{
	*rc_out = rc;
	snprintf(msg, len, "%.250s", rc < 0 ? e->msg : "");
}

int apply_node_read(struct sys *sys, const struct profile *p, struct host_state *hs,
		    struct node_config *ns, struct fab_err *err)
{
	struct change_needs *needs = NULL;
	int rc;

	/* Profiles check no counters; the PCIe view only for `nics:` items. */
	rc = sys_host_state_read(sys, hs, p->n_nics ? SYS_READ_PCIE : 0, err);
	if (rc < 0)
		return rc;
	needs = calloc(hs->n_links ? hs->n_links : 1, sizeof(*needs));
	if (!needs)
		return fab_err_set(err, -ENOMEM, "apply: out of memory");
	change_needs(p, hs, needs);
	for (size_t i = 0; i < hs->n_links; i++) {
		const struct fab_link *l = &hs->links[i];
		struct node_iface *ni;
		struct fab_err e;

		if (!needs[i].dcb && !needs[i].ecn_np && !needs[i].ecn_rp && !needs[i].tos &&
		    !needs[i].dcqcn && !needs[i].pfc_storm)
			continue;
		ni = node_config_iface_add(ns, l->name);
		if (!ni) {
			rc = fab_err_set(err, -ENOMEM, "apply: out of memory");
			goto out;
		}
		ni->mtu = l->mtu;
		if (needs[i].dcb) {
			fab_err_init(&e);
			rc = sys_dcb_read(sys, l->name, &ni->dcb, &e);
			copy_err(&ni->dcb_rc, ni->dcb_msg, sizeof(ni->dcb_msg), rc, &e);
		}
		for (enum fab_ecn_point pt = FAB_ECN_NP; pt <= FAB_ECN_RP; pt++) {
			if (!(pt == FAB_ECN_NP ? needs[i].ecn_np : needs[i].ecn_rp))
				continue;
			fab_err_init(&e);
			rc = sys_ecn_read(sys, l->name, pt, &ni->ecn[pt], &e);
			copy_err(&ni->ecn_rc[pt], ni->ecn_msg[pt], sizeof(ni->ecn_msg[pt]), rc, &e);
		}
		if (needs[i].pfc_storm) {
			fab_err_init(&e);
			rc = sys_pfc_storm_read(sys, l->name, &ni->storm_ms, &e);
			copy_err(&ni->storm_rc, ni->storm_msg, sizeof(ni->storm_msg), rc, &e);
		}
		if (needs[i].dcqcn) {
			fab_err_init(&e);
			rc = sys_dcqcn_read(sys, l->name, &ni->dcqcn, &e);
			copy_err(&ni->dcqcn_rc, ni->dcqcn_msg, sizeof(ni->dcqcn_msg), rc, &e);
		}
		if (!needs[i].tos)
			continue;
		/* The RDMA port whose netdev this is. */
		for (size_t r = 0; r < hs->n_rdma && !ni->rdma_dev[0]; r++)
			for (size_t k = 0; k < hs->rdma[r].n_ports; k++)
				if (!strcmp(hs->rdma[r].ports[k].netdev, l->name)) {
					snprintf(ni->rdma_dev, sizeof(ni->rdma_dev), "%s",
						 hs->rdma[r].name);
					ni->rdma_port = hs->rdma[r].ports[k].port;
					ni->roce_active_mtu = hs->rdma[r].ports[k].active_mtu;
					break;
				}
		if (!ni->rdma_dev[0])
			continue;
		fab_err_init(&e);
		rc = sys_roce_tos_read(sys, ni->rdma_dev, ni->rdma_port, &ni->tos, &e);
		copy_err(&ni->tos_rc, ni->tos_msg, sizeof(ni->tos_msg), rc, &e);
	}
	for (size_t i = 0; i < p->n_bonds; i++) {
		const char *name = p->bonds[i].want.name;
		struct node_bond *nb = node_config_bond_add(ns, name);
		struct fab_err e;

		if (!nb) {
			rc = fab_err_set(err, -ENOMEM, "apply: out of memory");
			goto out;
		}
		fab_err_init(&e);
		if (!host_state_link_by_name(hs, name))
			rc = -ENODEV;	/* no such link: the bond is to be created */
		else
			rc = sys_bond_read(sys, name, &nb->bond, &e);
		copy_err(&nb->rc, nb->msg, sizeof(nb->msg), rc, &e);
	}
	rc = 0;
out:
	free(needs);
	return rc;
}

/* ---- executing ---- */

int apply_action_exec(struct sys *sys, const struct change_action *a, struct fab_err *err)
{
	switch (a->op) {
	case CHANGE_BOND_CREATE:
		return sys_bond_create(sys, &a->bond, err);
	case CHANGE_BOND_DELETE:
		return sys_bond_delete(sys, a->obj, err);
	case CHANGE_BOND_SET:
		return sys_bond_set(sys, &a->bond, err);
	case CHANGE_BOND_ENSLAVE:
		return sys_bond_enslave(sys, a->obj, a->arg, err);
	case CHANGE_BOND_RELEASE:
		return sys_bond_release(sys, a->arg, err);
	case CHANGE_MTU_SET:
		return sys_link_mtu_set(sys, a->obj, a->u, err);
	case CHANGE_PFC_SET:
		return sys_dcb_pfc_set(sys, a->obj, &a->pfc, err);
	case CHANGE_ETS_SET:
		return sys_dcb_ets_set(sys, a->obj, &a->ets, err);
	case CHANGE_MAXRATE_SET:
		return sys_dcb_maxrate_set(sys, a->obj, a->maxrate, err);
	case CHANGE_BUFFER_SET:
		return sys_dcb_buffer_set(sys, a->obj, &a->buffer, err);
	case CHANGE_PFC_STORM_SET:
		return sys_pfc_storm_set(sys, a->obj, a->u, err);
	case CHANGE_DCQCN_SET:
		return sys_dcqcn_set(sys, a->obj, (enum dcqcn_param)a->port, a->val, err);
	case CHANGE_APP_DEL:
		return sys_dcb_app_del(sys, a->obj, &a->app, 1, err);
	case CHANGE_APP_ADD:
		return sys_dcb_app_add(sys, a->obj, &a->app, 1, err);
	case CHANGE_TRUST_SET:
		return sys_dcb_trust_set(sys, a->obj, a->trust, a->n_trust, err);
	case CHANGE_ECN_SET:
		return sys_ecn_set(sys, a->obj, a->point, a->u, a->on, err);
	case CHANGE_TOS_SET:
		return sys_roce_tos_set(sys, a->obj, a->port, a->u, err);
	case CHANGE_FAIL:
		return fab_err_set(err, a->errno_ ? a->errno_ : -EOPNOTSUPP, "%s", a->msg);
	}
	return fab_err_set(err, -EINVAL, "apply: unknown action %d", (int)a->op);
}

int apply_changeset_undo(struct sys *sys, struct changeset *cs, struct fab_err *err)
{
	int first = 0;

	for (size_t i = cs->n_steps; i-- > 0;) {
		struct change_step *s = &cs->steps[i];
		struct fab_err e;
		char buf[160];
		int rc;

		if (s->status != CHANGE_STEP_DONE)
			continue;
		fab_err_init(&e);
		if (!s->has_undo)
			rc = fab_err_set(&e, -ENOTRECOVERABLE,
					 "%s %s: previous value unknown, cannot undo",
					 s->object, s->field);
		else
			rc = apply_action_exec(sys, &s->undo, &e);
		if (rc < 0) {
			s->status = CHANGE_STEP_UNDO_FAILED;
			if (!first) {
				first = rc;
				fab_err_set(err, rc, "undo %s: %s",
					    change_action_str(&s->undo, buf, sizeof(buf)), e.msg);
			}
			continue;
		}
		s->status = CHANGE_STEP_UNDONE;
	}
	return first;
}

/* Stopped before step @i (0-based; n_steps: after the last): undo what is done. */
static int plan_stopped(struct sys *sys, struct changeset *cs, struct apply_report *rep, size_t i,
			int rc)
{
	struct fab_err e;

	rep->failed = (long)i;
	if (rep->signo)
		snprintf(rep->error, sizeof(rep->error), "interrupted by SIG%s before step %zu of %zu",
			 sigabbrev_np(rep->signo) ? sigabbrev_np(rep->signo) : "?", i + 1,
			 cs->n_steps);
	else
		snprintf(rep->error, sizeof(rep->error), "stopped before step %zu of %zu: %s",
			 i + 1, cs->n_steps, strerror(-rc));
	fab_err_init(&e);
	rep->rolled_back = apply_changeset_undo(sys, cs, &e) == 0;
	if (!rep->rolled_back)
		snprintf(rep->rollback_error, sizeof(rep->rollback_error), "%s", e.msg);
	return rc;
}

int apply_changeset_run(struct sys *sys, struct changeset *cs, struct apply_report *rep,
		   int (*before)(void *arg, size_t i, struct apply_report *rep), void *arg)
{
	struct fab_err e;
	char buf[160];
	int rc;

	rep->failed = -1;
	for (size_t i = 0; i <= cs->n_steps; i++) {
		struct change_step *s;

		rc = before ? before(arg, i, rep) : 0;
		if (rc < 0)
			return plan_stopped(sys, cs, rep, i, rc);
		if (i == cs->n_steps)
			break;
		s = &cs->steps[i];
		fab_err_init(&e);
		rc = apply_action_exec(sys, &s->act, &e);
		if (rc == 0) {
			s->status = CHANGE_STEP_DONE;
			continue;
		}
		s->status = CHANGE_STEP_FAILED;
		rep->failed = (long)i;
		snprintf(rep->error, sizeof(rep->error), "step %zu (%s) failed: %.800s", i + 1,
			 change_action_str(&s->act, buf, sizeof(buf)), e.msg);
		fab_err_init(&e);
		rep->rolled_back = apply_changeset_undo(sys, cs, &e) == 0;
		if (!rep->rolled_back)
			snprintf(rep->rollback_error, sizeof(rep->rollback_error), "%s", e.msg);
		return rc;
	}
	return 0;
}
