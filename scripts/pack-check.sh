#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, install the tarball into an empty folder, then
# `npx conformance --list`, a remote run against the installed `conformance-reference`, an
# embedded run, SIGTERM through npx leaving no process behind, and the same install with
# `--omit=optional` (no anvil): remote runs still work, the embedded target exits 2 in one line.
# Installing the tarball runs no install script. Last, `npm ci --omit=optional` in a checkout runs
# no build (and tsx has no esbuild binary): the commands say so in one line, and run from dist/
# after `npm run build`.
# Every wait is bounded; everything it starts is stopped on exit. Prints figures as it goes.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pack-check.XXXXXX")"
REFERENCE_PID=""
cleanup() {
  if [ -n "$REFERENCE_PID" ] && kill -0 "$REFERENCE_PID" 2>/dev/null; then
    kill -TERM "$REFERENCE_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$REFERENCE_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$REFERENCE_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "pack-check: FAILED: $*" >&2; exit 1; }
ms() { date +%s%3N; }
step() { echo "pack-check: $*"; }

# A clean environment: no URL, proxy or npm lifecycle variable of the caller leaks into the runs.
run_env=(env -i "PATH=$PATH" "HOME=$HOME" "NO_COLOR=1")

# ---- pack ---------------------------------------------------------------------------------
t=$(ms)
(cd "$ROOT" && timeout 120 npm pack --silent --json --pack-destination "$WORK" >"$WORK/pack.json" 2>"$WORK/pack.err") || { cat "$WORK/pack.err" >&2; fail "npm pack"; }
TARBALL="$WORK/$(node -p 'require(process.argv[1])[0].filename' "$WORK/pack.json")"
step "packed $(basename "$TARBALL"): $(node -p 'const p=require(process.argv[1])[0]; `${(p.size/1024).toFixed(1)} kB, ${(p.unpackedSize/1024).toFixed(1)} kB unpacked, ${p.entryCount} files`' "$WORK/pack.json") in $(( $(ms) - t )) ms"
node -e '
  const files = require(process.argv[1])[0].files.map((f) => f.path);
  const stray = files.filter((f) => /^(src|suites|test|bench|scripts)\/|^bin\/(build|run-ts)\.js$|\.ts$|^tsconfig|^jest/.test(f));
  if (stray.length) { console.error("not for the package: " + stray.join(", ")); process.exit(1); }
  for (const need of ["bin/conformance.js", "bin/reference.js", "dist/src/cli/run.js", "schemas/results.json", "README.md", ".env.example"])
    if (!files.includes(need)) { console.error("missing from the package: " + need); process.exit(1); }
' "$WORK/pack.json" || fail "tarball contents"

# ---- install into an empty folder ---------------------------------------------------------
APP="$WORK/app"
mkdir -p "$APP"
echo '{ "name": "pack-check-app", "version": "1.0.0", "private": true }' >"$APP/package.json"
t=$(ms)
(cd "$APP" && timeout 180 npm install --no-audit --no-fund --prefer-offline --loglevel=warn "$TARBALL" >"$WORK/install.log" 2>&1) || { cat "$WORK/install.log" >&2; fail "npm install of the tarball"; }
step "installed into an empty folder in $(( $(ms) - t )) ms"
# The package builds before packing (prepack), so installing it runs no script of its own: npm
# would list one under allowScripts (and run it from a tarball or git source).
if grep -qi 'install script' "$WORK/install.log"; then cat "$WORK/install.log" >&2; fail "installing the tarball reports an install script"; fi
node -e 'const s = require(process.argv[1]).scripts || {}; const found = ["preinstall", "install", "postinstall", "prepare"].filter((k) => s[k]); if (found.length) { console.error(found.join(", ")); process.exit(1); }' "$APP/node_modules/tokenized-stocks-conformance/package.json" || fail "the packed package.json has an install script"
[ -x "$APP/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil" ] || fail "the optional anvil was not installed on Linux x64"
cd "$APP"
conformance() { "${run_env[@]}" timeout "${LIMIT:-60}" "$APP/node_modules/.bin/conformance" "$@"; }

# ---- the commands -------------------------------------------------------------------------
version="$(conformance --version)"
[ "$version" = "$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")" ] || fail "--version said $version"
t=$(ms)
checks="$(conformance --list | wc -l)"
step "conformance --list: $checks checks in $(( $(ms) - t )) ms (from dist/, no compile)"
[ "$checks" -gt 50 ] || fail "--list printed $checks lines"
conformance -h >/dev/null || fail "-h did not exit 0"
"${run_env[@]}" timeout 60 npx --no-install conformance --list --grep '^rest\.' >/dev/null || fail "npx conformance --list"
# The bin named like the package is what `npx tokenized-stocks-conformance` runs from the registry.
[ "$("${run_env[@]}" timeout 60 npx --no-install tokenized-stocks-conformance --version)" = "$version" ] || fail "npx tokenized-stocks-conformance --version"

# ---- a remote run, against the installed conformance-reference -------------------------
"${run_env[@]}" "$APP/node_modules/.bin/conformance-reference" --json --block-time 1000 >"$WORK/ref.out" 2>"$WORK/ref.err" &
REFERENCE_PID=$!
for _ in $(seq 1 150); do [ -s "$WORK/ref.out" ] && break; kill -0 "$REFERENCE_PID" 2>/dev/null || break; sleep 0.1; done
[ -s "$WORK/ref.out" ] || { cat "$WORK/ref.err" >&2; fail "conformance-reference printed no JSON line within 15 s"; }
read -r BASE RPC KEY < <(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]); console.log(r.baseUrl, r.rpcUrl, r.signerKey)' "$WORK/ref.out")
t=$(ms)
LIMIT=120 conformance --base-url "$BASE" --rpc-url "$RPC" --signer-key "$KEY" --report-dir "$WORK/remote" >"$WORK/remote.out" 2>&1 || { tail -20 "$WORK/remote.out" >&2; fail "remote run exited $?"; }
head -1 "$WORK/remote.out" | grep -q "^target: REST $BASE, JSON-RPC $RPC" || fail "remote run's first line: $(head -1 "$WORK/remote.out")"
node -e 'const d = require(process.argv[1]); if (d.target.embedded !== false || d.counts.failed !== 0) process.exit(1)' "$WORK/remote/results.json" || fail "remote results.json"
step "remote run: $(tail -3 "$WORK/remote.out" | head -1) ($(( $(ms) - t )) ms)"

