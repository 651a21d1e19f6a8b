package bench

import (
	"context"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Durability says when a commit on the engine at rawURL reaches the disk,
// as far as it is cheap to learn: from the URL and the engine's defaults
// for embedded engines, by asking the server with its own command-line
// client for the others. "" when it cannot be learnt.
func Durability(scheme, rawURL string) string {
	_, rest, _ := strings.Cut(rawURL, "://")
	_, query, _ := strings.Cut(rest, "?")
	params, _ := url.ParseQuery(query)
	switch scheme {
	case "mem":
		return "none: memory only"
	case "sqlite3":
		sync := params.Get("_synchronous")
		if sync == "" {
			sync = "FULL"
		}
		journal := params.Get("_journal_mode")
		if journal == "" {
			journal = "WAL"
		}
		return "journal_mode=" + journal + ", synchronous=" + sync
	case "badger":
		if params.Get("sync") == "false" {
			return "no fsync on commit (sync=false)"
		}
		return "fsync on every commit"
	case "etcd":
		hosts, _, _ := strings.Cut(rest, "/")
		return "fsync of the Raft log on every commit, " + plural(strings.Count(hosts, ",")+1, "member")
	case "redis", "rediss":
		aof := clientQuery("redis-cli", "-u", rawURL, "--no-auth-warning", "CONFIG", "GET", "appendonly")
		fsync := clientQuery("redis-cli", "-u", rawURL, "--no-auth-warning", "CONFIG", "GET", "appendfsync")
		if aof == "" {
			return ""
		}
		// CONFIG GET answers name and value on alternate lines.
		v := func(s string) string { _, val, _ := strings.Cut(s, "\n"); return strings.TrimSpace(val) }
		if v(aof) != "yes" {
			return "appendonly no (no AOF; snapshots only)"
		}
		return "appendonly yes, appendfsync " + v(fsync)
	case "postgres", "postgresql":
		out := clientQuery("psql", rawURL, "-XAtc", "SELECT current_setting('fsync') || ', synchronous_commit=' || current_setting('synchronous_commit')")
		if out == "" {
			return ""
		}
		return "fsync=" + strings.TrimSpace(out)
	case "mysql", "mariadb":
		args := mysqlArgs(rest)
		if args == nil {
			return ""
		}
		out := clientQuery("mariadb", append(args, "-N", "-B", "-e", "SELECT @@innodb_flush_log_at_trx_commit, @@sync_binlog")...)
		f := strings.Fields(out)
		if len(f) != 2 {
			return ""
		}
		return "innodb_flush_log_at_trx_commit=" + f[0] + ", sync_binlog=" + f[1]
	}
	return ""
}

// mysqlArgs turns the rest of mysql://user:pw@(host:port)/db into the
// mariadb client's arguments; nil when it cannot.
func mysqlArgs(rest string) []string {
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil
	}
	user, pw, _ := strings.Cut(rest[:at], ":")
	addr, _, _ := strings.Cut(rest[at+1:], "/")
	addr = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(addr, "tcp"), "("), ")")
	host, port, ok := strings.Cut(addr, ":")
	if !ok {
		port = "3306"
	}
	return []string{"-h", host, "-P", port, "-u", user, "-p" + pw}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// clientQuery runs a database's command-line client and returns what it
// printed, or "" when it is missing or fails.
func clientQuery(name string, args ...string) string {
	bin, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
