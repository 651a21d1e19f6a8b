package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// environmentHelp names the environment variables cairn reads and the flag
// or URL part each stands for.
const environmentHelp = `Environment:
  META_PASSWORD                   password of the metadata database, for every engine (the PASSWORD of
                                  META-URL's USER:PASSWORD@, which then stays out of the process list)
  REDIS_PASSWORD                  the same for Redis only, read before META_PASSWORD
  META_PASSWORD_DST               password of 'cairn migrate's DST-URL, for the command and the mounts that follow
  CAIRN_ACCESS_KEY or ACCESS_KEY  S3 access key (--access-key)
  CAIRN_SECRET_KEY or SECRET_KEY  S3 secret key (--secret-key)`

// metaURLHelp is what the help of a command that takes a META-URL says
// of it.
const metaURLHelp = `META-URL names the metadata database: sqlite3:///PATH, redis://[USER:PASSWORD@]HOST:6379/DB,
postgres://USER[:PASSWORD]@HOST/DB, mysql://USER[:PASSWORD]@(HOST:3306)/DB, etcd://[USER:PASSWORD@]HOST:2379/PREFIX,
tikv://PD:2379/PREFIX or badger:///DIR. A PASSWORD left out of it is read from $META_PASSWORD
($REDIS_PASSWORD first for Redis), which keeps it out of the process list.`

// finishHelp rewrites the defaults help shows for sizes and
// durations the way people write them: 1 GiB rather than 1073741824, 1m
// rather than 1m0s. It changes what help prints, never a value. It also
// gives every command its --help flag now, so that 'cairn help CMD' lists
// it as 'CMD --help' does, and explains META-URL where a command takes one.
func finishHelp(c *cobra.Command) {
	c.InitDefaultHelpFlag()
	if strings.Contains(c.Use, "META-URL") && c.Long == "" {
		c.Long = c.Short + "\n\n" + metaURLHelp
	}
	c.LocalFlags().VisitAll(func(f *pflag.Flag) { f.DefValue = humanDefault(f) })
	for _, sub := range c.Commands() {
		finishHelp(sub)
	}
}

func humanDefault(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "size":
		if n, err := parseByteSize(f.DefValue); err == nil && n > 0 {
			return humanBytes(n)
		}
	case "duration":
		if d, err := time.ParseDuration(f.DefValue); err == nil {
			return humanDuration(d)
		}
	}
	return f.DefValue
}

// humanDuration writes d without the zero units time.Duration.String
// leaves at its end: 1m, 1h, 1h30m, 1.5s.
func humanDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// helpCommand is 'cairn help [COMMAND…]'. Unlike cobra's own, it fails
// with one line on a command that does not exist.
func helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "help [COMMAND…]",
		Short:   "show the help of cairn or of a command",
		Example: "  cairn help mount\n  cairn help bench engines",
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return fmt.Errorf("unknown command %q (run 'cairn --help' for the list)", strings.Join(args, " "))
			}
			return target.Help()
		},
	}
}
