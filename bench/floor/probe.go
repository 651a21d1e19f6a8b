package floor

import (
	"context"
	"fmt"
	"strings"

	"cairn/meta"
	"cairn/volume"
)

// prober is a connection of the benchmark's own to the volume's database.
type prober struct {
	engine meta.Engine
	probe  meta.FloorProber
}

// openProber connects to the metadata URL a mount reports. The URL has its
// password masked; the engines read it from the environment instead
// (REDIS_PASSWORD, META_PASSWORD), as 'cairn mount' does when the URL
// holds none.
func openProber(maskedURL string) (*prober, error) {
	url := strings.Replace(maskedURL, ":****@", "@", 1)
	e, err := volume.OpenEngine(url)
	if err != nil {
		return nil, fmt.Errorf("connect to the volume's database to measure its floor: %w", err)
	}
	p, ok := e.(meta.FloorProber)
	if !ok {
		e.Close()
		return nil, fmt.Errorf("the %s engine cannot measure its floor (no meta.FloorProber)", e.Name())
	}
	return &prober{engine: e, probe: p}, nil
}

func (p *prober) close() { p.engine.Close() }

// measure returns the mean time of one probe write and one probe read,
// with tasks probes running at once, ops of each per task.
func (p *prober) measure(ctx context.Context, tasks, ops int) (Floor, error) {
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
	write, err := parallel(tasks, each(p.probe.ProbeWrite))
	if err != nil {
		return Floor{}, err
	}
	read, err := parallel(tasks, each(p.probe.ProbeRead))
	if err != nil {
		return Floor{}, err
	}
	return Floor{WriteUs: perOp(write, ops), ReadUs: perOp(read, ops)}, nil
}
