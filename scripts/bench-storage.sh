#!/bin/bash
# Side-by-side data-path benchmark (issue 7), in one run on one disk:
# a plain directory, a cairn mount on the local-directory store, a cairn
# mount on MinIO (loopback), and one on MinIO with --writeback.
# Usage: sudo scripts/bench-storage.sh [WORKDIR] [cairn bench flags...]
# Needs: a built cairn (CAIRN=path, default ./cairn or cairn on PATH) and a
# minio binary (MINIO=path, default ~/.cache/cairn/bin/minio, which the
# tests build).
set -euo pipefail
W=${1:-/var/tmp/cairn-bench-storage}; shift || true
B=${CAIRN:-$(command -v ./cairn || command -v cairn)}
M=${MINIO:-$HOME/.cache/cairn/bin/minio}
PORT=${PORT:-19200}
rm -rf "$W"; mkdir -p "$W"/{direct,mnt-file,mnt-s3,mnt-s3wb,minio}
export CAIRN_ACCESS_KEY=bench-key CAIRN_SECRET_KEY=bench-secret-$RANDOM$RANDOM
MINIO_ROOT_USER=$CAIRN_ACCESS_KEY MINIO_ROOT_PASSWORD=$CAIRN_SECRET_KEY MINIO_BROWSER=off \
	"$M" server --quiet --address 127.0.0.1:$PORT --console-address 127.0.0.1:$((PORT+1)) "$W/minio" >"$W/minio.log" 2>&1 &
MPID=$!
cleanup() {
	for d in mnt-file mnt-s3 mnt-s3wb; do fusermount3 -u "$W/$d" 2>/dev/null || true; done
	kill $MPID 2>/dev/null || true
}
trap cleanup EXIT
until curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/ | grep -q 403; do sleep 0.1; done
"$B" format "sqlite3://$W/file.db" bench-file --bucket "$W/bucket" --trash-days 0 >/dev/null
"$B" format "sqlite3://$W/s3.db" bench-s3 --storage s3 --bucket http://127.0.0.1:$PORT/bench-s3 --trash-days 0 >/dev/null
"$B" format "sqlite3://$W/s3wb.db" bench-s3wb --storage s3 --bucket http://127.0.0.1:$PORT/bench-s3wb --trash-days 0 >/dev/null
"$B" mount "sqlite3://$W/file.db" "$W/mnt-file" -d --cache-dir "$W/cache-file"
"$B" mount "sqlite3://$W/s3.db" "$W/mnt-s3" -d --cache-dir "$W/cache-s3"
"$B" mount "sqlite3://$W/s3wb.db" "$W/mnt-s3wb" -d --cache-dir "$W/cache-s3wb" --writeback
echo "load: $(cat /proc/loadavg)"
for d in direct mnt-file mnt-s3 mnt-s3wb; do
	echo "== $d"
	"$B" bench "$W/$d" "$@"
done
echo "load: $(cat /proc/loadavg)"
