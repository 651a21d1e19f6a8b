package main

import "errors"

func benchCommand() command {
	return command{
		usage:   "bench",
		summary: "not built yet",
		run:     func(args []string) error { return errors.New("not built yet") },
	}
}
