#!/usr/bin/env bash
# Regenerates docs/example-report.md: the dry-run bisect of the seed
# incident (11.8.6 vs 12.0.1) on a fresh, temporary store, rendered as
# Markdown. The same seed gives the same report on any machine.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
XDG_CACHE_HOME=$tmp go run ./cmd/perfbisect --good 11.8.6 --bad 12.0.1 --dry-run --quiet \
	--report docs/example-report.md >/dev/null
echo "wrote docs/example-report.md" >&2
