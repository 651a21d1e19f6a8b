#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what it needs, then vets and
# tests every package against real servers and a real FUSE mount.
# Extra arguments go to 'go test' (e.g. scripts/test.sh -run TestRename).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
go vet ./...
go test -count=1 -timeout 50m "$@" ./...
