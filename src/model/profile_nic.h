/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the profile loader (model/profile.c, model/profile_nic.c):
 * the `nics:` section and the `match:` reader they share.
 */
#ifndef FAB_MODEL_PROFILE_NIC_H
#define FAB_MODEL_PROFILE_NIC_H

#include "model/profile.h"
#include "model/yaml_walk.h"

/* `match:` one glob or a list of up to PROFILE_MAX_GLOBS globs into @globs. */
int profile_globs_get(const struct yaml_walk *w, const yaml_node_t *n, char (*globs)[32],
		      size_t *count);

/* Item @e of `nics:` (@what "nics[3]", @m its mark) appended to @p. */
int profile_nic_parse(const struct yaml_walk *w, yaml_node_t *e, const char *what,
		      struct profile_mark m, struct profile *p);

#endif
