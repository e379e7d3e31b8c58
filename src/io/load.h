/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The user's input files, read whole (util/file.c) and parsed by the
 * model: the one way every command loads a profile or a hosts file.  The
 * model parses buffers and never opens a file; this layer (above model,
 * below sys) is where a path becomes a buffer.  Errors are bad input
 * ("PATH: reason", "PATH:LINE:COL: message"; exit 2).
 */
#ifndef FAB_IO_LOAD_H
#define FAB_IO_LOAD_H

#include <stddef.h>

#include <jansson.h>

#include "model/hosts.h"
#include "model/counter_eval.h"
#include "model/profile.h"
#include "model/topo.h"
#include "model/topo_lldp_checks.h"
#include "util/err.h"

/* Hosts files larger than this are refused (bad input). */
#define HOSTS_FILE_MAX_BYTES (16u << 20)

/* Load and parse the profile @path; on success *@out is a new profile. */
int profile_load(const char *path, struct profile **out, struct fab_err *err);

/*
 * Read the profile @path whole into *@text (free() it; NUL-terminated)
 * and parse it into *@out (may be NULL to validate only): what `--hosts`
 * sends to the nodes is exactly the text that was validated here.
 */
int profile_load_text(const char *path, char **text, size_t *len, struct profile **out,
		      struct fab_err *err);

/* A profile sent to the nodes larger than this is refused (escaped at most 2x: one protocol line). */
#define PROFILE_PARAMS_MAX (256 * 1024)

/*
 * The profile @path read, validated here (bad input: file:line:column,
 * before any node is contacted), and made the workers' verify/apply
 * parameters: *@params = {"profile": <its text>, "profile_name": @path}.
 */
int profile_load_params(const char *path, json_t **params, struct fab_err *err);

/* Load the hosts file @path into @hs (hosts_init'ed by the caller). */
int hosts_load(struct fab_hosts *hs, const char *path, struct fab_err *err);

/*
 * The same, one entry per node (hosts_nodes(): a host of several fabric
 * ports once, by its NAME), for what runs once per node.
 */
int hosts_load_nodes(struct fab_hosts *hs, const char *path, struct fab_err *err);

/*
 * Both: the nodes into @nodes and, when a host has several fabric ports
 * (hosts_have_rails()), every line into @ports (else @ports stays empty).
 * Both hosts_init'ed by the caller.
 */
int hosts_load_split(struct fab_hosts *nodes, struct fab_hosts *ports, const char *path,
		     struct fab_err *err);

/* Cabling plans larger than this are refused (bad input). */
#define PLAN_FILE_MAX_BYTES (64u << 20)

/*
 * The cabling plan @path as a new struct topo (TOPO_SRC_PLAN) in *@out:
 * the YAML plan (*.yaml / *.yml, or YAML content; docs/plan.md) with its
 * rails into @rails (topo_rails_init'ed by the caller), else ibnetdiscover's
 * topology format.  A plan without links is bad input.
 */
int plan_load(const char *path, struct topo **out, struct topo_rails *rails, struct fab_err *err);

#define POLICY_FILE_MAX_BYTES (1u << 20)

/* The counter policy @path (NULL: the defaults) into @pol. */
int counter_policy_load(const char *path, struct counter_policy *pol, struct fab_err *err);

/*
 * The JSON document @path (at most @max bytes, duplicate keys refused) as
 * a new reference in *@doc; not JSON: "PATH:LINE:COL: message".
 */
int json_doc_load(const char *path, size_t max, json_t **doc, struct fab_err *err);

#endif
