package volume

import (
	"fmt"
	"os"
	"strings"

	"cairn/object"
)

// checkCredentials says which S3 credential is missing, before any request
// is made that would fail with a less helpful message. Credentials are
// never written to the metadata engine (meta.Format has no place for them,
// on purpose): every opening of an S3 volume's blocks takes them from its
// options or from the environment.
func checkCredentials(storage string, opts object.Options) error {
	if storage != "s3" {
		return nil
	}
	var missing []string
	if opts.AccessKey == "" && os.Getenv(object.AccessKeyEnv) == "" {
		missing = append(missing, "an access key (--access-key, $"+object.AccessKeyEnv+" or $ACCESS_KEY)")
	}
	if opts.SecretKey == "" && os.Getenv(object.SecretKeyEnv) == "" {
		missing = append(missing, "a secret key ($"+object.SecretKeyEnv+", $SECRET_KEY or --secret-key)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("S3 storage needs %s; credentials are not stored in the volume", strings.Join(missing, " and "))
	}
	return nil
}
