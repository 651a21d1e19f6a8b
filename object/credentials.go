package object

import "os"

// Environment variables Open reads for S3 credentials not given in Options,
// so that a secret need not appear on a command line: cairn's own names
// first, then the names many S3 tools read, so that an environment set up
// for those tools works as it is.
const (
	AccessKeyEnv       = "CAIRN_ACCESS_KEY"
	SecretKeyEnv       = "CAIRN_SECRET_KEY"
	CommonAccessKeyEnv = "ACCESS_KEY"
	CommonSecretKeyEnv = "SECRET_KEY"
)

// Credentials are the access key and secret key a store opened with o
// authenticates with: each is o's own when set, else the first of its
// environment variables that is set, else "".
func (o Options) Credentials() (accessKey, secretKey string) {
	return firstSet(o.AccessKey, AccessKeyEnv, CommonAccessKeyEnv), firstSet(o.SecretKey, SecretKeyEnv, CommonSecretKeyEnv)
}

// firstSet is value, or when it is empty the first of the environment
// variables envs that is set.
func firstSet(value string, envs ...string) string {
	for _, env := range envs {
		if value != "" {
			break
		}
		value = os.Getenv(env)
	}
	return value
}
