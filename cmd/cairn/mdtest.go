package main

import "errors"

func mdtestCommand() command {
	return command{
		usage:   "mdtest",
		summary: "not built yet",
		run:     func(args []string) error { return errors.New("not built yet") },
	}
}
