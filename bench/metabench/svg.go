package metabench

import (
	"fmt"
	"html"
	"strings"
)

// palette colours the engines' bars, in the order of the report's columns.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"}

// SVG draws a horizontal bar chart of the µs/op of group's operations, one
// bar per engine, all on one linear scale. It returns nil when the group has
// no operation in the report.
func (r *Report) SVG(group string) []byte {
	var ops []Op
	for _, op := range r.Ops {
		if op.Group == group {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 || len(r.Engines) == 0 {
		return nil
	}
	const (
		width, labelW, valueW = 640, 100, 70
		bar, gap              = 14, 10
	)
	// The legend wraps onto as many rows as the engines need.
	type key struct{ x, y int }
	keys := make([]key, len(r.Engines))
	x, y := labelW, 22
	for i, e := range r.Engines {
		w := 14 + 7*len(e.Label) + 16
		if x+w > width && x > labelW {
			x, y = labelW, y+16
		}
		keys[i] = key{x, y}
		x += w
	}
	top := y + 22
	maxNs := 0.0
	for _, e := range r.Engines {
		for _, op := range ops {
			if s, ok := e.Samples[op.Name]; ok {
				maxNs = max(maxNs, s.NsPerOp())
			}
		}
	}
	if maxNs == 0 {
		maxNs = 1
	}
	perOp := len(r.Engines)*bar + gap
	height := top + len(ops)*perOp + 10
	plotW := float64(width - labelW - valueW)

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="4" y="14" font-size="13" font-weight="bold">%s: µs per operation (smaller is better)</text>`+"\n", html.EscapeString(group))
	for i, e := range r.Engines {
		k := keys[i]
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", k.x, k.y, palette[i%len(palette)], k.x+14, k.y+9, html.EscapeString(e.Label))
	}
	for j, op := range ops {
		y := top + j*perOp
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-6, y+len(r.Engines)*bar/2+4, html.EscapeString(op.Name))
		for i, e := range r.Engines {
			s, ok := e.Samples[op.Name]
			if !ok {
				continue
			}
			w := s.NsPerOp() / maxNs * plotW
			by := y + i*bar
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`, labelW, by, w, bar-2, palette[i%len(palette)])
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", float64(labelW)+w+4, by+bar-4, Micros(s.NsPerOp()))
		}
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}
