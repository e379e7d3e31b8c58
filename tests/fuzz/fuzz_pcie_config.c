// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the PCIe reader takes from the kernel (model/pcie.c), on arbitrary
 * bytes: a function's config space (any length up to 4 KiB: capability
 * lists that loop, point outside or end early), `ethtool
 * --show-priv-flags` text, and link speed strings.  Checks that the
 * results stay in their ranges.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/pcie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t cfg[4096];
	char text[256];
	enum pcie_port_type t;
	struct pcie_acs acs;
	struct pcie_dev d;
	size_t n = size < sizeof(cfg) ? size : sizeof(cfg);
	unsigned int mts;

	memset(cfg, 0, sizeof(cfg));
	memcpy(cfg, data, n);
	pcie_config_parse(cfg, n, &t, &acs);
	assert(t <= PCIE_TYPE_OTHER);
	assert(acs.state <= PCIE_ACS_PRESENT);
	assert(acs.state == PCIE_ACS_PRESENT || (acs.cap == 0 && acs.ctl == 0));
	if (n < 4096)
		assert(acs.state != PCIE_ACS_PRESENT);
	memset(&d, 0, sizeof(d));
	pcie_fw_lldp_parse(&d, (const char *)data, size);
	assert(d.fw_lldp <= PCIE_FW_LLDP_ON);
	assert(memchr(d.fw_lldp_flag, '\0', sizeof(d.fw_lldp_flag)));
	n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
	memcpy(text, data, n);
	text[n] = '\0';
	mts = pcie_speed_parse(text);
	assert(mts < 1000000);
	return 0;
}
