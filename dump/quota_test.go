package dump

import (
	"reflect"
	"strings"
	"testing"

	"cairn/meta"
)

// withQuotas is sample() with a subdirectory that has statistics and a
// quota, and statistics of the root; quota in front puts a quota record
// before the inode it names.
func withQuotas(quotaFirst bool) (meta.DumpHeader, []meta.DumpRecord) {
	h, recs := sample()
	quota := meta.DumpRecord{Kind: meta.DumpQuota, Ino: 4, Quota: meta.Quota{MaxSpace: 1 << 40, MaxInodes: 10, Space: 8192, Inodes: 3}}
	recs = append(recs,
		meta.DumpRecord{Kind: meta.DumpInode, Ino: 4, Attr: meta.Attr{Type: meta.TypeDirectory, Mode: 0755, Nlink: 2, Length: 4096, Parent: 1}},
		meta.DumpRecord{Kind: meta.DumpEntry, Ino: 1, Name: "d", Child: 4, Type: meta.TypeDirectory},
		meta.DumpRecord{Kind: meta.DumpDirStat, Ino: 1, DirStat: meta.DirStat{Space: 4096, Inodes: 4}},
		meta.DumpRecord{Kind: meta.DumpDirStat, Ino: 4, DirStat: meta.DirStat{Space: -4096, Inodes: 0}},
	)
	if quotaFirst {
		return h, append([]meta.DumpRecord{quota}, recs...)
	}
	return h, append(recs, quota)
}

func TestQuotaRoundTrip(t *testing.T) {
	for _, o := range []Options{{}, {Binary: true}, {Compression: CompressZstd}} {
		t.Run(strings.TrimSpace(map[bool]string{true: "binary", false: "json"}[o.Binary]+" "+o.Compression), func(t *testing.T) {
			h, recs := withQuotas(true)
			_, got, err := readAll(write(t, o, h, recs))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, recs) {
				t.Errorf("records\n%+v\nwant\n%+v", got, recs)
			}
		})
	}
}

func TestQuotaJSONIsDocumentedForm(t *testing.T) {
	h, recs := withQuotas(false)
	text := string(write(t, Options{}, h, recs))
	for _, want := range []string{
		`{"kind":"quota","ino":4,"max_space":1099511627776,"max_inodes":10,"space":8192,"inodes":3}` + "\n",
		`{"kind":"dir_stat","ino":1,"space":4096,"inodes":4}` + "\n",
		`{"kind":"dir_stat","ino":4,"space":-4096,"inodes":0}` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dump lacks %s:\n%s", want, text)
		}
	}
}

// TestQuotaBadInput: a quota or statistics record must name a directory
// of the dump, once.
func TestQuotaBadInput(t *testing.T) {
	h, recs := withQuotas(false)
	with := func(binary bool, extra ...meta.DumpRecord) []byte {
		return write(t, Options{Binary: binary}, h, append(append([]meta.DumpRecord{}, recs...), extra...))
	}
	first := func(extra meta.DumpRecord) []byte {
		return write(t, Options{}, h, append([]meta.DumpRecord{extra}, recs...))
	}
	json := string(with(false))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"quota on a file", with(true, meta.DumpRecord{Kind: meta.DumpQuota, Ino: 2}), "quota record names inode 2, which is not a directory"},
		{"statistics of a file", with(false, meta.DumpRecord{Kind: meta.DumpDirStat, Ino: 9}), "statistics record names inode 9, which is not a directory"},
		{"quota before its file", first(meta.DumpRecord{Kind: meta.DumpQuota, Ino: 3}), "names inode 3, which is not a directory of the dump"},
		{"quota on a missing inode", with(true, meta.DumpRecord{Kind: meta.DumpQuota, Ino: 8}), "names inode 8, which is not a directory of the dump"},
		{"statistics of a missing inode", with(false, meta.DumpRecord{Kind: meta.DumpDirStat, Ino: 7}), "names inode 7, which is not a directory of the dump"},
		{"two quotas", with(true, recs[len(recs)-1]), "directory 4 has two quota records"},
		{"two statistics", with(false, recs[len(recs)-2]), "directory 4 has two statistics records"},
		{"negative limit", with(true, meta.DumpRecord{Kind: meta.DumpQuota, Ino: 1, Quota: meta.Quota{MaxInodes: -1}}), "negative limit"},
		{"quota without ino", []byte(strings.Replace(json, `{"kind":"quota","ino":4,`, `{"kind":"quota",`, 1)), `quota record without "ino"`},
		{"statistics with a bad number", []byte(strings.Replace(json, `"space":-4096`, `"space":-4.5`, 1)), "damaged"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(tc.data)
			if err == nil {
				t.Fatalf("read without error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line with %q", err, tc.want)
			}
		})
	}
}
