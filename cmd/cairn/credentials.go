package main

import "os"

// accessKeyEnv and secretKeyEnv are the names many S3 tools read
// credentials from; cairn reads them after its own (object.AccessKeyEnv,
// object.SecretKeyEnv), so that an environment set up for those tools
// works as it is.
const (
	accessKeyEnv = "ACCESS_KEY"
	secretKeyEnv = "SECRET_KEY"
)

// credential is value when a flag gave it, or else the first of the
// environment variables envs that is set ("" when none is).
func credential(value string, envs ...string) string {
	for _, env := range envs {
		if value != "" {
			break
		}
		value = os.Getenv(env)
	}
	return value
}
