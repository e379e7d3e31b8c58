/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The change set: what must change on a node for it to match a profile, as an
 * ordered list of steps, each with the action that undoes it; plus the
 * drift list (interface, field, wanted, found) that `verify` reports.
 * Pure: changeset_diff() reads a struct profile and a struct node_config (filled
 * by the command layer through sys_ops) and does no I/O.
 *
 * Order (safe): bonds are created and get their members before any MTU;
 * a bond's MTU before its members'; PFC before ETS before the APP table
 * (stale entries deleted before new ones added) before trust; then ECN,
 * then RoCE ToS.  Undo runs in reverse.
 *
 * Ownership: struct changeset owns its steps and drift arrays (changeset_init /
 * changeset_fini); struct node_config owns its arrays and each iface's fab_dcb
 * and each bond's fab_bond (node_config_init / node_config_fini); it only
 * borrows the struct host_state it was built from.
 */
#ifndef FAB_MODEL_CHANGESET_H
#define FAB_MODEL_CHANGESET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/bond.h"
#include "model/dcb.h"
#include "model/dcqcn.h"
#include "model/ecn.h"
#include "model/host_state.h"
#include "model/lossless.h"
#include "model/profile.h"
#include "util/err.h"

/*
 * ---- what was read from the node ----
 * struct host_state (model/host_state.h) is the node's inventory: links
 * and RDMA ports, what status shows.  struct node_config is the
 * configuration a profile governs, read on top of that inventory for a
 * change set: per-interface DCB, ECN, RoCE ToS and bonds.
 */

struct node_iface {
	char name[FAB_IFNAMSIZ];
	unsigned int mtu;
	int dcb_rc;		/* 0 read, -errno failed (-EOPNOTSUPP: no DCB), 1 not read */
	char dcb_msg[256];	/* why, when dcb_rc < 0 */
	struct fab_dcb dcb;	/* owned */
	int ecn_rc[FAB_ECN_N_POINTS];	/* per enum fab_ecn_point, same encoding as dcb_rc */
	char ecn_msg[FAB_ECN_N_POINTS][256];
	uint8_t ecn[FAB_ECN_N_POINTS];		/* bit p: ECN enabled on priority p */
	char rdma_dev[64];	/* RDMA device on this netdev, "" none */
	unsigned int rdma_port;
	unsigned int roce_active_mtu;	/* 0 unknown */
	int tos_rc;
	char tos_msg[256];
	unsigned int tos;
	int storm_rc;		/* PFC storm prevention read: same encoding as dcb_rc */
	char storm_msg[256];
	unsigned int storm_ms;	/* 0 off, 0xffff auto */
	int dcqcn_rc;		/* same encoding as dcb_rc */
	char dcqcn_msg[256];
	struct fab_dcqcn dcqcn;	/* DCQCN parameters (model/dcqcn.h), CNP marking among them */
};

struct node_bond {
	char name[FAB_IFNAMSIZ];
	int rc;			/* 0 read, -ENODEV absent, other -errno: read failed */
	char msg[256];
	struct fab_bond bond;	/* owned; valid when rc == 0 */
};

struct node_config {
	const struct host_state *hs;	/* borrowed: links, RDMA ports */
	struct node_iface *ifaces;
	size_t n_ifaces;
	struct node_bond *bonds;
	size_t n_bonds;
};

void node_config_init(struct node_config *ns, const struct host_state *hs);
void node_config_fini(struct node_config *ns);
/* New zeroed element (dcb_rc/ecn_rc/tos_rc = 1 "not read"); borrowed, NULL on ENOMEM. */
struct node_iface *node_config_iface_add(struct node_config *ns, const char *name);
struct node_bond *node_config_bond_add(struct node_config *ns, const char *name);
struct node_iface *node_config_iface(const struct node_config *ns, const char *name);
struct node_bond *node_config_bond(const struct node_config *ns, const char *name);

/* What the profile needs read for an interface, merged over matching items. */
struct change_needs {
	bool dcb, ecn_np, ecn_rp, tos, dcqcn, pfc_storm;
};
/*
 * The interfaces (of @hs) that the profile's interface items match, and
 * what must be read on each; @needs[i] for hs->links[i].
 */
void change_needs(const struct profile *p, const struct host_state *hs, struct change_needs *needs);

