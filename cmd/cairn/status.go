package main

import "errors"

func statusCommand() command {
	return command{
		usage:   "status",
		summary: "not built yet",
		run:     func(args []string) error { return errors.New("not built yet") },
	}
}
