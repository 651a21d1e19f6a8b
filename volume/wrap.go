package volume

import "fmt"

// wrap applies the wrappers of opts to the open engine and object store.
func (v *Volume) wrap(opts Options) error {
	if opts.WrapEngine != nil {
		eng, err := opts.WrapEngine(v.Engine)
		if err != nil {
			return fmt.Errorf("wrap the metadata engine of %s: %w", v.URL, err)
		}
		v.Engine = eng
	}
	if opts.WrapStore != nil {
		obj, err := opts.WrapStore(v.Objects)
		if err != nil {
			return fmt.Errorf("wrap the object store of volume %q: %w", v.Format.Name, err)
		}
		v.Objects = obj
	}
	return nil
}
