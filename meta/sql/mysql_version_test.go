package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cairn/internal/testenv"
)

func TestMySQLVersionOK(t *testing.T) {
	for _, c := range []struct {
		version string
		tooOld  string // part of the error; "" when accepted
	}{
		{"10.11.19-MariaDB-0+deb12u1", ""},
		{"10.5.0-MariaDB", ""},
		{"11.4.2-MariaDB-ubu2404", ""},
		{"5.5.5-10.11.6-MariaDB-log", ""},
		{"10.4.32-MariaDB", "MariaDB server version 10.4.32-MariaDB is too old: cairn needs 10.5 or later"},
		{"10.3.39-MariaDB-0+deb10u1", "too old: cairn needs 10.5"},
		{"5.5.5-10.1.48-MariaDB", "MariaDB server version 10.1.48-MariaDB is too old"},
		{"8.0.36", ""},
		{"8.4.0-log", ""},
		{"9.1.0", ""},
		{"5.7.44-log", "MySQL server version 5.7.44-log is too old: cairn needs 8.0 or later"},
		{"5.6.51", "MySQL server version 5.6.51 is too old"},
		{"garbage", "cannot read the MySQL server version"},
		{"", "cannot read the MySQL server version"},
	} {
		err := mysqlVersionOK(c.version)
		switch {
		case c.tooOld == "" && err != nil:
			t.Errorf("%q refused: %v", c.version, err)
		case c.tooOld != "" && err == nil:
			t.Errorf("%q accepted, want %q", c.version, c.tooOld)
		case err != nil && (!strings.Contains(err.Error(), c.tooOld) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%q: error %q, want one line containing %q", c.version, err, c.tooOld)
		}
	}
}

// TestMariaDBVersionAccepted runs the check against the real server.
func TestMariaDBVersionAccepted(t *testing.T) {
	open, _ := mariadbOpener(t)
	e := open(t).(*Engine)
	c := &conn{ctx: context.Background(), e: e, q: e.db}
	var v string
	if err := c.queryRow("SELECT VERSION()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := e.d.checkServer(c); err != nil {
		t.Errorf("server %s refused: %v", v, err)
	}
	t.Logf("server version %s accepted", v)
}

// TestMariaDBInitWithoutRoutineRight formats with a user that may create
// tables but not procedures: one line that says what is missing.
func TestMariaDBInitWithoutRoutineRight(t *testing.T) {
	srv := testenv.MariaDB(t)
	srv.SQL(t, "CREATE DATABASE lim; CREATE USER 'lim'@'%' IDENTIFIED BY 'lim-pw'; "+
		"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX ON lim.* TO 'lim'@'%'")
	e, err := Open(fmt.Sprintf("mysql://lim:lim-pw@(127.0.0.1:%d)/lim", srv.Port))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.Init(context.Background(), testFormat(), false)
	if err == nil || !strings.Contains(err.Error(), "right to create routines") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Init without the right to create procedures: %v", err)
	}
	t.Log(err)
}
