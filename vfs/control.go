package vfs

// SetControlAddress records where the mount's control channel listens,
// which .stats reports so that commands find it.
func (v *VFS) SetControlAddress(address string) { v.control.Store(&address) }

// ControlAddress is what SetControlAddress recorded, or "".
func (v *VFS) ControlAddress() string {
	if p := v.control.Load(); p != nil {
		return *p
	}
	return ""
}

// ReadOnly reports whether the mount refuses every change.
func (v *VFS) ReadOnly() bool { return v.cfg.ReadOnly }
