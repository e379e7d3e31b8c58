// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report's cable table (render/report_html_cables.c): a diagnose
 * document's "cables" as rows (node, interface, module, verdict, the
 * worst figure with its limit, the hint), escaped; a host not read or
 * without modules is one line; nothing without cables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render/report_html.h"

static const char *cables_json =
	"{\"window_s\": 4.25, \"hosts\": ["
	"{\"node\": \"h2<x>\", \"read\": true, \"note\": null, \"ports\": [{\"ifname\": \"eth0\","
	" \"module\": {\"type\": \"QSFP28\", \"vendor\": \"ACME\", \"pn\": \"SR4\"},"
	" \"module_error\": null, \"verdict\": {\"health\": \"marginal\", \"findings\": ["
	"  {\"level\": \"marginal\", \"code\": \"rx_power_low_warning\", \"lane\": 2,"
	"   \"value\": -11.2, \"limit\": -10, \"unit\": \"dBm\", \"source\": \"module threshold\","
	"   \"hint\": \"inspect and clean the connectors at both ends\","
	"   \"text\": \"lane 2 Rx -11.20 dBm below the low warning -10.00 dBm\"}]}},"
	" {\"ifname\": \"eth1\", \"module\": null, \"module_error\": \"module: eth1: no module plugged\","
	"  \"verdict\": {\"health\": \"unknown\", \"findings\": []}}]},"
	"{\"node\": \"h3\", \"read\": true, \"note\": null, \"ports\": []},"
	"{\"node\": \"h4\", \"read\": false, \"note\": \"its worker is gone\", \"ports\": []}],"
	"\"ib_window_s\": 30, \"ib_ports\": [{\"node\": \"leaf-001\", \"port\": 5, \"verdict\": "
	"{\"health\": \"failing\", \"findings\": [{\"level\": \"failing\", \"code\": \"symbol_errors\","
	" \"value\": 1.3e-11, \"limit\": 1e-12, \"unit\": null, \"hint\": \"clean\","
	" \"text\": \"40 symbol errors in 30 s\"}]}}]}";

static char *render(const json_t *cables)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_html_cables(f, cables, "diag.json");
	fclose(f);
	return buf;
}

static void test_table(void **state)
{
	json_t *c = json_loads(cables_json, 0, NULL);
	char *html;

	(void)state;
	assert_non_null(c);
	html = render(c);
	assert_non_null(strstr(html, "<h2>Cables of the suspects <small>diag.json &middot; "
				     "judged over 4.2 s</small></h2>"));
	assert_non_null(strstr(html, "<tr><td>h2&lt;x&gt;</td><td>eth0</td><td>QSFP28 ACME SR4</td>"
				     "<td><span class=\"tag slow\">marginal</span></td>"
				     "<td><b>-11.2 dBm</b> (limit -10 dBm): lane 2 Rx -11.20 dBm below the "
				     "low warning -10.00 dBm</td>"
				     "<td>inspect and clean the connectors at both ends</td></tr>"));
	assert_non_null(strstr(html, "<td>eth1</td><td>module: eth1: no module plugged</td>"
				     "<td><span class=\"\">unknown</span></td><td>-</td><td>-</td>"));
	assert_non_null(strstr(html, "<tr><td>h3</td><td colspan=\"5\">no port with a module "
				     "interface</td></tr>"));
	assert_non_null(strstr(html, "<tr><td>h4</td><td colspan=\"5\">its worker is gone</td></tr>"));
	assert_non_null(strstr(html, "<tr><td>leaf-001</td><td>port 5</td><td>InfiniBand PMA counters"
				     "</td><td><span class=\"tag bad\">failing</span></td><td><b>1.3e-11"
				     "</b> (limit 1e-12): 40 symbol errors in 30 s</td><td>clean</td></tr>"));
	free(html);
	json_decref(c);
	/* null (diagnose --from) or no host: no section */
	html = render(json_null());
	assert_string_equal(html, "");
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
