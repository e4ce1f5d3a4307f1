#!/usr/bin/env bash
# `make conformance`: runs the official MCP conformance suite
# (@modelcontextprotocol/conformance, server mode) against a live
# `dir2mcp serve` on a copy of testdata/corpus, twice:
#   1. --auth none on loopback;
#   2. bearer auth on, through auth-proxy.mjs (the suite cannot send headers).
# Scenarios in expected-failures.yml need the suite's own fixtures. Prints the
# suite's summary and tally line for each run; exits non-zero when a run has
# an unexpected failure or a stale expected failure.
# usage: scripts/conformance/run.sh [BIN_DIR]   (default: bin, from `make build`)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "${1:-$ROOT/bin}" && pwd)
# shellcheck source=node.sh
. "$HERE/node.sh"
ensure_node

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dir2mcp-conformance.XXXXXX")
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

cp -r "$ROOT/testdata/corpus" "$WORK/corpus"
"$BIN/dir2mcp" index --dir "$WORK/corpus" --non-interactive --quiet >/dev/null

# start_serve NAME [serve flags...]: starts dir2mcp serve, sets URL.
start_serve() {
  local name=$1; shift
  local log=$WORK/serve-$name.ndjson
  "$BIN/dir2mcp" serve --dir "$WORK/corpus" --json --non-interactive --listen 127.0.0.1:0 "$@" >"$log" 2>"$WORK/serve-$name.err" &
  PIDS+=($!)
  URL=
  for _ in $(seq 100); do
    URL=$("$NODE22" -e '
      const fs = require("fs");
      for (const l of fs.readFileSync(process.argv[1], "utf8").split("\n")) {
        try { const e = JSON.parse(l); if (e.event === "connection") { console.log(e.data.url); break; } } catch {}
      }' "$log")
    [ -n "$URL" ] && return 0
    sleep 0.1
  done
  echo "dir2mcp serve ($name) did not start:" >&2
  cat "$WORK/serve-$name.err" >&2
  return 1
}

FAILED=0
# run_suite LABEL URL
run_suite() {
  local label=$1 url=$2 out=$WORK/suite-$1.log rc=0
  "$NODE22" "$CONFORMANCE" server --url "$url" --expected-failures "$HERE/expected-failures.yml" >"$out" 2>&1 || rc=$?
  echo "== MCP conformance ($label): $url"
  sed -n '/=== SUMMARY ===/,$p' "$out" | grep -v '^=== SUMMARY' | grep -v '^$' || cat "$out"
  if [ "$rc" -ne 0 ]; then
    echo "conformance ($label) exited $rc" >&2
    FAILED=1
  fi
}

start_serve noauth --auth none
run_suite "auth none" "$URL"

TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
export DIR2MCP_AUTH_TOKEN=$TOKEN
start_serve auth
UPSTREAM=${URL%/mcp}
MCP_TOKEN=$TOKEN "$NODE22" "$HERE/auth-proxy.mjs" 0 "$UPSTREAM" >"$WORK/proxy.out" 2>"$WORK/proxy.err" &
PIDS+=($!)
PORT=
for _ in $(seq 100); do
  PORT=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$WORK/proxy.out")
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || { echo "auth proxy did not start" >&2; cat "$WORK/proxy.err" >&2; exit 1; }
# Without the proxy the authenticated server must refuse the suite.
code=$("$NODE22" -e 'fetch(process.argv[1], {method: "POST", body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
  headers: {"Content-Type": "application/json", Accept: "application/json, text/event-stream"}}).then(r => console.log(r.status))' "$URL")
if [ "$code" != 401 ]; then
  echo "auth run: server without the proxy answered HTTP $code, want 401" >&2
  FAILED=1
fi
run_suite "bearer auth via proxy" "http://127.0.0.1:$PORT/mcp"
exit $FAILED
