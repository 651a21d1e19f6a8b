package meta_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cairn/meta"
)

// TestCheckedRefusesInFront makes one refused call of each checked method
// on an engine that is nothing at all: a call that reached it would panic.
// metatest pins the errno of every case on every real engine; this test
// pins that the refusal happens before the engine.
func TestCheckedRefusesInFront(t *testing.T) {
	e := meta.Checked(struct{ meta.Engine }{})
	ctx := context.Background()
	cred := meta.RootCred
	owner := meta.LockOwner{Session: 1, Owner: 1}
	long := strings.Repeat("n", meta.MaxName+1)
	cases := []struct {
		what string
		call func() error
		want error
	}{
		{"Lookup", func() error { _, _, err := e.Lookup(ctx, 1, long); return err }, meta.ErrNameTooLong},
		{"Mknod", func() error {
			_, err := e.Mknod(ctx, cred, 1, "x", meta.RootIno, meta.TypeFile, 0644, 0, "")
			return err
		}, meta.ErrInvalid},
		{"Link", func() error { _, err := e.Link(ctx, cred, 2, 1, "a/b"); return err }, meta.ErrInvalid},
		{"Unlink", func() error { _, _, err := e.Unlink(ctx, cred, 1, "", 1); return err }, meta.ErrInvalid},
		{"Rmdir", func() error { return e.Rmdir(ctx, cred, 1, "..") }, meta.ErrInvalid},
		{"Rename", func() error {
			_, _, _, err := e.Rename(ctx, cred, 1, "a", 1, "b", meta.RenameNoReplace|meta.RenameExchange, 1)
			return err
		}, meta.ErrInvalid},
		{"GetXattr", func() error { _, err := e.GetXattr(ctx, 2, ""); return err }, meta.ErrRange},
		{"SetXattr", func() error { return e.SetXattr(ctx, cred, 2, "user.a", make([]byte, meta.MaxXattrValue+1), 0) }, meta.ErrValueTooBig},
		{"RemoveXattr", func() error { return e.RemoveXattr(ctx, cred, 2, long) }, meta.ErrRange},
		{"Truncate", func() error { _, err := e.Truncate(ctx, cred, 2, meta.MaxLength+1); return err }, meta.ErrTooBig},
		{"Fallocate", func() error { _, err := e.Fallocate(ctx, cred, 2, meta.FallocPunchHole, 0, 1); return err }, meta.ErrNotSupported},
		{"Flock", func() error { return e.Flock(ctx, 2, owner, 3) }, meta.ErrInvalid},
		{"GetLk", func() error { _, err := e.GetLk(ctx, 2, owner, meta.Lock{Type: meta.LockUnlock}); return err }, meta.ErrInvalid},
		{"SetLk", func() error { return e.SetLk(ctx, 2, owner, meta.Lock{Type: meta.LockRead, Start: 2, End: 1}) }, meta.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("the refused call reached the engine: %v", r)
				}
			}()
			if err := c.call(); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

// Checked does not stack on itself, and passes on a Describer's
// description.
func TestCheckedOnce(t *testing.T) {
	inner := describing{}
	once := meta.Checked(inner)
	if twice := meta.Checked(once); twice != once {
		t.Errorf("Checked of a checked engine wrapped it again")
	}
	d, ok := once.(meta.Describer)
	if !ok || d.Describe()["server"] != "x" {
		t.Errorf("Checked hid the engine's Describe")
	}
}

type describing struct{ meta.Engine }

func (describing) Describe() map[string]string { return map[string]string{"server": "x"} }
