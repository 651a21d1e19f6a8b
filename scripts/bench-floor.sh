#!/bin/bash
# The floor benchmark of issue 19 on several engines, in one run on one
# disk: for each engine, a throw-away server on loopback (durable: Redis
# with AOF appendfsync always, PostgreSQL with fsync and synchronous_commit
# on, MariaDB with innodb_flush_log_at_trx_commit=1, etcd as one member
# that syncs its log; Badger and SQLite in files), a volume formatted and
# mounted, 'cairn bench MNT --floor' (its probes run in the mount, through
# the control channel) and the teardown.
# Usage: scripts/bench-floor.sh [WORKDIR] [cairn bench flags...]
# ENGINES="sqlite3 redis postgres" (default; mysql, etcd, badger too) picks the engines; a built
# cairn is CAIRN=path (default ./cairn or cairn on PATH); PIN="taskset -c 0"
# runs the mount and the benchmark's tasks on the CPUs it names (the
# servers stay where the system puts them), to see what placement costs.
set -euo pipefail
PIN=${PIN:-}
W=${1:-/var/tmp/cairn-bench-floor}; shift || true
B=$(realpath "${CAIRN:-$(command -v ./cairn || command -v cairn)}")
PORT=${PORT:-19300}
rm -rf "$W"; mkdir -p "$W"; chmod 755 "$W"
P=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
cleanup() {
	for m in "$W"/*/mnt; do fusermount3 -u "$m" 2>/dev/null || true; done
	redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true
	[ -d "$W/postgres/data" ] && as "$P/pg_ctl" -D "$W/postgres/data" -m immediate stop >/dev/null 2>&1 || true
	[ -n "${ETCD_PID:-}" ] && kill "$ETCD_PID" 2>/dev/null || true
	[ -S "$W/mysql/sock" ] && mariadb-admin --no-defaults -S "$W/mysql/sock" -u root shutdown 2>/dev/null || true
}
trap cleanup EXIT
# as runs PostgreSQL's programs as an unprivileged user when we are root.
as() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
for p in $PORT $((PORT+1)) $((PORT+2)) $((PORT+3)) $((PORT+4)); do
	if (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "port $p is taken: set PORT" >&2; exit 1; fi
done

bench() { # bench ENGINE META-URL [cairn bench flags...]
	local e=$1 url=$2 d=$W/$1
	shift 2
	mkdir -p "$d/mnt"
	"$B" format "$url" "floor-$e" --bucket "$d/blocks" --trash-days 0 >/dev/null # unlink as the floor counts it, not a move into the trash
	$PIN "$B" mount "$url" "$d/mnt" -d --cache-dir "$d/cache" --log "$d/mount.log"
	echo "== $e (load $(cut -d' ' -f1-3 /proc/loadavg))"
	$PIN "$B" bench "$d/mnt" --floor "$@"
	"$B" umount "$d/mnt"
}

for e in ${ENGINES:-sqlite3 redis postgres}; do
	case $e in
	sqlite3) bench sqlite3 "sqlite3://$W/sqlite3/meta.db" "$@" ;;
	redis)
		mkdir -p "$W/redis"
		redis-server --port $PORT --bind 127.0.0.1 --dir "$W/redis" --appendonly yes \
			--appendfsync always --save "" --logfile "$W/redis/redis.log" &
		until redis-cli -p $PORT ping 2>/dev/null | grep -q PONG; do sleep 0.1; done
		bench redis "redis://127.0.0.1:$PORT/1" "$@" ;;
	postgres)
		mkdir -p "$W/postgres/data"; chown nobody "$W/postgres/data" 2>/dev/null || true
		as "$P/initdb" -D "$W/postgres/data" -U cairn --auth=trust >/dev/null
		as "$P/postgres" -D "$W/postgres/data" -p $((PORT+1)) -k "$W/postgres/data" \
			-c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on >"$W/postgres/log" 2>&1 &
		until "$P/pg_isready" -q -h 127.0.0.1 -p $((PORT+1)); do sleep 0.1; done
		bench postgres "postgres://cairn@127.0.0.1:$((PORT+1))/postgres?sslmode=disable" "$@" ;;
	etcd)
		mkdir -p "$W/etcd"
		etcd --name floor --data-dir "$W/etcd/data" \
			--listen-client-urls "http://127.0.0.1:$((PORT+2))" --advertise-client-urls "http://127.0.0.1:$((PORT+2))" \
			--listen-peer-urls "http://127.0.0.1:$((PORT+3))" --initial-advertise-peer-urls "http://127.0.0.1:$((PORT+3))" \
			--initial-cluster "floor=http://127.0.0.1:$((PORT+3))" >"$W/etcd/log" 2>&1 &
		ETCD_PID=$!
		until (exec 3<>/dev/tcp/127.0.0.1/$((PORT+2))) 2>/dev/null; do sleep 0.1; done
		bench etcd "etcd://127.0.0.1:$((PORT+2))/floor" "$@" ;;
	mysql)
		mkdir -p "$W/mysql/data" "$W/mysql/tmp"; chown -R nobody "$W/mysql" 2>/dev/null || true
		as mariadb-install-db --no-defaults --datadir="$W/mysql/data" --tmpdir="$W/mysql/tmp" \
			--auth-root-authentication-method=normal --skip-test-db --skip-name-resolve >/dev/null
		as mariadbd --no-defaults --datadir="$W/mysql/data" --tmpdir="$W/mysql/tmp" --port=$((PORT+4)) \
			--bind-address=127.0.0.1 --socket="$W/mysql/sock" --log-error="$W/mysql/log" --skip-name-resolve \
			--skip-log-bin --innodb-flush-log-at-trx-commit=1 --sync-binlog=1 &
		until mariadb --no-defaults -S "$W/mysql/sock" -u root -e 'SELECT 1' >/dev/null 2>&1; do sleep 0.2; done
		mariadb --no-defaults -S "$W/mysql/sock" -u root -e "CREATE DATABASE floor;
			CREATE USER cairn@'127.0.0.1' IDENTIFIED BY 'floor'; GRANT ALL ON floor.* TO cairn@'127.0.0.1';"
		bench mysql "mysql://cairn:floor@(127.0.0.1:$((PORT+4)))/floor" "$@" ;;
	badger) bench badger "badger://$W/badger/db" "$@" ;;
	*) echo "unknown engine $e (sqlite3, redis, postgres, mysql, etcd, badger)" >&2; exit 1 ;;
	esac
done
