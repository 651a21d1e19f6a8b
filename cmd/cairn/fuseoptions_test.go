package main

import "testing"

// A mount other users may enter has the kernel check permission bits,
// whoever mounts it: without default_permissions the kernel walks cached
// names without asking cairn. A user's own mount leaves them to cairn.
func TestAllowOtherChecksPermissions(t *testing.T) {
	for _, tc := range []struct {
		options []string
		root    bool
		want    bool // allow_other and default_permissions
	}{
		{[]string{"allow_other"}, false, true},
		{[]string{"noatime,allow_other"}, false, true},
		{[]string{"allow_other", "nodev"}, false, true},
		{[]string{"noatime"}, false, false},
		{nil, false, false},
		{[]string{"noatime"}, true, true},
		{nil, true, true},
	} {
		opts, err := fuseOptions(mountFlags{options: tc.options}, tc.root)
		if err != nil {
			t.Fatal(err)
		}
		if opts.AllowOther != tc.want || opts.DefaultPermissions != tc.want {
			t.Errorf("-o %q, root %v: allow_other %v, default_permissions %v; want %v", tc.options, tc.root, opts.AllowOther, opts.DefaultPermissions, tc.want)
		}
	}
}
