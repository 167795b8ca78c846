# SPDX-License-Identifier: GPL-3.0-or-later
# The tools in the user's terms (docs/equations.md): for a `problem
# equations` file the text and CSV tables are labelled and ordered by the
# unknowns of `variables`, the JSON keeps z in the canonical order and adds
# "variables" and "variable_index"; --z0 and --guess take the user's order,
# --fix takes names; lth-ic prints z0 in the order the file wants (text and
# CSV), and its JSON and lth-decompose's carry the same names and map as
# lth-solve's; lth-decompose shows the structure found; --param overrides a
# param and "-" reads stdin.
# Usage: bash cli_user_order.sh BUILD/apps   (env LTH_DATA_DIR = data/)
. "$(dirname "$0")/testlib.sh"
SOLVE="$APPS/lth-solve"
IC="$APPS/lth-ic"
DEC="$APPS/lth-decompose"
BVP="$APPS/lth-bvp"
F="$DATA/pendulum_equations.lth"

# ---- CSV and text: the user's names and order; exact solution at t = 1
run 0 "solve csv" "$SOLVE" "$F" --times 0,1 --format csv && {
  [ "$(head -n 1 "$TMP/out")" = 't,"x1","x2","v1","v2","lambda"' ] ||
    fail "CSV header is not the user's order: $(head -n 1 "$TMP/out")"
  awk -F, 'NR == 3 { e1 = $2 - (cos(1) - 9.81 * sin(2)); e3 = $4 - (-sin(1) - 19.62 * cos(2));
    e5 = $6 - (1 + 98.1 * sin(1)); if (e1 < 0) e1 = -e1; if (e3 < 0) e3 = -e3; if (e5 < 0) e5 = -e5;
    exit !(e1 < 1e-9 && e3 < 1e-9 && e5 < 1e-8) }' "$TMP/out" ||
    fail "CSV row t = 1 is not x1, x2, v1, v2, lambda of the exact solution: $(sed -n 3p "$TMP/out")"
}
run 0 "solve text" "$SOLVE" "$F" --times 0,1 && {
  grep -Eq '^ +t +x1 +x2 +v1 +v2 +lambda$' "$TMP/out" || fail "text header is not the user's order"
}
# ---- JSON: canonical z plus the map
run 0 "solve json" "$SOLVE" "$F" --times 1 --format json && {
  cp "$TMP/out" "$TMP/s.json"
  [ "$("$JT" get "$TMP/s.json" 'components[0]')" = v1 ] || fail "components[0] is not v1 (canonical)"
  [ "$("$JT" get "$TMP/s.json" 'variables[0]')" = x1 ] || fail "variables[0] is not x1"
  near "$TMP/s.json" 'variable_index[0]' 3 0 "variable_index of v1"
  near "$TMP/s.json" 'z[0][2]' "$(awk 'BEGIN { printf "%.17g", cos(1) - 9.81 * sin(2) }')" 1e-9 "canonical z[2] = x1"
}
# ---- --z0 in the user's order gives the file's run
run 0 "--z0 user order" "$SOLVE" "$F" --times 1 --format json --z0 1,19.62,-19.62,1,1 && {
  "$JT" diff "$TMP/s.json" "$TMP/out" --rtol 1e-12 --atol 1e-12 --ignore stats --ignore z0_given ||
    fail "--z0 in the order of variables differs from the file's z0"
}
# ---- lth-ic: --fix by name, z0 printed in the order of variables
run 0 "ic --fix by name" "$IC" "$F" --fix x2=19.62,v2=1 && {
  grep -q 'for the data file (in the order of `variables`)' "$TMP/out" || fail "ic: no user-order z0 line"
  grep -q '^  z0 = \[1; 19.62; -19.62; 1; 1' "$TMP/out" || fail "ic: z0 line not in the user's order: $(grep 'z0 = ' "$TMP/out")"
}
run 0 "ic --fix by name, json" "$IC" "$F" --fix v2=1 --format json && {
  near "$TMP/out" 'fixed[0].index' 2 0 "--fix v2: canonical index 2"
}
run 1 "ic --fix unknown name" "$IC" "$F" --fix y=1 && err_has "neither a component's name" "--fix y"
run 0 "ic --guess user order" "$IC" "$F" --guess 1,19.62,-19.62,1,1 --format json && {
  near "$TMP/out" 'z0[0]' -19.62 1e-12 "--guess in user order: z0[0] = v1"
}
# ---- lth-ic's CSV and the JSON of lth-ic and lth-decompose name z as lth-solve does
run 0 "ic csv" "$IC" "$F" --format csv && {
  [ "$(head -n 1 "$TMP/out")" = 't,"x1","x2","v1","v2","lambda",residual' ] ||
    fail "ic CSV header is not the user's order: $(head -n 1 "$TMP/out")"
  awk -F, 'NR == 2 { exit !($2 == 1 && $3 == 19.62 && $4 == -19.62 && $5 == 1) }' "$TMP/out" ||
    fail "ic CSV row is not x1, x2, v1, v2 of the file's z0: $(sed -n 2p "$TMP/out")"
}
for tool in "$IC" "$DEC"; do
  run 0 "$(basename "$tool") json names" "$tool" "$F" --at 1 --format json -q && {
    for key in components variables variable_index; do
      for k in 0 1 2 3 4; do
        [ "$("$JT" get "$TMP/out" "${key}[$k]")" = "$("$JT" get "$TMP/s.json" "${key}[$k]")" ] ||
          fail "$(basename "$tool") JSON ${key}[$k] differs from lth-solve's"
      done
    done
  }
