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

expect_error '{' 'not valid JSON at line 1, column 2'
expect_error '' 'config: empty'
expect_error '{"a": NaN}' 'not valid JSON at line 1, column 7'
expect_error '{"temperature": 1e400}' 'number overflow'
expect_error '{"heads": 1, "heads": 2}' 'duplicate key "heads"'
expect_error '{"text": "a b", "mask": {"custom": [[1]]}}' 'mask[0].custom'
expect_error '{"text": "a b", "mask": {"window": 0}}' 'mask[0].window'
expect_error '{"d_model": 4096, "heads": 16, "d_k": 1024, "d_v": 1024}' 'd_model: this config needs about'
expect_error "{\"mask\": [$(python3 -c "print(','.join(['\"causal\"'] * 17))")]}" 'mask: 17 terms, at most 16'
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

# expect_fail CODE TEXT ARGS...: exit CODE, nothing on stdout, exactly one stderr line containing TEXT
expect_fail() {
  local code=$1 text=$2
  shift 2
  "${cli[@]}" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
  local rc=$?
  if [ $rc -ne "$code" ]; then bad "$*: exit $rc, expected $code ($(cat "$tmp/err"))"; return; fi
  if [ "$(wc -l < "$tmp/err")" -ne 1 ]; then bad "$*: stderr is not one line: $(cat "$tmp/err")"; return; fi
  grep -qF -- "$text" "$tmp/err" || { bad "$*: stderr '$(cat "$tmp/err")' lacks '$text'"; return; }
  [ -s "$tmp/out" ] && { bad "$*: printed output despite the error"; return; }
  ok
}
echo '{"text": "a b c", "d_model": 8, "heads": 2}' > "$tmp/s.json"
expect_fail 2 'missing command'
expect_fail 2 "unknown command 'frobnicate'" frobnicate
expect_fail 1 'No such file or directory' run "$tmp/does-not-exist.json"
expect_fail 1 'Is a directory' run "$tmp"
expect_fail 2 'config: empty' run /dev/null
expect_fail 2 '--format: expected json or csv' run - --format xml
expect_fail 2 '--indent: expected an integer from -1 to 16' run "$tmp/s.json" --indent 1025
expect_fail 2 '--indent: expected an integer from -1 to 16' run "$tmp/s.json" --indent 100000
expect_fail 2 "unknown or incomplete option '--bogus'" run "$tmp/s.json" --bogus 1
expect_fail 1 'No such file or directory' run "$tmp/s.json" --out "$tmp/no/such/dir/out.json"
if [ -w /dev/full ]; then
  "${cli[@]}" run "$tmp/s.json" > /dev/full 2> "$tmp/err"; rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "No space left on device" "$tmp/err" && ok ||
    bad "a full disk should exit 1 with one line: rc=$rc $(cat "$tmp/err")"
fi
# --out FILE writes the JSON there (and nothing on stdout)
"${cli[@]}" run "$tmp/s.json" --out "$tmp/r.json" > "$tmp/out" && [ ! -s "$tmp/out" ] &&
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['tokens']==['a','b','c'] and len(j['allowed'])==3 and all(h['allowed']==j['allowed'] for h in j['heads'])" "$tmp/r.json" &&
  ok || bad "--out FILE for JSON"
# 100,000 words with truncate: one line naming the field, before any work (was: bad_alloc or minutes)
python3 -c "print('{\"text\": \"' + 'w ' * 100000 + '\", \"truncate\": true}')" > "$tmp/trunc.json"
expect_fail 2 'heads: this config needs about' run "$tmp/trunc.json"

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
