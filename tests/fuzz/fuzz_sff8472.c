// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the SFF-8472 (A0h, then A2h) decoder, its verdict
 * and its JSON, on pages as a module would hand them out (fuzz_module.h).
 * Seeds: tests/fuzz/corpus/sff8472 (spec-built modules: healthy, alarms, edges).
 *   build/fuzz/fuzz_sff8472 -max_total_time=60 tests/fuzz/corpus/sff8472
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_module.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t ids[] = { 0x02, 0x03, 0x0b };

	fuzz_module_run(data, size, ids, sizeof(ids));
	return 0;
}