done
run 0 "block-form ic json names" "$IC" "$DATA/slope.lth" --format json && {
  [ "$("$JT" get "$TMP/out" 'components[4]')" = 'u[1]' ] || fail "ic JSON components of a block file"
  grep -q '"variable_index"' "$TMP/out" && fail "a block-form file got variable_index"
}
# ---- lth-decompose: the structure
run 0 "decompose structure" "$DEC" "$F" --at 0 -q && {
  grep -q '^structure      z_1 = {v1, v2} (differential)' "$TMP/out" || fail "no structure line"
  grep -q '^free values    x2, v2 at t0' "$TMP/out" || fail "no free values line"
}
# ---- --param and stdin
run 0 "--param k=3 (the file's value)" "$SOLVE" "$F" --times 1 --format json --param k=3 && {
  "$JT" diff "$TMP/s.json" "$TMP/out" --rtol 0 --atol 0 --ignore stats || fail "--param k=3 changed the run"
}
run 3 "--param m=4 makes z0 inconsistent" "$SOLVE" "$F" --param m=4 && err_has "not consistent" "--param m=4"
run 1 "--param unknown" "$SOLVE" "$F" --param zz=1 && err_has "no param 'zz'" "--param zz"
run 0 "stdin" bash -c "cat '$F' | '$SOLVE' - --times 1 --format json" && {
  "$JT" diff "$TMP/s.json" "$TMP/out" --rtol 0 --atol 0 --ignore stats || fail "stdin run differs"
}
# the text report and the messages name standard input "<stdin>", as docs/equations.md says
for t in lth-decompose lth-ic lth-solve lth-bvp; do
  f=$DATA/index2.lth
  [ $t = lth-solve ] && f=$DATA/pendulum.lth # with z0
  run 0 "$t - (text)" bash -c "cat '$f' | '$APPS/$t' - -q" &&
    { grep -q '^file           <stdin>$' "$TMP/out" || fail "$t -: the report does not say 'file <stdin>'"; }
done
run 0 "lth-lqr - (text)" bash -c "cat '$DATA/lqr_double_integrator.lth' | '$APPS/lth-lqr' - -q" &&
  { grep -q '^file           <stdin>$' "$TMP/out" || fail "lth-lqr -: the report does not say 'file <stdin>'"; }
run 1 "stdin without z0" bash -c "grep -v '^z0' '$DATA/slope.lth' | '$SOLVE' -" &&
  err_has "lth-solve: <stdin> has no \`z0\` statement and no --z0 was given: compute a consistent initial value with \`lth-ic -\`" "stdin without z0"
# ---- block-form files keep z's names and order
run 0 "block form csv" "$SOLVE" "$DATA/pendulum.lth" --times 0 --format csv && {
  head -n 1 "$TMP/out" | grep -q '^t,"z\[1\]"' || fail "block-form CSV header changed"
}
finish cli_user_order
