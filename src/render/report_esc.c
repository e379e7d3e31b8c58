// SPDX-License-Identifier: GPL-2.0-or-later
/* The HTML report's one escaper for text from documents (report_html.h). */
#include <stdio.h>

#include "render/report_html.h"

void report_html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}
