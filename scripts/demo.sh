#!/usr/bin/env bash
# Builds cairn and mounts a demo volume on the embedded default: metadata
# in a SQLite file, blocks in a local directory. Run it again to remount.
#
#   scripts/demo.sh                      # mounts at /tmp/cairn-demo/mnt
#   CAIRN_DEMO=/some/dir scripts/demo.sh # keeps everything under /some/dir
#
# Unmount with: bin/cairn umount /tmp/cairn-demo/mnt
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
root="${CAIRN_DEMO:-/tmp/cairn-demo}"
meta="sqlite3://$root/meta.db"
mnt="$root/mnt"

go build -o bin/cairn ./cmd/cairn
mkdir -p "$root" "$mnt"
if ! bin/cairn status "$meta" >/dev/null 2>&1; then
  bin/cairn format "$meta" demo --bucket "$root/blocks"
fi
if mountpoint -q "$mnt"; then
  echo "demo: $mnt is already mounted"
else
  bin/cairn mount "$meta" "$mnt" -d --cache-dir "$root/cache"
fi
echo "demo: volume 'demo' is mounted at $mnt"
echo "demo: try: echo hello > $mnt/hello && cat $mnt/hello && df -h $mnt"
echo "demo: status: bin/cairn status $meta"
echo "demo: unmount: bin/cairn umount $mnt"
