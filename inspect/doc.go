// Package inspect answers questions about what a mounted cairn volume
// holds, straight from its metadata engine: where a path's volume and
// inode are (Locate), what a file is made of (File), and what a tree
// holds (Summarize). It reads through meta.Engine only: it never opens
// files through FUSE and never touches the object store.
package inspect
