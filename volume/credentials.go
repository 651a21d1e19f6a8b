package volume

import (
	"fmt"
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
	accessKey, secretKey := opts.Credentials()
	if accessKey == "" {
		missing = append(missing, "an access key (--access-key, $"+object.AccessKeyEnv+" or $"+object.CommonAccessKeyEnv+")")
	}
	if secretKey == "" {
		missing = append(missing, "a secret key ($"+object.SecretKeyEnv+", $"+object.CommonSecretKeyEnv+" or --secret-key)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("S3 storage needs %s; credentials are not stored in the volume", strings.Join(missing, " and "))
	}
	return nil
}
