package meta

// NoteReached is noteReached, for the benchmark in package meta_test
// (which can open the in-memory engine that this package cannot import).
func (c *Client) NoteReached(dir, ino Ino, a Attr) { c.noteReached(dir, ino, a) }

// MigrationTracker is the Tracker the client runs behind, for tests in
// package meta_test that pause it as a migration would.
func (c *Client) MigrationTracker() *Tracker { return c.tracker }
