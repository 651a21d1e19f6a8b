package main

import "errors"

func versionCommand() command {
	return command{
		usage:   "version",
		summary: "not built yet",
		run:     func(args []string) error { return errors.New("not built yet") },
	}
}
