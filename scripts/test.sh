#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what it needs, then runs
# every package's tests against real servers and a real FUSE mount.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
go vet ./...
go test -count=1 -timeout 80m ./...
