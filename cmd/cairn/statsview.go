package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"cairn/chunk"
	"cairn/vfs"
)

// mountSample is one read of a mount's .stats file.
type mountSample struct {
	at     time.Time
	stats  vfs.Stats
	blocks chunk.Stats
}

// opRate is one operation's traffic between two samples.
type opRate struct {
	name   string
	perSec float64
	meanUs float64
}

// opRates returns the operations under prefix ("fuse." or "meta.") that
// ran between a and b, busiest first.
func opRates(a, b mountSample, prefix string) []opRate {
	secs := b.at.Sub(a.at).Seconds()
	var out []opRate
	for name, now := range b.stats.Ops {
		op, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		was := a.stats.Ops[name]
		n := float64(now.Count) - float64(was.Count)
		if n <= 0 {
			continue
		}
		spent := now.MeanUs*float64(now.Count) - was.MeanUs*float64(was.Count)
		out = append(out, opRate{name: op, perSec: n / secs, meanUs: spent / n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].perSec != out[j].perSec {
			return out[i].perSec > out[j].perSec
		}
		return out[i].name < out[j].name
	})
	return out
}

// maxOpsShown bounds the operations listed per layer, as top lists the
// busiest processes.
const maxOpsShown = 8

// renderStats writes the view of what the mount at dir did between
// samples a and b.
func renderStats(w io.Writer, dir string, a, b mountSample) {
	secs := b.at.Sub(a.at).Seconds()
	rate := func(now, was int64) float64 { return float64(now-was) / secs }
	fmt.Fprintf(w, "cairn stats %s   %s   (every %.1fs)\n\n", dir, b.at.Format("15:04:05"), secs)
	for _, layer := range []struct{ title, prefix string }{{"FUSE requests", "fuse."}, {"metadata engine calls", "meta."}} {
		ops := opRates(a, b, layer.prefix)
		var total float64
		for _, o := range ops {
			total += o.perSec
		}
		fmt.Fprintf(w, "%-24s %10.0f ops/s\n", layer.title, total)
		for i, o := range ops {
			if i == maxOpsShown {
				fmt.Fprintf(w, "  … %d more\n", len(ops)-maxOpsShown)
				break
			}
			fmt.Fprintf(w, "  %-20s %10.0f ops/s %10.0f µs\n", o.name, o.perSec, o.meanUs)
		}
	}
	sa, sb := a.stats, b.stats
	fmt.Fprintf(w, "%-24s %10.0f /s\n", "engine round trips", float64(sb.Engine.RoundTrips-sa.Engine.RoundTrips)/secs)
	fmt.Fprintf(w, "\nthroughput  read %s  written %s\n",
		bytesRate(rate(int64(sb.ReadBytes), int64(sa.ReadBytes))), bytesRate(rate(int64(sb.WrittenBytes), int64(sa.WrittenBytes))))
	ba, bb := a.blocks, b.blocks
	hits := (bb.MemHits - ba.MemHits) + (bb.CacheHits - ba.CacheHits)
	misses := bb.CacheMisses - ba.CacheMisses
	ratio := "-"
	if hits+misses > 0 {
		ratio = fmt.Sprintf("%.0f%%", 100*float64(hits)/float64(hits+misses))
	}
	fmt.Fprintf(w, "cache       hit ratio %s  (%d hits, %d misses)  disk cache %s\n", ratio, hits, misses, humanBytes(uint64(bb.CacheBytes)))
	fmt.Fprintf(w, "objects     put %.0f/s %s  get %.0f/s %s  errors %d\n",
		rate(bb.Puts, ba.Puts), bytesRate(rate(bb.BytesUp, ba.BytesUp)),
		rate(bb.Gets, ba.Gets), bytesRate(rate(bb.BytesDown, ba.BytesDown)),
		(bb.PutErrors-ba.PutErrors)+(bb.GetErrors-ba.GetErrors))
	fmt.Fprintf(w, "buffers     not committed %s  staged %d blocks  uploading %d\n",
		humanBytes(sb.BufferedBytes), bb.Staged, bb.Uploading)
	fmt.Fprintf(w, "volume      %s in %d inodes\n", humanBytes(sb.Usage.Space), sb.Usage.Inodes)
}

// bytesRate writes a rate of bytes per second, as humanBytes does.
func bytesRate(perSec float64) string { return humanBytes(uint64(max(perSec, 0))) + "/s" }
