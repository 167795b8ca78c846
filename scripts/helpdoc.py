#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Man page and bash completion of a command-line tool, from its --help text.

    helpdoc.py --tool build/apps/lth-solve --version 0.1.0 \\
               --man OUT.1 --completion OUT [--docdir share/doc/lth]
    helpdoc.py --tool build/apps/lth-solve --check     # entries well formed?

The build runs this for every tool (cmake/lthDocs.cmake), so the man pages and
the completion follow `--help` without a copy to keep in step.  The --help
layout it understands (the tools' common style):

  Usage: NAME ARGS                        first line -> SYNOPSIS
  text at column 0                        paragraphs; the first sentence of
                                          the first one is the NAME line
  Heading:                                a one-line paragraph ending in ':'
    --opt, -o ARG   description           directly before option entries
                    continued             -> .SS Heading
  (2-4 spaces) -x, --long ARG  text       an option entry (ARG optional, also after each name);
  (2-4 spaces) word  text                 a one-word entry (e.g. a method)
  other indented lines                    literal text (examples, data files)
  Exit status: ...                        -> EXIT STATUS

Option entries give the completion its words: every option name, file names
after options whose argument is FILE, and the values listed in the
description ("text (default), csv or json" -> text csv json).
"""
import argparse
import re
import subprocess
import sys

# an option's argument: a word ending just before ", -" (the next spelling of
# the option, as in "--at T, --times T"), or any word ("V1,V2,...")
ARG = r"(?: (?:[^ ,-][^ ,]*(?=, -)|[^ -]\S*))?"
ENTRY = re.compile(r"^( {1,4})(-[^ ,]+" + ARG + r"(?:, -[^ ,]+" + ARG + r")*"
                   r"|[a-z][a-z0-9_]*)"
                   r"(?: {2,}(\S.*))?$")


class Entry:
    def __init__(self, tag, desc, indent):
        self.tag, self.desc, self.indent = tag, desc, indent

    def names(self):
        """Option names and the argument's name ('' if none)."""
        if not self.tag.startswith("-"):
            return [], ""
        parts = [p.split() for p in re.split(r", (?=-)", self.tag)]
        return ([p[0] for p in parts], next((p[1] for p in parts if len(p) > 1), ""))


def parse(text):
    """The --help text as (usage, items); items are ('para', [lines]),
    ('heading', text), ('entry', Entry), ('literal', [lines]), ('blank',)."""
    lines = text.rstrip("\n").split("\n")
    usage = lines[0][len("Usage:"):].strip() if lines[0].startswith("Usage:") else lines[0]
    items, i, n = [], 1, len(lines)
    while i < n:
        line = lines[i].rstrip()
        if not line:
            items.append(("blank",))
            i += 1
        elif not line[0].isspace():
            para = []
            while i < n and lines[i].strip() and not lines[i][0].isspace():
                para.append(lines[i].rstrip())
                i += 1
            nxt = lines[i] if i < n else ""
            if len(para) == 1 and para[0].endswith(":") and ENTRY.match(nxt):
                items.append(("heading", para[0][:-1]))
            else:
                items.append(("para", para))
        elif ENTRY.match(line):
            m = ENTRY.match(line)
            indent = len(m.group(1))
            desc = [m.group(3)] if m.group(3) else []
            i += 1
            while i < n and lines[i].strip() and lines[i][0].isspace():
                lead = len(lines[i]) - len(lines[i].lstrip())
                if lead <= indent + 1 and ENTRY.match(lines[i]):
                    break
                if lead <= indent:
                    break
                desc.append(lines[i].strip())
                i += 1
            items.append(("entry", Entry(m.group(2), " ".join(desc), indent)))
        else:
            lit = []
            while i < n and lines[i].strip() and lines[i][0].isspace() \
                    and not ENTRY.match(lines[i]):
                lit.append(lines[i].rstrip())
                i += 1
            items.append(("literal", lit))
    return usage, items


def problems(items):
    """What makes an option entry ill-formed (a --help layout that merged or
    split entries): each entry names options not named elsewhere and has a
    description, which starts as a description does, not with the '[', '(',
    ',' or ';' of text continued from another entry (an option's second name
    on a line of its own took the rest of the first one's text)."""
    out, seen = [], {}
    for it in items:
        if it[0] != "entry" or not it[1].tag.startswith("-"):
            continue
        e = it[1]
        names, _ = e.names()
        for n in names:
            if n in seen:
                out.append("%s: in the entries '%s' and '%s'" % (n, seen[n], e.tag))
            seen[n] = e.tag
        if not e.desc:
            out.append("'%s': no description" % e.tag)
        elif e.desc[0] in "[(,;.)]":
            out.append("'%s': the description '%s...' continues another entry's"
                       % (e.tag, e.desc[:30]))
    return out


def summary(items):
    """The first sentence of the first paragraph (the man page's NAME line)."""
    for it in items:
        if it[0] == "para":
            s = " ".join(" ".join(it[1]).split())
            m = re.search(r"(: |\. |\.$)", s)
            s = s[:m.start()] if m else s
            return s if len(s) <= 150 else s[:147].rsplit(" ", 1)[0] + " ..."
    return "a command-line tool of lth"


def esc(s, code=False):
    s = s.replace("\\", "\\e")
    if code:
        s = s.replace("-", "\\-")
    if s.startswith((".", "'")):
        s = "\\&" + s
    return s


def man(name, version, usage, items, docdir, tools):
    out = ['.\\" SPDX-License-Identifier: GPL-3.0-or-later',
           '.\\" Generated from `%s --help` by scripts/helpdoc.py; do not edit.' % name,
           '.TH %s 1 "" "lth %s" "lth manual"' % (name.upper().replace("-", "\\-"), version),
           ".SH NAME", "%s \\- %s" % (esc(name, True), esc(summary(items))),
           ".SH SYNOPSIS", ".B %s" % esc(name, True),
           esc(usage[len(name):].strip(), True) if usage.startswith(name) else esc(usage, True),
           ".SH DESCRIPTION"]
    kinds = [it[0] for it in items]
    first = next((k for k, it in enumerate(items) if it[0] == "entry" or it[0] == "heading"),
                 len(items))
    last = max([k for k, kind in enumerate(kinds) if kind == "entry"] or [len(items)])
    section, newpara = "DESCRIPTION", True
    for k, it in enumerate(items):
        if k == first and first < len(items):
            out.append(".SH OPTIONS")
            section, newpara = "OPTIONS", True
        if it[0] == "blank":
            newpara = True
        elif it[0] == "heading":
            if it[1] != "Options":
                out.append(".SS %s" % esc(it[1]))
            newpara = False
        elif it[0] == "para":
            text = it[1]
            if text[0].startswith("Exit status:"):
                out.append('.SH "EXIT STATUS"')
                text = [text[0][len("Exit status:"):].strip()] + text[1:]
                section = "EXIT STATUS"
            elif k > last and section == "OPTIONS":
                out.append(".SH NOTES")
                section = "NOTES"
            elif newpara:
                out.append(".PP")
            out.extend(esc(l) for l in text if l)
            newpara = False
        elif it[0] == "entry":
            e = it[1]
            out.append(".TP")
            out.append(".B %s" % esc(e.tag, True) if e.tag.startswith("-")
                       else ".B %s" % esc(e.tag))
            out.append(esc(e.desc) if e.desc else "")
            newpara = True
        elif it[0] == "literal":
            base = min(len(l) - len(l.lstrip()) for l in it[1])
            out.append(".PP" if newpara else ".sp")
            out += [".RS 4", ".nf"] + [esc(l[base:], True) for l in it[1]] + [".fi", ".RE"]
            newpara = True
    others = [t for t in tools if t != name]
    out.append('.SH "SEE ALSO"')
    out.append(",\n".join(".BR %s (1)" % esc(t, True) for t in others))
    out.append(".PP")
    if docdir.startswith("/"):
        where = "%s/docs/" % docdir
    else:
        # relative to the prefix given at install time (cmake --install --prefix),
        # which the build cannot know: no absolute path that may be wrong
        where = "%s/docs/ under the prefix lth is installed to" % docdir.rstrip("/")
    out.append("The user guide, the data-file and output reference and the mathematics "
               "behind the tools: user-guide.md, format.md and theory.md in %s." % esc(where))
    return "\n".join(l for l in out if l is not None) + "\n"


def values(desc):
    """Values listed at the start of an option's description:
    'text (default: a report), csv (...) or json' -> [text, csv, json]."""
    d = desc
    while re.search(r"\([^()]*\)", d):
        d = re.sub(r"\([^()]*\)", "", d)
    d = re.split(r"[;.]", d)[0]
    parts = [p.strip() for p in re.split(r",|\bor\b", d)]
    if len(parts) >= 2 and all(re.fullmatch(r"[a-z][a-z0-9_]*", p) for p in parts):
        return parts
    return []


COMPLETION = r'''# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for %(name)s, generated from `%(name)s --help` by
# scripts/helpdoc.py (do not edit).  Installed to
# share/bash-completion/completions/%(name)s; or source this file.
_lth_complete() {
  local opts=$1 valued=$2 files=$3 table=$4
  local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= pre= vals= IFS=$'\n'
  [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
  # bash splits `--opt=value` into `--opt`, `=`, `value` (COMP_WORDBREAKS)
  if [ "$cur" = "=" ]; then
    opt=$prev cur=
  elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
    opt=${COMP_WORDS[COMP_CWORD-2]}
  else
    case $cur in
      --*=*) opt=${cur%%%%=*}; pre="$opt="; cur=${cur#*=} ;;
      *) case " $valued " in *" $prev "*) opt=$prev ;; esac ;;
    esac
  fi
  if [ -n "$opt" ]; then
    vals=$(printf '%%s\n' "$table" | sed -n "s/^$opt=//p")
    if [ -n "$vals" ]; then
      COMPREPLY=($(IFS=' '; compgen -P "$pre" -W "$vals" -- "$cur"))
    elif [[ " $files " == *" $opt "* ]]; then
      COMPREPLY=($(compgen -P "$pre" -f -- "$cur"))
    else
      COMPREPLY=()
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(IFS=' '; compgen -W "$opts" -- "$cur"))
    return 0
  fi
  COMPREPLY=($(compgen -f -X '!*.lth' -- "$cur") $(compgen -d -- "$cur"))
}
_%(fn)s() {
  _lth_complete '%(opts)s' \
    '%(valued)s' \
    '%(files)s' \
    '%(table)s'
}
complete -o filenames -F _%(fn)s %(name)s
'''


def completion(name, items):
    opts, valued, files, table = [], [], [], []
    for it in items:
        if it[0] != "entry":
            continue
        names, arg = it[1].names()
        opts += names
        if arg:
            valued += names
            vals = values(it[1].desc)
            if arg == "FILE":
                files += names
            for n in names:
                if vals:
                    table.append("%s=%s" % (n, " ".join(vals)))
    return COMPLETION % {"name": name, "fn": name.replace("-", "_"), "opts": " ".join(opts),
                         "valued": " ".join(valued), "files": " ".join(files),
                         "table": "\n".join(table)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="the tool to run with --help")
    ap.add_argument("--name", help="its name (default: the file name)")
    ap.add_argument("--version", default="")
    ap.add_argument("--docdir", default="share/doc/lth",
                    help="the documentation directory, relative to the install prefix "
                         "(or absolute)")
    ap.add_argument("--tools", default="lth-decompose,lth-ic,lth-solve,lth-bvp,lth-lqr,lth-ss,lth-plot")
    ap.add_argument("--man")
    ap.add_argument("--completion")
    ap.add_argument("--check", action="store_true",
                    help="only check that every option entry is well formed (exit 1 if not)")
    a = ap.parse_args()
    name = a.name or a.tool.rsplit("/", 1)[-1]
    p = subprocess.run([a.tool, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0 or not p.stdout:
        sys.exit("helpdoc: `%s --help` failed (status %d)" % (a.tool, p.returncode))
    usage, items = parse(p.stdout.decode("utf-8"))
    if not any(it[0] == "entry" for it in items):
        sys.exit("helpdoc: no options found in `%s --help`" % a.tool)
    if a.check:
        bad = problems(items)
        for b in bad:
            print("helpdoc: %s --help: %s" % (name, b), file=sys.stderr)
        sys.exit(1 if bad else 0)
    if a.man:
        with open(a.man, "w", encoding="utf-8") as f:
            f.write(man(name, a.version, usage, items, a.docdir, a.tools.split(",")))
    if a.completion:
        with open(a.completion, "w", encoding="utf-8") as f:
            f.write(completion(name, items))


if __name__ == "__main__":
    main()
