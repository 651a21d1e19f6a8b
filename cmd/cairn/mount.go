package main

import "errors"

func mountCommand() command {
	return command{
		usage:   "mount",
		summary: "not built yet",
		run:     func(args []string) error { return errors.New("not built yet") },
	}
}
