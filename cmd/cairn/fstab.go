package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// defaultFstab is the file 'cairn mount --update-fstab' edits.
const defaultFstab = "/etc/fstab"

// helperPath is where mount(8) looks for the helper of type cairn.
const helperPath = "/sbin/mount.cairn"

// fstabSkipped are the mount flags that do not belong in an fstab line:
// mount.cairn always mounts in the background, and the line is written
// already.
var fstabSkipped = map[string]bool{"background": true, "update-fstab": true, "fstab": true}

// maybeUpdateFstab does what --update-fstab asks, once, in the process
// the user started (not again in the background mount it starts).
func maybeUpdateFstab(fs *pflag.FlagSet, f mountFlags, metaURL, mountpoint string) error {
	if !f.updateFstab {
		if fs.Changed("fstab") {
			return errors.New("--fstab names the file --update-fstab edits; give --update-fstab too")
		}
		return nil
	}
	if os.Getenv(readyEnv) != "" {
		return nil
	}
	options, err := fstabOptions(fs)
	if err != nil {
		return err
	}
	line := fstabLine(metaURL, mountpoint, options)
	replaced, err := updateFstab(f.fstab, mountpoint, line)
	if err != nil {
		return err
	}
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	inform(os.Stderr, "cairn mount: %s the line of %s in %s: %s", verb, mountpoint, f.fstab, line)
	if _, err := os.Stat(helperPath); err != nil {
		warn(os.Stderr, "cairn mount: mount(8) needs %s to mount it from there: run 'cairn install' as root", helperPath)
	}
	return nil
}

// fstabOptions are the flags given to this mount as fstab options
// (cache-size=10737418240, read-only, allow_other, ...), and _netdev:
// the volume needs the network before it can mount.
func fstabOptions(fs *pflag.FlagSet) ([]string, error) {
	options := []string{"_netdev"}
	var err error
	visitGiven(fs, func(fl *pflag.Flag) {
		if fstabSkipped[fl.Name] || err != nil {
			return
		}
		var values []string
		switch v := fl.Value.(type) {
		case *stringList:
			for _, o := range *v {
				for _, opt := range strings.Split(o, ",") {
					if opt != "" {
						values = append(values, opt)
					}
				}
			}
		default:
			value := fl.Value.String()
			if fl.Value.Type() == "bool" && value == "true" {
				values = []string{fl.Name}
			} else {
				values = []string{fl.Name + "=" + value}
			}
		}
		for _, v := range values {
			if strings.Contains(v, ",") {
				err = fmt.Errorf("--%s %q cannot go into fstab: the value holds a comma", fl.Name, fl.Value.String())
				return
			}
		}
		options = append(options, values...)
	})
	return options, err
}

// fstabLine is the fstab line that mounts metaURL at mountpoint.
func fstabLine(metaURL, mountpoint string, options []string) string {
	return fmt.Sprintf("%s %s cairn %s 0 0", fstabEscape(metaURL), fstabEscape(mountpoint), fstabEscape(strings.Join(options, ",")))
}

// fstabEscape writes the characters that would split a field as fstab
// does, in octal.
func fstabEscape(s string) string {
	return strings.NewReplacer(`\`, `\134`, " ", `\040`, "\t", `\011`, "\n", `\012`).Replace(s)
}

func fstabUnescape(s string) string {
	return strings.NewReplacer(`\134`, `\`, `\040`, " ", `\011`, "\t", `\012`, "\n").Replace(s)
}

// updateFstab puts line into the fstab at path in place of the line that
// mounts something at mountpoint, or at the end; it tells whether a line
// was replaced. The file is replaced whole (written beside, then renamed)
// and keeps its mode; one that does not exist is created.
func updateFstab(path, mountpoint, line string) (replaced bool, err error) {
	mode := os.FileMode(0o644)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		text := sc.Text()
		fields := strings.Fields(text)
		if len(fields) >= 2 && !strings.HasPrefix(fields[0], "#") && fstabUnescape(fields[1]) == mountpoint {
			if !replaced {
				out.WriteString(line + "\n")
			}
			replaced = true
			continue
		}
		out.WriteString(text + "\n")
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if !replaced {
		out.WriteString(line + "\n")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fstab-cairn-*")
	if err != nil {
		return false, fmt.Errorf("update %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(out.String()); err != nil {
		tmp.Close()
		return false, fmt.Errorf("update %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, fmt.Errorf("update %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("update %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return false, fmt.Errorf("update %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, fmt.Errorf("update %s: %w", path, err)
	}
	return replaced, nil
}
