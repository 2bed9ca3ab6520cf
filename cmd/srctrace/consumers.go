package main

import (
	"context"

	"github.com/srctrace/srctrace/trace/layers"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/source"
)

// consumers reads the study's consumers (--kubernetes) beside the etcd
// release. When the release is known up front and the consumer was loaded
// with it before, the reading starts at once and runs beside the study,
// quietly (the progress line shows one piece of work at a time); else it
// runs after the study, with its progress (a first load compiles for
// minutes).
type consumers struct {
	opts   *errcompactedOptions
	ch     chan consumed
	cancel context.CancelFunc
}

type consumed struct {
	res *layers.Result
	err error
}

// release is the consumer release asked for ("" chooses).
func (o *errcompactedOptions) consumerRelease() string {
	if o.kubernetes == "auto" {
		return ""
	}
	return o.kubernetes
}

func startConsumers(ctx context.Context, opts *errcompactedOptions) *consumers {
	c := &consumers{opts: opts}
	if opts.kubernetes == "" || opts.dir != "" || opts.study.Consumers == nil {
		return c
	}
	v := opts.version
	if v == "" {
		d, err := source.DefaultVersion(opts.study.Module)
		if err != nil {
			return c
		}
		v = d
	}
	if !layers.Warm(opts.study.Consumers, opts.cacheDir, v, opts.consumerRelease()) {
		return c
	}
	ctx, c.cancel = context.WithCancel(progress.With(ctx, nil))
	c.ch = make(chan consumed, 1)
	go func() {
		res, err := c.read(ctx, v)
		c.ch <- consumed{res, err}
	}()
	return c
}

func (c *consumers) read(ctx context.Context, producer string) (*layers.Result, error) {
	return layers.Run(ctx, layers.Options{Spec: c.opts.study.Consumers, Producer: producer, Release: c.opts.consumerRelease(),
		CacheDir: c.opts.cacheDir, Env: c.opts.env})
}

// result is the consumers read beside producer, the release the study
// read: what the early start read, or read now.
func (c *consumers) result(ctx context.Context, producer string) (*layers.Result, error) {
	if c.ch != nil {
		r := <-c.ch
		c.ch = nil
		if r.err != nil || r.res.Layers.Producer == producer {
			return r.res, r.err
		}
		r.res.Close()
	}
	return c.read(ctx, producer)
}

// stop ends an early start that is still running and removes what it made.
func (c *consumers) stop() {
	if c.ch == nil {
		return
	}
	c.cancel()
	if r := <-c.ch; r.res != nil {
		r.res.Close()
	}
	c.ch = nil
}

// readConsumers puts the consumers' layers into rep, and, with --lab,
// their lab's record.
func readConsumers(ctx context.Context, opts *errcompactedOptions, cons *consumers, rep *report.Report) error {
	res, err := cons.result(ctx, rep.Etcd.Version)
	if err != nil {
		return err
	}
	defer res.Close()
	rep.Layers = res.Layers
	if !opts.lab || res.Layers.Release == "" {
		return nil
	}
	run, err := layers.RunLab(ctx, res, opts.cacheDir)
	if err != nil {
		return err
	}
	rep.Layers.Lab, rep.Layers.LabMs, rep.Layers.LabBuildMs = run.Record, run.Ms, run.BuildMs
	return nil
}
