#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The bash completion generated from --help (scripts/helpdoc.py): every file
# sources cleanly in a plain bash (no bash-completion package needed) and
# completes option names, option values listed in --help, and data files.
source "$(dirname "$0")/testlib.sh"
BC=$(cd "$APPS/../share/bash-completion/completions" 2>/dev/null && pwd) || BC="$APPS/../share/bash-completion/completions"

# complete TOOL WORD...: the completions bash offers for the last WORD
complete_words() {
  local file="$BC/$1"
  shift
  bash --norc --noprofile -c '
    source "$1" || exit 9
    shift
    fn=$(complete -p "$1" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    "$fn"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$file" "$@"
}

for tool in "$APPS"/lth-*; do
  name=$(basename "$tool")
  [ -s "$BC/$name" ] || { fail "$name: no completion file"; continue; }
  bash --norc --noprofile -n "$BC/$name" 2>"$TMP/err" || fail "$name: syntax: $(cat "$TMP/err")"
  out=$(complete_words "$name" "$name" --he) || fail "$name: the completion does not source"
  [ "$out" = "--help" ] || fail "$name --he completes to '$out', expected --help"
  # every long option of --help is offered after `--`
  for opt in $("$tool" --help | grep -oE '^ {1,4}(-[a-z], )?--[-a-z0-9]+' | grep -oE -- '--[-a-z0-9]+'); do
    complete_words "$name" "$name" -- | grep -qx -- "$opt" || fail "$name: -- does not offer $opt"
  done
done

out=$(complete_words lth-solve lth-solve --me)
[ "$out" = "--method" ] || fail "lth-solve --me completes to '$out', expected --method"
out=$(complete_words lth-solve lth-solve --method "" | sort | tr '\n' ' ')
[ "$out" = "bsimp cheb msadams msbdf rk8pd rkf45 " ] || fail "lth-solve --method values: '$out'"
out=$(complete_words lth-decompose lth-decompose --format j)
[ "$out" = "json" ] || fail "lth-decompose --format j completes to '$out'"
out=$(complete_words lth-bvp lth-bvp --method = "" | sort | tr '\n' ' ')
[ "$out" = "collocation fd multiple shooting " ] || fail "lth-bvp --method= values: '$out'"
# data files: .lth files and directories, not other files
mkdir -p "$TMP/w/sub" && touch "$TMP/w/a.lth" "$TMP/w/b.csv"
out=$(cd "$TMP/w" && complete_words lth-ic lth-ic "" | sort | tr '\n' ' ')
[ "$out" = "a.lth sub " ] || fail "lth-ic file completion: '$out', expected 'a.lth sub '"
finish cli_completion