# ---- an embedded run ----------------------------------------------------------------------
t=$(ms)
LIMIT=180 conformance --report-dir "$WORK/embedded" --block-time 1000 >"$WORK/embedded.out" 2>&1 || { tail -20 "$WORK/embedded.out" >&2; fail "embedded run exited $?"; }
head -1 "$WORK/embedded.out" | grep -q '^target: the embedded reference target' || fail "embedded run's first line: $(head -1 "$WORK/embedded.out")"
node -e 'const d = require(process.argv[1]); if (d.target.embedded !== true || d.counts.failed !== 0) process.exit(1)' "$WORK/embedded/results.json" || fail "embedded results.json"
step "embedded run: $(tail -3 "$WORK/embedded.out" | head -1) ($(( $(ms) - t )) ms)"

# ---- SIGTERM to npx: nothing of the run may remain ---------------------------------------
descendants() { local p; for p in $(ps -o pid= --ppid "$1"); do echo "$p"; descendants "$p"; done; }
setsid "${run_env[@]}" npx --no-install conformance --report-dir "$WORK/interrupted" --concurrency 1 >"$WORK/npx.out" 2>&1 &
NPX_PID=$!
for _ in $(seq 1 300); do grep -q '^\[ *2/' "$WORK/npx.out" && break; sleep 0.1; done
grep -q '^\[ *2/' "$WORK/npx.out" || fail "npx conformance did not start checks within 30 s"
tree="$(descendants "$NPX_PID" | tr '\n' ' ')"
kill -TERM "$NPX_PID"
left="$tree"
for _ in $(seq 1 150); do
  left=""
  for p in $tree; do [ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" ] && [ "$(ps -o stat= -p "$p" | cut -c1)" != Z ] && left="$left $p"; done
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then for p in $tree; do kill -KILL "$p" 2>/dev/null || true; done; fail "SIGTERM to npx left$left running"; fi
wait "$NPX_PID" 2>/dev/null || true
node -e 'if (!/interrupted by SIGTERM/.test(require(process.argv[1]).interrupted)) process.exit(1)' "$WORK/interrupted/results.json" || fail "the interrupted run's reports"
step "SIGTERM to npx conformance: run stopped, reports written, no process left (of: $tree)"

# ---- without the optional anvil (another platform, or --omit=optional) --------------------
(timeout 120 npm install --no-audit --no-fund --prefer-offline --omit=optional --loglevel=error >"$WORK/omit.log" 2>&1) || { cat "$WORK/omit.log" >&2; fail "npm install --omit=optional"; }
[ ! -e "$APP/node_modules/@foundry-rs/anvil-linux-amd64" ] || fail "--omit=optional kept the anvil package"
status=0
conformance --report-dir "$WORK/none" >"$WORK/none.out" 2>&1 || status=$?
[ "$status" = 2 ] || fail "embedded run without anvil exited $status, not 2"
[ "$(wc -l <"$WORK/none.out")" = 1 ] && grep -q 'npm install @foundry-rs/anvil-linux-amd64@' "$WORK/none.out" || fail "embedded run without anvil said: $(cat "$WORK/none.out")"
status=0
"${run_env[@]}" timeout 30 "$APP/node_modules/.bin/conformance-reference" >"$WORK/none-ref.out" 2>&1 || status=$?
[ "$status" = 2 ] || fail "conformance-reference without anvil exited $status, not 2"
LIMIT=60 conformance --base-url "$BASE" --rpc-url "$RPC" --only rest,rpc,cross --report-dir "$WORK/remote-no-anvil" >"$WORK/remote2.out" 2>&1 || { tail -20 "$WORK/remote2.out" >&2; fail "remote run without anvil"; }
step "without anvil: remote run exits 0; the embedded target exits 2 with: $(cat "$WORK/none.out")"

# ---- a checkout with --omit=optional: npm ci builds nothing; npm run build does ---------------
REPO="$WORK/repo"
mkdir -p "$REPO"
(cd "$ROOT" && git ls-files -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$REPO"
t=$(ms)
(cd "$REPO" && timeout 180 npm ci --omit=optional --no-audit --no-fund --prefer-offline --loglevel=error >"$WORK/repo-ci.log" 2>&1) || { tail -30 "$WORK/repo-ci.log" >&2; fail "npm ci --omit=optional in the repository"; }
[ ! -e "$REPO/dist" ] || fail "npm ci in a checkout ran a build (an install script)"
# Without optional dependencies esbuild has no binary, so tsx cannot run the source: one line.
status=0
"${run_env[@]}" timeout 60 node "$REPO/bin/conformance.js" --list >"$WORK/nodist.out" 2>&1 || status=$?
[ "$status" = 2 ] && [ "$(wc -l <"$WORK/nodist.out")" = 1 ] && grep -q 'run `npm run build`' "$WORK/nodist.out" || fail "bin/conformance.js in a checkout without dist/ or esbuild exited $status with: $(head -c 2000 "$WORK/nodist.out")"
(cd "$REPO" && timeout 120 npm run -s build >"$WORK/repo-build.log" 2>&1) || { cat "$WORK/repo-build.log" >&2; fail "npm run build in the checkout"; }
[ "$("${run_env[@]}" timeout 60 node "$REPO/bin/conformance.js" --list | wc -l)" = "$checks" ] || fail "the checkout's dist/ after npm run build"
step "checkout: npm ci --omit=optional builds nothing (the commands say to build, in one line); npm run build; in $(( $(ms) - t )) ms"
step "all good"
