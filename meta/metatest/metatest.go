// Package metatest is the conformance suite every metadata engine must pass:
// the same calls, the same results and the same errno on every engine. It
// decides by Linux's behaviour where meta.Engine's doc comments are silent.
//
// An engine's tests call Run with a function that opens a fresh, empty,
// unformatted engine, and RunConcurrency with a second function that opens
// another client on the same database. metatest imports only meta; it must
// never import an engine package (their tests import it).
//
// Conventions the suite fixes for every engine, beyond engine.go:
//   - Usage.Inodes counts every inode that exists, the root and unreleased
//     orphans included (1 on a fresh volume). Usage.Space is the sum over
//     regular files (orphans included) of Length rounded up to 4 KiB;
//     directories, symlinks and special files count no space.
//   - Readdir never lists "." or "..".
//   - The root's Parent is RootIno; a non-directory's Parent is 0.
//   - Times are nanoseconds from the engine's clock, which is the test's
//     clock (same machine); the suite only compares them with timestamps
//     taken before an operation, never for equality with the wall clock.
package metatest

import (
	"testing"

	"cairn/meta"
)

// Opener returns a fresh, empty, unformatted engine. It registers the
// engine's cleanup (Close, removing its database) with t.
type Opener func(t *testing.T) meta.Engine

// test is one behaviour, run on a formatted engine of its own.
type test struct {
	name string
	run  func(x *env)
}

// Run checks every behaviour of meta.Engine. Each subtest gets an engine of
// its own from open, formatted by the suite, so that no subtest depends on
// another's state; after each subtest the tree is checked with Verify.
// Subtests are named by operation and behaviour ("Rename/EISDIR"); the
// seeded random walk "Model/Namespace" compares the engine with an
// in-memory model of Linux's rules and prints its seed when they differ.
// Readdir/Large makes 10,000 entries (1,000 with -short).
//
// Every engine is tested behind meta.Checked, as engines.Open returns it:
// the argument checks are part of what the suite pins.
func Run(t *testing.T, open func(t *testing.T) meta.Engine) {
	open = checkedOpener(open)
	t.Run("Format", func(t *testing.T) { testFormat(t, open) })
	t.Run("Destroy", func(t *testing.T) { testDestroy(t, open) })
	groups := [][]test{
		sessionTests(),
		entryTests(),
		nameTests(),
		checkTests(),
		permTests(),
		setattrTests(),
		setidTests(),
		timeTests(),
		parentAttrTests(),
		unlinkDeleteTests(),
		renameTests(),
		orphanTests(),
		readdirTests(),
		dataTests(),
		usageTests(),
		repairTests(),
		xattrTests(),
		lockTests(),
		modelTests(),
		trashTests(),
		cloneTests(),
		batchRemoveTests(),
		changeLogTests(),
		replaceTests(),
		dirStatsTests(),
		quotaTests(),
	}
	for _, g := range groups {
		for _, tc := range g {
			t.Run(tc.name, func(t *testing.T) {
				x := newEnv(t, open)
				tc.run(x)
				if !t.Failed() && !x.skipVerify {
					x.verify()
				}
			})
		}
	}
}

// checkedOpener opens engines behind meta.Checked.
func checkedOpener(open func(t *testing.T) meta.Engine) func(t *testing.T) meta.Engine {
	return func(t *testing.T) meta.Engine { return meta.Checked(open(t)) }
}
