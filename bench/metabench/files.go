package metabench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFiles writes the Markdown report to path and, beside it, one SVG
// chart per operation group named after the report (report.md:
// report-files.svg, …), linked from the report.
func (r *Report) WriteFiles(path string) error {
	base := strings.TrimSuffix(path, filepath.Ext(path))
	charts := map[string]string{}
	for _, g := range Groups {
		svg := r.SVG(g)
		if svg == nil {
			continue
		}
		p := base + "-" + g + ".svg"
		if err := os.WriteFile(p, svg, 0644); err != nil {
			return fmt.Errorf("write chart: %w", err)
		}
		charts[g] = filepath.Base(p)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if err := r.WriteMarkdown(f, charts); err != nil {
		f.Close()
		return fmt.Errorf("write the report %s: %w", path, err)
	}
	return f.Close()
}
