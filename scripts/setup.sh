#!/usr/bin/env bash
# Installs what cairn's build and tests need on a fresh Debian or Ubuntu
# machine: FUSE 3, the database servers the tests start on loopback, and
# tmux (the terminal `cairn stats` is tested in).
# Safe to run again; it installs only what is missing.
set -euo pipefail

if ! command -v go >/dev/null; then
  echo "setup: no Go toolchain on PATH; install Go $(sed -n 's/^go //p' "$(dirname "$0")/../go.mod") or newer from https://go.dev/dl" >&2
  exit 1
fi

need=()
command -v fusermount3 >/dev/null || need+=(fuse3)
command -v redis-server >/dev/null || need+=(redis-server)
command -v etcd >/dev/null || need+=(etcd-server)
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v df >/dev/null || need+=(coreutils)
command -v tmux >/dev/null || need+=(tmux)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: need root to install: ${need[*]} (run: sudo $0)" >&2
    exit 1
  fi
  echo "setup: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ ! -e /dev/fuse ]; then
  echo "setup: /dev/fuse is missing: load the fuse module (modprobe fuse) or, in a container, pass --device /dev/fuse --cap-add SYS_ADMIN" >&2
  exit 1
fi
