package floor

import (
	"context"
	"fmt"
	"strings"

	"cairn/bench/fsbench"
	"cairn/meta"
	"cairn/volume"
)

// prober is a connection of the benchmark's own to the volume's database.
type prober struct {
	engine meta.Engine
	probe  meta.FloorProber
	masked bool // the URL had its password masked
}

// passwordHint is added to a failure to reach a database whose URL the
// mount reported without its password.
const passwordHint = " (the mount reports its metadata URL without the password: give it in META_PASSWORD, or REDIS_PASSWORD for Redis)"

// openProber connects to the metadata URL a mount reports. The URL has its
// password masked; the engines read it from the environment instead
// (REDIS_PASSWORD, META_PASSWORD), as 'cairn mount' does when the URL
// holds none.
func openProber(maskedURL string) (*prober, error) {
	url := strings.Replace(maskedURL, ":****@", "@", 1)
	masked := url != maskedURL
	e, err := volume.OpenEngine(url)
	if err != nil {
		err = fmt.Errorf("connect to the volume's database to measure its floor: %w", err)
		if masked {
			err = fmt.Errorf("%w%s", err, passwordHint)
		}
		return nil, err
	}
	p, ok := meta.Capability[meta.FloorProber](e)
	if !ok {
		e.Close()
		return nil, fmt.Errorf("the %s engine cannot measure its floor (no meta.FloorProber)", e.Name())
	}
	return &prober{engine: e, probe: p, masked: masked}, nil
}

func (p *prober) close() { p.engine.Close() }

// measure returns the mean time of one probe write and one probe read,
// with tasks probes running at once, ops of each per task.
func (p *prober) measure(ctx context.Context, tasks, ops int) (Floor, error) {
	f, err := p.probeAll(ctx, tasks, ops)
	if err != nil && p.masked {
		err = fmt.Errorf("%w%s", err, passwordHint)
	}
	return f, err
}

func (p *prober) probeAll(ctx context.Context, tasks, ops int) (Floor, error) {
	each := func(f func(context.Context) error) func(int) error {
		return func(int) error {
			for i := 0; i < ops; i++ {
				if err := f(ctx); err != nil {
					return err
				}
			}
			return nil
		}
	}
	write, err := fsbench.Parallel(tasks, each(p.probe.ProbeWrite))
	if err != nil {
		return Floor{}, err
	}
	read, err := fsbench.Parallel(tasks, each(p.probe.ProbeRead))
	if err != nil {
		return Floor{}, err
	}
	return Floor{WriteUs: perOp(write, ops), ReadUs: perOp(read, ops)}, nil
}
