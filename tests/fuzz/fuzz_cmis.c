// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the CMIS (lower page, pages 00h, 01h, 02h, 11h of each
 * bank) decoder, its verdict and its JSON, on pages as a module would hand
 * them out (fuzz_module.h).
 * Seeds: tests/fuzz/corpus/cmis (spec-built modules: healthy, alarms, edges).
 *   build/fuzz/fuzz_cmis -max_total_time=60 tests/fuzz/corpus/cmis
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_module.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t ids[] = { 0x18, 0x19, 0x1b, 0x1e, 0x1f, 0x20 };

	fuzz_module_run(data, size, ids, sizeof(ids));
	return 0;
}
