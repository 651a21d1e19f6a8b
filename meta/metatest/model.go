package metatest

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"

	"cairn/meta"
)

func modelTests() []test {
	return []test{
		{"Model/Namespace", testModel},
	}
}

// mnode is the model's idea of one inode.
type mnode struct {
	typ     meta.FileType
	nlink   uint32
	parent  meta.Ino // directories only
	length  uint64
	entries map[string]meta.Ino // directories only
}

// model is an in-memory file system tree with Linux's rules, against which
// testModel compares an engine operation by operation.
type model struct {
	nodes map[meta.Ino]*mnode
}

func newModel() *model {
	return &model{nodes: map[meta.Ino]*mnode{
		meta.RootIno: {typ: meta.TypeDirectory, nlink: 2, parent: meta.RootIno, entries: map[string]meta.Ino{}},
	}}
}

func (m *model) dirs() []meta.Ino {
	var out []meta.Ino
	for ino, n := range m.nodes {
		if n.typ == meta.TypeDirectory {
			out = append(out, ino)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// within reports whether dir is ino or lies below it.
func (m *model) within(dir, ino meta.Ino) bool {
	for {
		if dir == ino {
			return true
		}
		if dir == meta.RootIno {
			return false
		}
		dir = m.nodes[dir].parent
	}
}

// mop is one operation: its description, the errors the model allows
// (none: it must succeed), and how it changes the model when it succeeds.
type mop struct {
	what    string
	allowed []error
	apply   func()
}

func (m *model) mknod(parent meta.Ino, name string, ino meta.Ino, typ meta.FileType) mop {
	op := mop{what: fmt.Sprintf("Mknod %d/%s type %d", parent, name, typ)}
	p := m.nodes[parent]
	if _, ok := p.entries[name]; ok {
		op.allowed = []error{meta.ErrExists}
		return op
	}
	op.apply = func() {
		n := &mnode{typ: typ, nlink: 1}
		if typ == meta.TypeDirectory {
			n.nlink, n.parent, n.entries = 2, parent, map[string]meta.Ino{}
			p.nlink++
		}
		m.nodes[ino] = n
		p.entries[name] = ino
	}
	return op
}

func (m *model) link(ino, parent meta.Ino, name string) mop {
	op := mop{what: fmt.Sprintf("Link %d as %d/%s", ino, parent, name)}
	p := m.nodes[parent]
	if _, ok := p.entries[name]; ok {
		op.allowed = append(op.allowed, meta.ErrExists)
	}
	if m.nodes[ino].typ == meta.TypeDirectory {
		op.allowed = append(op.allowed, meta.ErrNotPermitted)
	}
	if op.allowed == nil {
		op.apply = func() {
			p.entries[name] = ino
			m.nodes[ino].nlink++
		}
	}
	return op
}

func (m *model) unlink(parent meta.Ino, name string) mop {
	op := mop{what: fmt.Sprintf("Unlink %d/%s", parent, name)}
	p := m.nodes[parent]
	ino, ok := p.entries[name]
	switch {
	case !ok:
		op.allowed = []error{meta.ErrNotFound}
	case m.nodes[ino].typ == meta.TypeDirectory:
		op.allowed = []error{meta.ErrIsDir}
	default:
		op.apply = func() { m.drop(p, name) }
	}
	return op
}

// drop removes an entry naming a non-directory, forgetting the inode with
// its last link (the suite releases orphans at once).
func (m *model) drop(p *mnode, name string) {
	ino := p.entries[name]
	delete(p.entries, name)
	n := m.nodes[ino]
	n.nlink--
	if n.nlink == 0 {
		delete(m.nodes, ino)
	}
}

func (m *model) rmdir(parent meta.Ino, name string) mop {
	op := mop{what: fmt.Sprintf("Rmdir %d/%s", parent, name)}
	p := m.nodes[parent]
	ino, ok := p.entries[name]
	switch {
	case !ok:
		op.allowed = []error{meta.ErrNotFound}
	case m.nodes[ino].typ != meta.TypeDirectory:
		op.allowed = []error{meta.ErrNotDir}
	case len(m.nodes[ino].entries) > 0:
		op.allowed = []error{meta.ErrNotEmpty}
	default:
		op.apply = func() {
			delete(p.entries, name)
			delete(m.nodes, ino)
			p.nlink--
		}
	}
	return op
}

func (m *model) rename(sp meta.Ino, sn string, dp meta.Ino, dn string, flags uint32) mop {
	op := mop{what: fmt.Sprintf("Rename %d/%s -> %d/%s flags %d", sp, sn, dp, dn, flags)}
	src, dst := m.nodes[sp], m.nodes[dp]
	si, sok := src.entries[sn]
	di, dok := dst.entries[dn]
	exchange := flags&meta.RenameExchange != 0
	switch {
	case !sok:
		op.allowed = []error{meta.ErrNotFound}
		return op
	case exchange && !dok:
		op.allowed = []error{meta.ErrNotFound}
		return op
	case flags&meta.RenameNoReplace != 0 && dok:
		op.allowed = []error{meta.ErrExists}
		return op
	case dok && si == di:
		op.apply = func() {}
		return op
	}
	// The order of Linux's checks: a directory moved into itself (EINVAL),
	// a destination that contains the source (ENOTEMPTY, or EINVAL for an
	// exchange), then the types, then the emptiness of a replaced
	// directory.
	sdir := m.nodes[si].typ == meta.TypeDirectory
	ddir := dok && m.nodes[di].typ == meta.TypeDirectory
	switch {
	case sdir && m.within(dp, si):
		op.allowed = []error{meta.ErrInvalid}
	case ddir && m.within(sp, di) && exchange:
		op.allowed = []error{meta.ErrInvalid}
	case ddir && m.within(sp, di):
		op.allowed = []error{meta.ErrNotEmpty}
	case dok && !exchange && sdir && !ddir:
		op.allowed = []error{meta.ErrNotDir}
	case dok && !exchange && !sdir && ddir:
		op.allowed = []error{meta.ErrIsDir}
	case dok && !exchange && ddir && len(m.nodes[di].entries) > 0:
		op.allowed = []error{meta.ErrNotEmpty}
	}
	if op.allowed != nil {
		return op
	}
	op.apply = func() {
		if exchange {
			src.entries[sn], dst.entries[dn] = di, si
			m.reparent(si, sp, dp)
			m.reparent(di, dp, sp)
			return
		}
		if dok {
			if m.nodes[di].typ == meta.TypeDirectory {
				delete(dst.entries, dn)
				delete(m.nodes, di)
				dst.nlink--
			} else {
				m.drop(dst, dn)
			}
		}
		delete(src.entries, sn)
		dst.entries[dn] = si
		m.reparent(si, sp, dp)
	}
	return op
}

// reparent moves directory ino's ".." from old to new.
func (m *model) reparent(ino, old, new meta.Ino) {
	n := m.nodes[ino]
	if n.typ != meta.TypeDirectory || old == new {
		return
	}
	n.parent = new
	m.nodes[old].nlink--
	m.nodes[new].nlink++
}

func (m *model) usage() meta.Usage {
	var u meta.Usage
	for _, n := range m.nodes {
		u.Inodes++
		if n.typ == meta.TypeFile {
			u.Space += (n.length + 4095) &^ 4095
		}
	}
	return u
}

// compare checks the engine's tree against the model's.
func (m *model) compare(x *env) error {
	var problems []string
	for ino, n := range m.nodes {
		a, err := x.e.GetAttr(x.ctx, ino)
		if err != nil {
			problems = append(problems, fmt.Sprintf("GetAttr %d: %v", ino, err))
			continue
		}
		if a.Type != n.typ || a.Nlink != n.nlink || (n.typ == meta.TypeDirectory && a.Parent != n.parent) || (n.typ == meta.TypeFile && a.Length != n.length) {
			problems = append(problems, fmt.Sprintf("inode %d is %+v; model: type %d nlink %d parent %d length %d", ino, a, n.typ, n.nlink, n.parent, n.length))
		}
		if n.typ != meta.TypeDirectory {
			continue
		}
		var want []string
		for name, child := range n.entries {
			want = append(want, fmt.Sprintf("%s=%d", name, child))
		}
		sort.Strings(want)
		var got []string
		ents, err := x.e.Readdir(x.ctx, ino, "", 1000, false)
		if err != nil {
			problems = append(problems, fmt.Sprintf("Readdir %d: %v", ino, err))
			continue
		}
		for _, en := range ents {
			got = append(got, fmt.Sprintf("%s=%d", en.Name, en.Ino))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			problems = append(problems, fmt.Sprintf("directory %d lists [%s]; model: [%s]", ino, strings.Join(got, " "), strings.Join(want, " ")))
		}
	}
	if u, want := x.usage(), m.usage(); u != want {
		problems = append(problems, fmt.Sprintf("Usage %+v; model %+v", u, want))
	}
	if problems != nil {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// testModel runs seeded random namespace operations, in a few directories
// with few names, against the engine and the model, and checks that each
// fails exactly when the model says and leaves the same tree.
func testModel(x *env) {
	seed := randomSeed(x.t)
	rng := rand.New(rand.NewSource(seed))
	m := newModel()
	pick := func(list []meta.Ino) meta.Ino { return list[rng.Intn(len(list))] }
	name := func() string { return fmt.Sprintf("%c", 'a'+rng.Intn(5)) }
	var history []string
	for step := 0; step < 400; step++ {
		dirs := m.dirs()
		p, q := pick(dirs), pick(dirs)
		var op mop
		var run func() error
		switch k := rng.Intn(12); {
		case k < 2:
			nm, ino := name(), x.newIno()
			op = m.mknod(p, nm, ino, meta.TypeFile)
			run = func() error {
				_, err := x.e.Mknod(x.ctx, meta.RootCred, p, nm, ino, meta.TypeFile, 0644, 0, "")
				return err
			}
		case k < 4:
			nm, ino := name(), x.newIno()
			op = m.mknod(p, nm, ino, meta.TypeDirectory)
			run = func() error {
				_, err := x.e.Mknod(x.ctx, meta.RootCred, p, nm, ino, meta.TypeDirectory, 0755, 0, "")
				return err
			}
		case k < 5:
			ents := m.nodes[p].entries
			if len(ents) == 0 {
				continue
			}
			var names []string
			for n := range ents {
				names = append(names, n)
			}
			sort.Strings(names)
			target := ents[names[rng.Intn(len(names))]]
			nm := name()
			op = m.link(target, q, nm)
			run = func() error {
				_, err := x.e.Link(x.ctx, meta.RootCred, target, q, nm)
				return err
			}
		case k < 6:
			nm := name()
			op = m.unlink(p, nm)
			run = func() error {
				ino, a, err := x.e.Unlink(x.ctx, meta.RootCred, p, nm, x.sid)
				if err == nil && a.Nlink == 0 {
					err = x.e.ReleaseOrphan(x.ctx, x.sid, ino)
				}
				return err
			}
		case k < 7:
			nm := name()
			op = m.rmdir(p, nm)
			run = func() error { return x.e.Rmdir(x.ctx, meta.RootCred, p, nm) }
		case k < 11:
			sn, dn := name(), name()
			flags := []uint32{0, 0, meta.RenameNoReplace, meta.RenameExchange}[rng.Intn(4)]
			op = m.rename(p, sn, q, dn, flags)
			run = func() error {
				_, _, replaced, err := x.e.Rename(x.ctx, meta.RootCred, p, sn, q, dn, flags, x.sid)
				if err == nil && replaced != 0 {
					err = x.e.ReleaseOrphan(x.ctx, x.sid, replaced)
				}
				return err
			}
		default:
			nm := name()
			ino, ok := m.nodes[p].entries[nm]
			if !ok || m.nodes[ino].typ != meta.TypeFile {
				continue
			}
			length := uint64(rng.Intn(3 * 4096))
			op = mop{what: fmt.Sprintf("Truncate %d to %d", ino, length), apply: func() { m.nodes[ino].length = length }}
			run = func() error {
				_, err := x.e.Truncate(x.ctx, meta.RootCred, ino, length)
				return err
			}
		}
		history = append(history, op.what)
		err := run()
		switch {
		case op.allowed == nil && err != nil:
			x.t.Fatalf("seed %d (METATEST_SEED replays it) step %d: %s: unexpected error %v\nlast operations:\n%s", seed, step, op.what, err, tail(history))
		case op.allowed != nil && err == nil:
			x.t.Fatalf("seed %d (METATEST_SEED replays it) step %d: %s succeeded; Linux fails it with %v\nlast operations:\n%s", seed, step, op.what, op.allowed, tail(history))
		case op.allowed != nil && !isAny(err, op.allowed):
			x.t.Fatalf("seed %d (METATEST_SEED replays it) step %d: %s: got error %v, want %v\nlast operations:\n%s", seed, step, op.what, err, op.allowed, tail(history))
		}
		if op.apply != nil {
			op.apply()
		}
		if step%25 == 24 {
			if err := m.compare(x); err != nil {
				x.t.Fatalf("seed %d after step %d the engine differs from the model:\n%v\nlast operations:\n%s", seed, step, err, tail(history))
			}
		}
	}
	if err := m.compare(x); err != nil {
		x.t.Fatalf("seed %d: at the end the engine differs from the model:\n%v", seed, err)
	}
}

func isAny(err error, list []error) bool {
	for _, e := range list {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func tail(history []string) string {
	if len(history) > 25 {
		history = history[len(history)-25:]
	}
	return "  " + strings.Join(history, "\n  ")
}
