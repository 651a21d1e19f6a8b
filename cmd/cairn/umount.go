package main

import "errors"

func umountCommand() command {
	return command{
		usage:   "umount",
		summary: "not built yet",
		run:     func(args []string) error { return errors.New("not built yet") },
	}
}
