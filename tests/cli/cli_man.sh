#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The man pages generated from --help (cmake/lthDocs.cmake, scripts/helpdoc.py):
# one per tool, rendered by groff without a warning, naming every option of
# the tool's --help and its exit statuses; every option entry of --help well
# formed (scripts/helpdoc.py --check).  Without groff the rendering checks
# are reported as skipped (the page contents are still checked).
source "$(dirname "$0")/testlib.sh"
MAN="$APPS/../share/man/man1"
have_groff=0
command -v groff >/dev/null && have_groff=1
[ "$have_groff" = 1 ] || echo "cli_man: groff not installed: rendering checks skipped"
ntools=0
for tool in "$APPS"/lth-*; do
  name=$(basename "$tool")
  ntools=$((ntools + 1))
  page="$MAN/$name.1"
  if [ ! -s "$page" ]; then
    fail "$name: no man page $page"
    continue
  fi
  # every option entry of --help well formed (the man page's .TP items)
  python3 "$(dirname "$0")/../../scripts/helpdoc.py" --tool "$tool" --check 2>"$TMP/check" ||
    fail "$name --help: $(cat "$TMP/check")"
  grep -q '^\.SH NAME' "$page" || fail "$name: no NAME section"
  grep -q '^\.SH "EXIT STATUS"' "$page" || fail "$name: no EXIT STATUS section"
  # the install prefix is chosen at install time (cmake --install --prefix): a
  # path the build wrote into SEE ALSO would be wrong for any other prefix
  sed -n '/^\.SH "SEE ALSO"/,$p' "$page" | grep -q ' /' &&
    fail "$name.1: SEE ALSO names an absolute path: $(sed -n '/^\.SH "SEE ALSO"/,$p' "$page" | grep ' /')"
  if [ "$have_groff" = 1 ]; then
    groff -man -Tutf8 -ww -z "$page" 2>"$TMP/warn"
    [ -s "$TMP/warn" ] && fail "$name.1: groff warns: $(head -c 600 "$TMP/warn")"
    groff -man -Tascii "$page" 2>/dev/null | col -b 2>/dev/null >"$TMP/page" ||
      groff -man -Tascii -P-cbou "$page" >"$TMP/page"
    # every option of --help appears in the rendered page
    "$tool" --help | grep -oE '^ {1,4}-[-a-z0-9]+(, --[-a-z0-9]+)?' | tr -d ' ' | tr ',' '\n' |
      sort -u >"$TMP/opts"
    [ -s "$TMP/opts" ] || fail "$name: no options found in --help"
    while read -r opt; do
      grep -qF -- "$opt" "$TMP/page" || fail "$name.1 lacks the option $opt"
    done <"$TMP/opts"
  fi
done
[ "$ntools" -ge 6 ] || fail "expected 6 tools in $APPS, found $ntools"
finish cli_man
