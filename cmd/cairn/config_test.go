package main

import (
	"strings"
	"testing"

	"cairn/meta"
)

func TestChangeSettings(t *testing.T) {
	old := meta.Format{Name: "vol", UUID: "u-1", Storage: "file", Bucket: "/data/vol", BlockSize: 1 << 20,
		Compression: "lz4", Capacity: 10, Inodes: 20, TrashDays: 1, Version: meta.FormatVersion}
	good := []struct {
		flags configFlags
		set   string
		edit  func(*meta.Format)
	}{
		{configFlags{capacity: 99}, "capacity", func(f *meta.Format) { f.Capacity = 99 }},
		{configFlags{inodes: 0}, "inodes", func(f *meta.Format) { f.Inodes = 0 }},
		{configFlags{trashDays: 3}, "trash-days", func(f *meta.Format) { f.TrashDays = 3 }},
		{configFlags{compress: "zstd"}, "compress", func(f *meta.Format) { f.Compression = "zstd" }},
		{configFlags{name: "renamed"}, "name", func(f *meta.Format) { f.Name = "renamed" }},
		// The settings the blocks depend on, given unchanged.
		{configFlags{storage: "file"}, "storage", func(*meta.Format) {}},
		{configFlags{bucket: "/data/vol"}, "bucket", func(*meta.Format) {}},
		{configFlags{blockSize: 1 << 20}, "block-size", func(*meta.Format) {}},
	}
	for _, c := range good {
		got, err := changeSettings(old, c.flags, map[string]bool{c.set: true})
		want := old
		c.edit(&want)
		if err != nil || got != want {
			t.Errorf("--%s: %+v, %v; want %+v", c.set, got, err, want)
		}
	}
	bad := []struct {
		flags configFlags
		set   string
		want  string
	}{
		{configFlags{storage: "mem"}, "storage", "storage"},
		{configFlags{bucket: "/elsewhere"}, "bucket", "bucket"},
		{configFlags{blockSize: 4 << 20}, "block-size", "block size"},
		{configFlags{compress: "gzip"}, "compress", "compress"},
		{configFlags{name: "Bad_Name"}, "name", "name"},
		{configFlags{trashDays: -1}, "trash-days", "trash-days"},
	}
	for _, c := range bad {
		if _, err := changeSettings(old, c.flags, map[string]bool{c.set: true}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--%s %+v: %v, want an error about %s", c.set, c.flags, err, c.want)
		}
	}
}
