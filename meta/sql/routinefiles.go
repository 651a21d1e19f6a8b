package sql

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// The routines Init installs (see routine) are SQL files, one a routine,
// named after it: routines/postgres/cairn_move.sql is rename on
// PostgreSQL, routines/mysql/cairn_move.sql the same on MySQL/MariaDB
// (routines/README.md lists which routine serves which operation). Each
// file is the one statement that creates its routine. A change to a
// file raises routinesVersion, so that Load installs it on volumes that
// hold the earlier text.
//
//go:embed routines/postgres/*.sql routines/mysql/*.sql
var routineFiles embed.FS

// pgRoutines are the PL/pgSQL functions that make PostgreSQL's namespace
// operations one round trip each: one statement in autocommit mode, which
// the server runs as one transaction. The permission rules of meta/perm.go
// run inside them (cairn_access, cairn_may_delete, and InitAttr in
// cairn_create); routines_test.go compares them with the Go rules. Each
// checks in the order the general transaction (namespace.go, rename.go)
// checks, so that both fail with the same errno.
//
// Every statement of a VOLATILE function takes a new snapshot at READ
// COMMITTED, so a read after a row lock sees what the lock's previous
// holder committed (see lockDirEntry).
var pgRoutines = mustRoutineStatements("postgres", false, []string{
	"cairn_write", "cairn_file_errno", "cairn_grow", "cairn_space_errno", "cairn_in_group", "cairn_access",
	"cairn_mode_after_write", "cairn_mode_after_chown",
	"cairn_may_delete", "cairn_search", "cairn_lock_victim", "cairn_create", "cairn_drop_chunks",
	"cairn_delete_inode", "cairn_remove", "cairn_rmdir",
	"cairn_is_ancestor", "cairn_move", "cairn_link", "cairn_setxattr", "cairn_removexattr", "cairn_setattr",
	"cairn_hide_range", "cairn_release", "cairn_truncate", "cairn_flock", "cairn_setlk",
	"cairn_fallocate",
})

// mysqlRoutines are the PostgreSQL functions ported to MySQL/MariaDB
// stored functions and procedures: the same arguments, the same checks in
// the same order, the same answer row. A procedure runs its own
// transaction (its statements would otherwise each commit on their own);
// the session is at READ COMMITTED (see readCommitted), so each read after
// a row lock sees what the lock's previous holder committed.
//
// An operation's procedure runs its block named body as one transaction
// and answers with one row, each missing value read as 0. body fails the
// operation by setting r_errno and leaving the block; an SQL error rolls
// back and is raised again (the EXIT HANDLER), so that a deadlock reaches
// the engine's retry loop. Helpers that a procedure CALLs run in its
// transaction.
//
// Variables are prefixed (p_ argument, c_ caller, v_/s_/d_ rows read,
// r_ result) because in a stored routine a variable named like a column
// would shadow the column.
var mysqlRoutines = mustRoutineStatements("mysql", true, []string{
	"cairn_in_group", "cairn_file_errno", "cairn_grow", "cairn_space_errno", "cairn_access", "cairn_may_delete",
	"cairn_mode_after_write", "cairn_mode_after_chown",
	"cairn_is_ancestor", "cairn_search", "cairn_lock_victim", "cairn_write", "cairn_create", "cairn_drop_chunks",
	"cairn_delete_inode", "cairn_remove",
	"cairn_rmdir", "cairn_move", "cairn_link", "cairn_setxattr", "cairn_removexattr", "cairn_setattr",
	"cairn_hide_range", "cairn_release", "cairn_truncate", "cairn_flock",
	"cairn_lock_conflict", "cairn_setlk", "cairn_fallocate",
})

// routineHeader is how a routine file begins: the statement that creates
// the routine, which names its kind and itself.
var routineHeader = regexp.MustCompile(`^CREATE (?:OR REPLACE )?(FUNCTION|PROCEDURE) (\w+)\(`)

// routineStatements is the statements that install dialect's routines
// from files, in order: the order matters where the server checks a body
// when the routine is created (PostgreSQL's LANGUAGE sql functions),
// which must then come after the routines it calls. The directory must
// hold exactly these routines, and a missing file is an error rather
// than a routine left out. dropFirst puts a DROP before each CREATE, for
// servers without CREATE OR REPLACE.
func routineStatements(files fs.FS, dialect string, dropFirst bool, order []string) ([]string, error) {
	dir := path.Join("routines", dialect)
	present, err := fs.Glob(files, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	for _, f := range present {
		if name := strings.TrimSuffix(path.Base(f), ".sql"); !slices.Contains(order, name) {
			return nil, fmt.Errorf("%s is not in the install order of %s's routines", f, dialect)
		}
	}
	var out []string
	for _, name := range order {
		file := path.Join(dir, name+".sql")
		b, err := fs.ReadFile(files, file)
		if err != nil {
			return nil, err
		}
		text := strings.TrimSpace(string(b))
		m := routineHeader.FindStringSubmatch(text)
		if m == nil || m[2] != name {
			return nil, fmt.Errorf("%s does not begin with the statement that creates %s", file, name)
		}
		if dropFirst {
			out = append(out, "DROP "+m[1]+" IF EXISTS "+name)
		}
		out = append(out, text)
	}
	return out, nil
}

// mustRoutineStatements is routineStatements for files built into the
// binary, where an error is a mistake in the source tree.
func mustRoutineStatements(dialect string, dropFirst bool, order []string) []string {
	out, err := routineStatements(routineFiles, dialect, dropFirst, order)
	if err != nil {
		panic("meta/sql: " + err.Error())
	}
	return out
}
