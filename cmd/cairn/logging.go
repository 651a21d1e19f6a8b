package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/pflag"
)

// logFlags are the logging flags every command takes. They set the level
// of the process's slog logger, which every package logs through.
type logFlags struct {
	verbose bool
	quiet   bool
	level   string
}

// logging holds the logging flags of this process: they belong to the
// root command and so to every command.
var logging logFlags

func (l *logFlags) register(fs *pflag.FlagSet) {
	fs.BoolVarP(&l.verbose, "verbose", "v", false, "log more: debug messages too (--log-level debug)")
	fs.BoolVarP(&l.quiet, "quiet", "q", false, "log errors only, and show no progress (--log-level error)")
	fs.StringVar(&l.level, "log-level", "info", "least important messages logged: debug, info, warn or error")
}

// slogLevel is the level the flags ask for.
func (l *logFlags) slogLevel() (slog.Level, error) {
	if l.verbose && l.quiet {
		return 0, errors.New("--verbose and --quiet contradict each other: give one")
	}
	switch {
	case l.verbose:
		return slog.LevelDebug, nil
	case l.quiet:
		return slog.LevelError, nil
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.level)); err != nil || strings.ContainsAny(l.level, "+-") {
		return 0, fmt.Errorf("unknown --log-level %q: use debug, info, warn or error", l.level)
	}
	return level, nil
}

// install makes the default slog logger write to w at the level the flags
// ask for.
func (l *logFlags) install(w io.Writer) error {
	level, err := l.slogLevel()
	if err != nil {
		return err
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})))
	return nil
}