/* ---- actions and steps ---- */

enum change_op {
	CHANGE_BOND_CREATE,	/* bond (options) */
	CHANGE_BOND_DELETE,	/* obj */
	CHANGE_BOND_SET,		/* bond (options, -1 = leave) */
	CHANGE_BOND_ENSLAVE,	/* obj = bond, arg = member */
	CHANGE_BOND_RELEASE,	/* arg = member (obj = bond, informational) */
	CHANGE_MTU_SET,		/* obj = ifname, u = mtu */
	CHANGE_PFC_SET,		/* obj, pfc */
	CHANGE_ETS_SET,		/* obj, ets */
	CHANGE_APP_DEL,		/* obj, app */
	CHANGE_APP_ADD,		/* obj, app */
	CHANGE_TRUST_SET,		/* obj, trust[n_trust] */
	CHANGE_ECN_SET,		/* obj, point, u = prio, on */
	CHANGE_TOS_SET,		/* obj = rdma dev, port, u = tos */
	CHANGE_FAIL,		/* cannot be done here: fails with errno_ and msg */
	CHANGE_MAXRATE_SET,	/* obj, maxrate[8] kbit/s */
	CHANGE_BUFFER_SET,	/* obj, buffer (prio2buffer, sizes; total_size as read) */
	CHANGE_DCQCN_SET,	/* obj, port = enum dcqcn_param, val */
	CHANGE_PFC_STORM_SET,	/* obj, u = ms (0 off, 0xffff auto) */
};

struct change_action {
	enum change_op op;
	char obj[64];
	char arg[FAB_IFNAMSIZ];
	unsigned int u;
	unsigned int port;
	enum fab_ecn_point point;
	bool on;
	int errno_;		/* CHANGE_FAIL: negative errno */
	char msg[160];		/* CHANGE_FAIL: the message */
	struct fab_dcb_pfc pfc;
	struct fab_dcb_ets ets;
	struct fab_dcb_app app;
	uint64_t maxrate[FAB_DCB_NTC];
	struct fab_dcb_buffer buffer;
	uint32_t val;		/* CHANGE_DCQCN_SET */
	uint8_t trust[FAB_DCB_TRUST_MAX];
	size_t n_trust;
	struct fab_bond bond;	/* options only: members is always NULL */
};

enum change_step_status {
	CHANGE_STEP_PLANNED = 0,	/* not run (dry run, or after a failure) */
	CHANGE_STEP_DONE,		/* done and kept */
	CHANGE_STEP_FAILED,	/* this step failed */
	CHANGE_STEP_UNDONE,	/* done, then undone by the rollback */
	CHANGE_STEP_UNDO_FAILED,	/* done, and the rollback could not undo it */
};

struct change_step {
	enum change_step_status status;
	struct change_action act;
	struct change_action undo;
	bool has_undo;		/* false: previous value unknown (read unsupported) */
	char object[64];	/* for the report: interface, bond or rdma port */
	char field[32];
	char from[128];
	char to[128];
	char fails[256];	/* certain to fail, and why (driver lacks it, no such
				 * device); "" when it may work */
};

struct drift {
	char object[64];	/* interface, bond, "dev/port", or the unmatched glob */
	char field[32];
	char wanted[128];
	char found[400];	/* a broken chain's finding is a sentence */
	bool verify_only;	/* no step can fix it (link state, RoCE MTU, a bond leg) */
};

struct changeset {
	struct change_step *steps;
	size_t n_steps;
	struct drift *drift;
	size_t n_drift;
	size_t n_unmatched;	/* profile items matching nothing (not optional) */
	/* verify: the lossless chain of each interface a `roce.tos` item
	 * matches (changeset_chains(); apply leaves it empty) */
	struct lossless_chain *chains;
	size_t n_chains;
};

