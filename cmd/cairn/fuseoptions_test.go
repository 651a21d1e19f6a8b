package main

import "testing"

// A mount other users may enter has the kernel check permission bits,
// whoever mounts it: without default_permissions the kernel walks cached
// names without asking cairn. A user's own mount leaves them to cairn
// unless asked.
func TestAllowOtherChecksPermissions(t *testing.T) {
	for _, tc := range []struct {
		options               []string
		root                  bool
		allowOther, kernelDAC bool
	}{
		{[]string{"allow_other"}, false, true, true},
		{[]string{"noatime,allow_other"}, false, true, true},
		{[]string{"allow_other", "nodev"}, false, true, true},
		{[]string{"default_permissions"}, false, false, true},
		{[]string{"noatime"}, false, false, false},
		{nil, false, false, false},
		{[]string{"noatime"}, true, true, true},
		{nil, true, true, true},
	} {
		opts, err := fuseOptions(mountFlags{options: tc.options}, tc.root)
		if err != nil {
			t.Fatal(err)
		}
		if opts.AllowOther != tc.allowOther || opts.DefaultPermissions != tc.kernelDAC {
			t.Errorf("-o %q, root %v: allow_other %v, default_permissions %v; want %v, %v",
				tc.options, tc.root, opts.AllowOther, opts.DefaultPermissions, tc.allowOther, tc.kernelDAC)
		}
	}
}
