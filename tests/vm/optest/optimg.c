// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tests-only: write a spec-built module image (tests/unit/module_img.h,
 * the images the unit tests decode) in the layout of optest's debugfs
 * eeprom file (optest.c) to stdout:
 *
 *   optimg sfp|qsfp|cmis > /sys/kernel/debug/optest/IF/eeprom
 *
 * The VM test then changes single fields with dd at the offsets optest.c
 * documents.
 */
#include <stdio.h>
#include <string.h>

#include "module_img.h"

#define OPT_PAGE 128
#define OPT_BANKS 4
#define OPT_A2 (OPT_PAGE + OPT_BANKS * 256 * OPT_PAGE)
#define OPT_SIZE (OPT_A2 + 256)

static struct img img;
static unsigned char out[OPT_SIZE];

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: optimg sfp|qsfp|cmis\n");
		return 2;
	}
	if (!strcmp(argv[1], "sfp"))
		sfp_build(&img);
	else if (!strcmp(argv[1], "qsfp"))
		qsfp_build(&img);
	else if (!strcmp(argv[1], "cmis"))
		cmis_build(&img);
	else {
		fprintf(stderr, "optimg: %s: not sfp, qsfp or cmis\n", argv[1]);
		return 2;
	}
	memcpy(out, img.a0, 256);	/* lower page; SFP: A0h 0-255 */
	if (img.a0[0] != 0x03)
		for (unsigned int b = 0; b < OPT_BANKS; b++)
			for (unsigned int p = 0; p < 256; p++)
				memcpy(out + OPT_PAGE + (b * 256 + p) * OPT_PAGE,
				       img.up[b][p] + 128, OPT_PAGE);
	memcpy(out + OPT_A2, img.a2, 256);
	return fwrite(out, 1, sizeof(out), stdout) == sizeof(out) ? 0 : 1;
}
