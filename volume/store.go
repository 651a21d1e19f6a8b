package volume

import "context"

// OpenObjects opens the object store of a volume opened with OpenMeta,
// as Open does (credentials checked, an S3 store asked once to prove it
// answers), without a client or a session: for commands that work on the
// stored objects themselves, such as 'cairn destroy'. Close does not
// need to close it.
func (v *Volume) OpenObjects(ctx context.Context, opts Options) error {
	store, err := openObjects(ctx, v.Format, opts.Store, opts.IOTimeout)
	if err != nil {
		return err
	}
	v.Objects = store
	return nil
}
