package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
)

// The lines a command prints for its user are of three kinds. Its result
// (a status, a report, a table, dumped data) and its errors are printed
// whatever the log level. Everything else — what it did, a hint, a
// warning — goes through inform or warn, which print it as a plain line
// only when the log level lets messages of that level through: --quiet
// (--log-level error) leaves a command's result and errors alone.

// inform prints an informational line to w (what a command did, a hint),
// unless the log level is above info.
func inform(w io.Writer, format string, args ...any) {
	say(slog.LevelInfo, w, format, args...)
}

// warn prints a warning line to w (stderr, or stdout among a command's
// other lines), unless the log level is above warn.
func warn(w io.Writer, format string, args ...any) {
	say(slog.LevelWarn, w, format, args...)
}

// informing reports whether informational output (lines, progress) is
// shown: the log level is info or below.
func informing() bool {
	return slog.Default().Enabled(context.Background(), slog.LevelInfo)
}

// say prints a line to w if the process's logger takes messages of level.
func say(level slog.Level, w io.Writer, format string, args ...any) {
	if !slog.Default().Enabled(context.Background(), level) {
		return
	}
	fmt.Fprintf(w, format+"\n", args...)
}
