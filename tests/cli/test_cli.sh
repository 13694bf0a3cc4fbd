#!/usr/bin/env bash
# attnlab-cli's promises: exit codes, one-line errors naming the field, CSV output, stdin and files.
# Usage: test_cli.sh CLI [RUNNER...]
set -u
cli=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# expect_error JSON FIELD: exit 2, exactly one stderr line, mentioning FIELD
expect_error() {
  printf '%s' "$1" > "$tmp/in.json"
  "${cli[@]}" run - < "$tmp/in.json" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ]; then bad "config $1: exit $rc, expected 2"; return; fi
  if [ "$(wc -l < "$tmp/err")" -ne 1 ]; then bad "config $1: stderr is not one line: $(cat "$tmp/err")"; return; fi
  grep -qF -- "$2" "$tmp/err" || { bad "config $1: stderr '$(cat "$tmp/err")' does not name $2"; return; }
  [ -s "$tmp/out" ] && { bad "config $1: printed output despite the error"; return; }
  ok
}

expect_error '{' 'not valid JSON'
expect_error '' 'not valid JSON'
expect_error '{"d_model": 0}' 'd_model'
expect_error '{"heads": 1000}' 'heads'
expect_error '{"text": ""}' 'text: no tokens'
expect_error '{"text": "a b", "mask": [{"padding": [5]}]}' 'mask[0].padding'
expect_error '{"text": "a b", "mask": [{"custom": [[1]]}]}' 'mask[0].custom'
expect_error '{"temperature": -1}' 'temperature'
expect_error '{"scale": "big"}' 'scale'
expect_error '{"d_model": 4, "heads": 1, "x": [[1,2,3,"a"]]}' 'x[0][3]'
expect_error '{"colour": "red"}' 'colour: unknown key'
expect_error '{"d_model": 4096, "heads": 64, "d_k": 1024}' 'd_k'
printf '{"text": "\xff\xfe"}' > "$tmp/bad_utf8.json"
"${cli[@]}" run "$tmp/bad_utf8.json" > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] && ok || bad "invalid UTF-8 JSON should exit 2"
python3 -c "print('{\"text\": \"' + 'w ' * 5000 + '\"}')" > "$tmp/huge.json"
"${cli[@]}" run "$tmp/huge.json" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && grep -q "at most 4096" "$tmp/err" && ok || bad "5000 tokens should be refused: $(cat "$tmp/err")"

# Usage errors
"${cli[@]}" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "no arguments should exit 2"
"${cli[@]}" run "$tmp/does-not-exist.json" > /dev/null 2>&1; [ $? -eq 1 ] && ok || bad "missing file should exit 1"
"${cli[@]}" run - --format xml < /dev/null > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--format xml should exit 2"

# A good run: from a file and from stdin give the same bytes; CSV matches JSON.
echo '{"text": "the cat sat on the mat", "d_model": 8, "heads": 2, "mask": "causal"}' > "$tmp/good.json"
"${cli[@]}" run "$tmp/good.json" > "$tmp/a.json" || bad "good config failed"
"${cli[@]}" run - < "$tmp/good.json" > "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || bad "file and stdin differ"
"${cli[@]}" run "$tmp/good.json" --format csv --out "$tmp/csv" || bad "csv run failed"
python3 - "$tmp" <<'PY' && ok || bad "CSV does not match JSON"
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/a.json"))
rows = lambda f: [[float(x) for x in r] for r in csv.reader(open(d + "/csv/" + f))]
assert rows("head1_weights.csv") == j["heads"][1]["weights"], "weights"
assert rows("output.csv") == j["output"], "output"
assert len(rows("x.csv")) == 6
PY
# explain prints the arithmetic of one cell
"${cli[@]}" explain "$tmp/good.json" --head 1 --row 3 --col 1 > "$tmp/explain.txt" && grep -q "weight = exp" "$tmp/explain.txt" && ok || bad "explain"
"${cli[@]}" explain "$tmp/good.json" --head 9 --row 0 --col 0 > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "explain out of range should exit 2"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
