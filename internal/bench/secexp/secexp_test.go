package secexp

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/tests/harness"
)

func sample(v string, run int, load, c float64) Sample {
	// CPU per operation falls as throughput rises: its ratio is the inverse.
	return Sample{Variant: v, Run: run, Load: &bench.Result{Throughput: load, ServerCPUPerOp: 1e6 / load},
		Read: &bench.Result{Throughput: c, ServerCPUPerOp: 1e6 / c}}
}

// TestRatiosAreSideBySide checks that each ratio divides by the plain node
// of the same run and that the verdict follows the median.
func TestRatiosAreSideBySide(t *testing.T) {
	r := &Report{Config: Config{Variants: []string{Plain, Auth, TLS}, Runs: 3}}
	r.Samples = []Sample{
		sample(Plain, 1, 1000, 2000), sample(Auth, 1, 990, 1800), sample(TLS, 1, 800, 1200),
		sample(Plain, 2, 500, 1000), sample(Auth, 2, 480, 990), sample(TLS, 2, 300, 700),
		sample(Plain, 3, 2000, 4000), sample(Auth, 3, 1960, 3960), sample(TLS, 3, 1500, 2000),
	}
	r.finish()
	want := map[string]struct {
		median  float64
		verdict string
	}{
		"auth/load": {0.98, experiment.Pass}, "auth/c": {0.99, experiment.Pass},
		"tls/load": {0.75, experiment.Pass}, "tls/c": {0.6, experiment.Miss},
	}
	if len(r.Ratios) != len(want) {
		t.Fatalf("%d ratios, want %d: %+v", len(r.Ratios), len(want), r.Ratios)
	}
	for _, q := range r.Ratios {
		w := want[q.Variant+"/"+q.Phase]
		if d := q.Median - w.median; d > 1e-9 || d < -1e-9 || q.Verdict != w.verdict {
			t.Errorf("%s %s: median %.4f %s, want %.4f %s (per run %v)", q.Variant, q.Phase, q.Median, q.Verdict, w.median, w.verdict, q.PerRun)
		}
		if p := q.CPUMedian * q.Median; p < 0.999999 || p > 1.000001 {
			t.Errorf("%s %s: CPU ratio median %.4f, want 1/%.4f", q.Variant, q.Phase, q.CPUMedian, q.Median)
		}
	}
}

func TestVariantOrderPutsPlainFirst(t *testing.T) {
	c := Config{Variants: []string{Auth, Plain, TLS}}
	c.defaults()
	if strings.Join(c.Variants, ",") != "plain,auth,tls" {
		t.Fatalf("variants %v", c.Variants)
	}
	if _, err := parseVariant("kerberos"); err == nil {
		t.Fatal("unknown variant accepted")
	}
}

// TestExperimentTiny runs plain and auth nodes with tiny sizes.
func TestExperimentTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	r, err := Execute(ctx, Config{Binary: bin, Variants: []string{Plain, Auth}, Runs: 1, Records: 200, Ops: 300, Threads: 2, Seed: 1, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(r.Samples) != 2 || len(r.Ratios) != 2 {
		t.Fatalf("%d samples, %d ratios\n%s", len(r.Samples), len(r.Ratios), log.String())
	}
	for _, s := range r.Samples {
		if s.Load.Operations != 200 || s.Read.Operations != 300 {
			t.Errorf("%s: %d load and %d read operations", s.Variant, s.Load.Operations, s.Read.Operations)
		}
		for _, o := range append(s.Load.Ops, s.Read.Ops...) {
			if strings.HasSuffix(o.Name, "-FAILED") {
				t.Errorf("%s: %d operations %s", s.Variant, o.Operations, o.Name)
			}
		}
	}
}
