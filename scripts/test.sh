#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what it needs, then vets and
# tests every package against real servers and a real FUSE mount, then runs
# the FUSE integration suite again with metadata on every other engine and
# with data in MinIO.
# Extra arguments go to the first 'go test' (e.g. scripts/test.sh -run TestRename).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
go vet ./...
go test -count=1 -timeout 50m "$@" ./...
[ $# -eq 0 ] || exit 0

# -short leaves out the 1 GiB file, which the SQLite run above covers.
for engine in badger redis postgres mysql etcd; do
  echo "== FUSE suite with metadata on $engine"
  CAIRN_TEST_ENGINE=$engine go test -count=1 -short -timeout 20m ./tests
done
# The cases that do not look inside a local bucket directory (see
# tests/storage_test.go).
s3_cases='TestRandomWrites|TestSparseFile|TestTruncate|TestOpenFlags|TestODirect|TestFallocate|TestCopyFileRange|TestMmap|TestManyFiles|TestLinkCounts|TestRename|TestNameLimits|TestSymlinks|TestSpecialFiles|TestErrnos|TestNoSpace|TestReadOnlyMount|TestFlock|TestFcntlLocks|TestPermissions|TestStickyBit|TestSetgidDirectory|TestRemount|TestFsyncSurvivesCrash|TestSecondMount|TestStatfs|TestTimestamps|TestXattrs'
echo "== FUSE suite with data in MinIO"
CAIRN_TEST_STORAGE=s3 go test -count=1 -short -timeout 20m -run "$s3_cases" ./tests
