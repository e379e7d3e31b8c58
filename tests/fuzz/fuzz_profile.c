// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the profile loader (libyaml document walk, strict
 * schema, ranges).  Any input must either load or fail with a message of
 * the form "fuzz.yaml:LINE:COL: ..." / "fuzz.yaml: ..." and exit code 2;
 * never crash, leak or hang.  Seeds: the shipped profiles, copied into
 * tests/fuzz/corpus/profile/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/profile.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = NULL;
	struct fab_err err;
	int rc;

	fab_err_init(&err);
	rc = profile_parse("fuzz.yaml", data, size, &p, &err);
	if (rc == 0) {
		/* Exercise the matchers on what was loaded. */
		for (size_t i = 0; i < p->n_ifaces; i++)
			(void)profile_iface_matches(&p->ifaces[i], "eth0", "mlx5_core", "");
		profile_free(p);
		return 0;
	}
	if (p || strncmp(err.msg, "fuzz.yaml", 9) != 0 ||
	    (rc != -ENOMEM && fab_err_exit(&err) != FAB_EXIT_USAGE))
		abort();
	return 0;
}
