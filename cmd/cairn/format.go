package main

import "errors"

func formatCommand() command {
	return command{
		usage:   "format",
		summary: "not built yet",
		run:     func(args []string) error { return errors.New("not built yet") },
	}
}
