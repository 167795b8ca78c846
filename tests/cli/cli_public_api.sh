#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every function declared in a public header (include/lth/*.h) is used
# somewhere outside lib/: by a tool (apps/), the Python package (python/), a
# benchmark (bench/), an example (examples/) or a test (tests/).  A public
# function nothing outside the library calls is either untested API or an
# internal helper that leaked into a public header: test it, or declare it in
# its folder's header under lib/<layer>/.
# Usage: bash cli_public_api.sh BUILD/apps   (env LTH_DATA_DIR = data/)
source "$(dirname "$0")/testlib.sh"
ROOT=$(cd "$DATA/.." && pwd)

# Allowed without a caller for now, each with the reason.  An entry that is
# no longer declared, or that something outside lib/ now calls, fails the
# check: remove it here.
ALLOW=(
)

/usr/bin/python3 - "$ROOT" "$TMP" "${ALLOW[@]}" <<'EOF' || fail "the public-API scan did not run"
import io, os, re, sys, tokenize

root, tmp, allow = sys.argv[1], sys.argv[2], sys.argv[3:]

def strip_c(text):
    """C/C++ source without comments, string and character literals."""
    pat = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pat.sub(lambda m: " " if m.group(0)[0] == "/" else '""', text)

def strip_py(text):
    """Python source without comments (strings stay: ctypes names functions in them)."""
    try:
        toks = tokenize.generate_tokens(io.StringIO(text).readline)
        return " ".join(t.string for t in toks if t.type != tokenize.COMMENT)
    except (tokenize.TokenError, SyntaxError):
        return text

# Declarations: an lth_ identifier followed by "(" at file scope (outside
# struct, enum and function bodies), once the comments and preprocessor lines
# are gone; "(*name)(" and "type (*member)(" are function-pointer types.
declared = {}
inc = os.path.join(root, "include", "lth")
for h in sorted(os.listdir(inc)):
    if not h.endswith(".h"):
        continue
    text = strip_c(open(os.path.join(inc, h), encoding="utf-8").read())
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
    text = re.sub(r'extern\s*""\s*\{', "", text)  # extern "C" { ... } wraps every header
    depth = 0
    for m in re.finditer(r"[{}]|(\(\s*\*\s*)?\b(lth_\w+)\s*\((?!\s*\*)", text):
        if m.group(0) == "{":
            depth += 1
        elif m.group(0) == "}":
            depth -= 1
        elif depth <= 0 and m.group(1) is None:
            declared.setdefault(m.group(2), h)

used = set()
word = re.compile(r"\blth_\w+")
for d in ("apps", "python", "bench", "examples", "tests"):
    for dd, _, files in os.walk(os.path.join(root, d)):
        for f in files:
            path = os.path.join(dd, f)
            if f.endswith((".c", ".h", ".cc", ".cpp")):
                text = strip_c(open(path, encoding="utf-8", errors="replace").read())
            elif f.endswith(".py"):
                text = strip_py(open(path, encoding="utf-8", errors="replace").read())
            else:
                continue
            used.update(word.findall(text))

problems = []
if len(declared) < 50:
    problems.append("found only %d functions in include/lth/*.h: the scan is broken" % len(declared))
for name in sorted(declared):
    if name not in used and name not in allow:
        problems.append("%s (include/lth/%s) has no caller in apps/, python/, bench/, examples/"
                        " or tests/: test it, or declare it under lib/<layer>/ if it is internal"
                        % (name, declared[name]))
for name in allow:
    if name not in declared:
        problems.append("%s is allowed without a caller but is no longer declared in"
                        " include/lth/: remove it from the allow-list" % name)
    elif name in used:
        problems.append("%s is allowed without a caller but is now called outside lib/: remove"
                        " it from the allow-list" % name)
with open(os.path.join(tmp, "problems"), "w") as out:
    out.write("".join(p + "\n" for p in problems))
print("public functions: %d declared, %d allowed without a caller" % (len(declared), len(allow)))
EOF

if [ -f "$TMP/problems" ]; then
  while IFS= read -r line; do fail "$line"; done <"$TMP/problems"
else
  fail "the public-API scan wrote no result"
fi
finish cli_public_api
