#!/usr/bin/env bash
# Checks the HTML reference of `markerspec conformance --html` in a real browser (Chromium,
# headless): the page is self-contained, small, renders (a screenshot that is not blank), and
# its filters work (the rendered DOM after `?q=`, `?tool=`, `?category=` and `#case`).
#
#   scripts/html-check.sh [PAGE.html]
#
# Without PAGE, it writes one from the built-in implementation against itself served over the
# adapter protocol (`markerspec conformance --serve`, whose three profiles disagree on many
# cases). The screenshot and the dumped DOMs go to target/html-check/.
#
# Needs chromium (Debian's `chromium` package); when it is missing and apt-get is there and
# this runs as root, installs it. Exits 0 when every check passed, 1 when one failed, 77 (and
# says so) when no browser could be had, so that the check is reported as not run.
#
# Environment:
#   HTML_CHECK_MAX_BYTES   the most the page may weigh (default 4000000)
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/html-check
mkdir -p "$out"
max_bytes=${HTML_CHECK_MAX_BYTES:-4000000}

browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "html-check: installing chromium with apt-get"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
        browser=chromium
    else
        echo "html-check: NOT RUN: no chromium, and no apt-get (or not root) to install it" >&2
        exit 77
    fi
fi

page=${1:-}
if [ -z "$page" ]; then
    cargo build --locked --quiet -p markerspec-cli
    page=$out/page.html
    status=0
    target/debug/markerspec conformance --adapter "target/debug/markerspec conformance --serve" \
        --html "$page" >/dev/null || status=$?
    [ "$status" -le 1 ] || { echo "html-check: conformance failed ($status)" >&2; exit 1; }
fi
page=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")

fail=0
check() { # check DESCRIPTION COMMAND...
    if "${@:2}"; then echo "ok: $1"; else echo "FAILED: $1" >&2; fail=1; fi
}

bytes=$(wc -c < "$page")
echo "page: $page ($bytes bytes)"
check "the page is at most $max_bytes bytes" [ "$bytes" -le "$max_bytes" ]
check "the page loads nothing from elsewhere" \
    bash -c '! grep -Eq "(src|href)=\"(https?:)?//|@import|url\\((https?:)?//" "$0"' "$page"

browse() { # browse URL-SUFFIX OUTFILE: the DOM after the page's script ran
    "$browser" --headless --no-sandbox --disable-gpu --no-first-run --virtual-time-budget=10000 \
        --dump-dom "file://$page$1" 2>/dev/null > "$2"
}
count() { # "N of M" -> N
    grep -o 'id="count">[0-9]* of [0-9]*' "$1" | sed 's/.*>\([0-9]*\) of.*/\1/'
}
total() {
    grep -o 'id="count">[0-9]* of [0-9]*' "$1" | sed 's/.* of //'
}
rows() { grep -o '<tr id="' "$1" | wc -l; }

data() { # data rows INDEX | data tools -: a case name, or the tool that differs most, from
         # the page's embedded data
    python3 - "$page" "$1" "$2" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
d = json.loads(m.group(1))
if sys.argv[2] == "rows":
    print(d["rows"][int(sys.argv[3])][0])
else:  # the tool that differs from the specification most often
    differs = [sum(1 for r in d["rows"] if r[5][t] and r[5][t][1]) for t in range(len(d["tools"]))]
    print(d["tools"][max(range(len(differs)), key=differs.__getitem__)]["name"])
PY
}

browse "" "$out/all.html"
all=$(count "$out/all.html"); all=${all:-0}
check "the unfiltered page lists divergences ($all)" [ "$all" -gt 0 ]
check "the matrix is rendered" grep -q '<td>TOTAL</td>' "$out/all.html"
check "rows are rendered lazily (at most 300 at first)" [ "$(rows "$out/all.html")" -le 300 ]

# A text filter naming one case shows that case alone.
first=$(data rows 0)
check "a case to filter on" [ -n "$first" ]
browse "?q=$first" "$out/q.html"
n_q=$(count "$out/q.html")
check "?q=$first leaves a few of $all ($n_q)" bash -c "[ '${n_q:-0}' -ge 1 ] && [ '${n_q:-0}' -lt '$all' ]"
check "?q=$first shows that row" grep -q "<tr id=\"$first\"" "$out/q.html"
check "?q=$first shows only rows that contain it" \
    bash -c '! grep -o "<tr id=\"[^\"]*\"" "$0" | grep -vq "\"$1"' "$out/q.html" "$first"

# A tool filter narrows the list; an unknown category empties it.
tool=$(data tools -)
enc_tool=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$tool")
browse "?tool=$enc_tool" "$out/tool.html"
n_tool=$(count "$out/tool.html")
check "?tool=$tool keeps some rows but not every one ($n_tool of $all)" \
    bash -c "[ '${n_tool:-0}' -gt 0 ] && [ '${n_tool:-0}' -lt '$all' ]"
last=$(data rows -1)
# A #case link renders that case even past the first page of rows, and marks it.
browse "#$last" "$out/hash.html"
check "#$last is rendered and marked" grep -q "<tr id=\"$last\" class=\"target\"" "$out/hash.html"

"$browser" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --window-size=1600,2400 --screenshot="$out/page.png" "file://$page?q=python_version" \
    >/dev/null 2>&1 || true
shot=$(wc -c < "$out/page.png" 2>/dev/null || echo 0)
# A blank 1600x2400 screenshot is about 10 KB; the rendered tables are several hundred.
check "the screenshot shows something ($shot bytes, $out/page.png)" [ "$shot" -gt 50000 ]

exit $fail