/* What `apply` did, for the renderers.  Borrows the change set. */
struct apply_report {
	const char *profile;	/* path as given */
	const struct changeset *cs;
	bool dry_run;
	long failed;		/* index of the failed step, -1 when none */
	char error[1024];	/* why it failed ("" when it did not) */
	bool rolled_back;	/* a failure was undone completely */
	char rollback_error[1024];	/* first undo failure, "" when none */
	long long try_deadline_s;	/* --try: epoch seconds of the automatic revert, 0 */
	char pending_path[PATH_MAX];	/* --try: the pending-state file */
	char dry_refused[1024];	/* --dry-run: why a real apply would be refused now
				 * (a try is pending), "" when it would not */
	int signo;		/* SIGINT/SIGTERM/SIGHUP stopped it (rolled back), 0 */
	bool recovered;		/* a killed apply's journal was undone first... */
	size_t recovered_steps;	/* ... that many steps */
	char orphan[1024];	/* a try past its deadline whose reverter had died was
				 * reverted first: what was done ("" when not) */
};

/* Steps of @cs certain to fail (change_step.fails set). */
size_t changeset_n_fails(const struct changeset *cs);
/* Drift of @cs no step can fix (drift.verify_only). */
size_t changeset_n_verify_only(const struct changeset *cs);

void changeset_init(struct changeset *cs);
void changeset_fini(struct changeset *cs);

/*
 * Diff @p against @ns: fill @cs's steps and drift.  Verify-only fields
 * (infiniband, roce.mtu) produce drift but no steps.  0 or -errno (-ENOMEM;
 * -EIO with @err naming the object when a bond could not be read).
 */
int changeset_diff(const struct profile *p, const struct node_config *ns, struct changeset *cs,
	      struct fab_err *err);

/*
 * The lossless chain (model/lossless.h, model/changeset_chain.c; verify
 * only).  An interface has one when a profile item with `roce.tos`
 * matches it.  changeset_chain_wanted: does link @l?
 * changeset_chains: follow the chain of each such interface of @ns (read
 * by node_verify(): DCB, ECN, ToS, the RDMA port's GIDs) into cs->chains;
 * a broken chain is also one drift (field "chain", wanted "unbroken",
 * found the finding, verify only).  The chain follows the ToS the node
 * has (the profile's when it could not be read).  0 or -ENOMEM.
 */
bool changeset_chain_wanted(const struct profile *p, const struct fab_link *l);
/*
 * status: the chain of link @l from what the node has alone (@ni, its
 * RDMA port, ToS, DCB and ECN read), into @out: lossless expected when PFC
 * is on for some priority, DCQCN when ECN's reaction point is on for some.
 */
void changeset_port_chain(const struct host_state *hs, const struct fab_link *l,
			  const struct node_iface *ni, struct lossless_chain *out);
int changeset_chains(const struct profile *p, const struct node_config *ns, struct changeset *cs);

/* The op's name in texts and the pending state ("pfc", "buffer"); NULL when unknown.  Parse: -1. */
const char *change_op_name(enum change_op op);
int change_op_parse(const char *name);

/* One-line text of an action ("mtu veth0 9000"), for logs and reports. */
const char *change_action_str(const struct change_action *a, char *buf, size_t len);

/* Formatting helpers shared with the renderers. */
const char *prio_mask_str(uint8_t mask, char *buf, size_t len);	/* "3,4" or "none" */

/*
 * What the pending state says besides the undo list.  Two states: an
 * apply in progress (@applying: its journal, written before the first
 * change, @started updated before each step; left behind only when that
 * apply was killed) and a pending --try (all steps done, a reverter).
 */
struct change_pending {
	bool applying;			/* the journal of an apply, not a try */
	size_t started;			/* steps begun: undo[0..started) (a try: all) */
	int owner;			/* pid of the apply that wrote it (information) */
	long long deadline;		/* --try: Unix seconds; 0: none */
	int pid;			/* the reverter; 0: none */
	unsigned long long pid_start;	/* its start (/proc/PID/stat field 22); 0: unknown */
};

/*
 * Pending-state (de)serialization for `apply --try`: JSON text via
 * jansson, schema "fabricctl.pending/2" (docs/json-verify.md).
 */
char *changeset_undo_to_json(const struct changeset *cs, size_t n_done, const struct change_pending *pp);
/*
 * Parse the pending-state document back into @cs (the undo actions of
 * the @pp->started steps begun, in steps[i].undo, has_undo set) and @pp ("fabricctl.pending/1", which has
 * no pid_start, reads as pid_start 0).  Input errors -EINVAL with @err
 * "name: message".
 */
int changeset_undo_from_json(const char *name, const char *text, size_t len, struct changeset *cs,
			struct change_pending *pp, struct fab_err *err);

#endif
