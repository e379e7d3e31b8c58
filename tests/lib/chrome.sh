# shellcheck shell=bash
# Headless Chromium for the report tests (tests/integration/report-html*.sh):
# the page opened with no network (an empty network namespace; the page's
# CSP is default-src 'none'), its DOM dumped, read back.  Needs $TMP
# (tests/lib/common.sh tmpdir_with_cleanup) and fail/pretty from there.

# chrome PAGE ARGS...: headless Chromium without network on file PAGE;
# stdout to $TMP/dom (with --dump-dom), its log to $TMP/chrome.err.
chrome() {
	local page=$1 prof
	shift
	prof=$(mktemp -d "$TMP/chrome.XXXXXX")
	pretty "chromium --headless $* $page"
	unshare -n timeout 180 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$prof" --enable-logging=stderr --v=0 \
		"$@" "file://$page" >"$TMP/dom" 2>"$TMP/chrome.err" || { cat "$TMP/chrome.err" >&2; fail "chromium failed on $page"; }
	rm -rf "$prof"
}

# page_ok WHAT: the last dump shows a page whose script ran to its end with
# no error (window.onerror marks <body data-js-error>) and no console message
# from the page (Chromium's own chrome:// pages log some of their own).
page_ok() {
	local body
	body=$(grep -o '<body[^>]*>' "$TMP/dom" | head -1)
	echo "  $1: $body" >&2
	case $body in *data-js-error*) fail "$1: script error: $body" ;; esac
	case $body in *'data-rendered="1"'*) ;; *) fail "$1: the page's script did not finish" ;; esac
	if grep -E ':CONSOLE.*source: file://|Uncaught' "$TMP/chrome.err" >&2; then fail "$1: console messages"; fi
	printf '  ok: %s: loads without errors\n' "$1" >&2
}

# attrs CLASS ATTR...: from the dump, the given attributes of every element whose class starts with CLASS.
attrs() {
	python3 - "$TMP/dom" "$@" <<'EOF'
import re, sys, html
dom, cls, names = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3:]
for m in re.finditer(r'<[a-z]+ [^>]*class="' + re.escape(cls) + r'[^"]*"[^>]*>', dom):
    tag = m.group(0)
    vals = []
    for n in names:
        a = re.search(r' ' + n + r'="([^"]*)"', tag)
        vals.append(html.unescape(a.group(1)) if a else "-")
    print(" ".join(vals))
EOF
}

# data FILE EXPR: a Python expression over D, the page's data block.
data() {
	python3 - "$1" "$2" <<'EOF'
import json, re, sys
page = open(sys.argv[1]).read()
D = json.loads(re.search(r'<script type="application/json" id="fab-data">(.*?)</script>', page, re.S).group(1))
print(eval(sys.argv[2]))
EOF
}
