// Package tests is cairn's end-to-end proof: it builds the cairn binary,
// formats volumes, mounts them through FUSE and drives them with the
// ordinary system calls a user's program makes, checking the results
// against what Linux's own file systems do.
//
// The metadata engine is chosen by CAIRN_TEST_ENGINE (default sqlite3); see
// engines_test.go for the list.
package tests
