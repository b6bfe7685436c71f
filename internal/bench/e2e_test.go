package bench_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/suite"
	"github.com/relaydb/relaydb/tests/harness"
)

// startRelaydb starts the real server (built once per test process by
// tests/harness, or $RELAYDB_BIN) until the test ends; ctx ends after
// timeout. It skips in -short mode.
func startRelaydb(t *testing.T, timeout time.Duration) (context.Context, *suite.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := suite.StartServer(ctx, bin, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return ctx, srv
}

// TestLoadAndRunAgainstRelaydb starts the real server and runs a tiny
// load, then workload A and a scan-heavy E, checking YCSB's text output.
func TestLoadAndRunAgainstRelaydb(t *testing.T) {
	ctx, srv := startRelaydb(t, 2*time.Minute)

	props := func(preset string) bench.Properties {
		p, err := bench.Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		p["mongodb.url"] = srv.URI
		p["recordcount"], p["operationcount"], p["threadcount"] = "200", "300", "4"
		return p
	}
	// Workloads d and e both insert keys from recordcount on, as in YCSB:
	// each gets a fresh load.
	for _, w := range []string{"a", "f", "e", "d"} {
		if w == "a" || w == "d" {
			load, err := bench.RunPhase(ctx, bench.PhaseConfig{Phase: bench.PhaseLoad, Props: props("a"), Drop: true, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			ins, ok := load.Op(bench.OpInsert)
			if !ok || ins.Operations != 200 || ins.Returns[bench.StatusOK] != 200 {
				t.Fatalf("load: %+v", load.Ops)
			}
			if !load.ServerCPUKnown || load.ServerCPUMicros <= 0 {
				t.Errorf("server CPU not measured: %+v", load)
			}
		}
		res, err := bench.RunPhase(ctx, bench.PhaseConfig{Phase: bench.PhaseRun, Props: props(w), Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Operations != 300 {
			t.Fatalf("workload %s ran %d operations", w, res.Operations)
		}
		for _, o := range res.Ops {
			if strings.HasSuffix(o.Name, "-FAILED") {
				t.Errorf("workload %s: %d failed %s", w, o.Operations, o.Name)
			}
		}
		var out bytes.Buffer
		if err := bench.WriteText(&out, res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "[OVERALL], Throughput(ops/sec), ") {
			t.Errorf("text output:\n%s", out.String())
		}
		t.Logf("workload %s:\n%s", w, out.String())
	}
}

// TestMainCLI drives "bench load" and "bench run" through Main's flags.
func TestMainCLI(t *testing.T) {
	_, srv := startRelaydb(t, time.Minute)
	var out, errOut bytes.Buffer
	code := bench.Main([]string{"load", "-P", "../../bench/workloads/workloadc", "-p", "recordcount=100",
		"-uri", srv.URI, "-threads", "2", "-drop", "-s=false"}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "[INSERT], Return=OK, 100") {
		t.Fatalf("load exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	code = bench.Main([]string{"run", "-workload", "b", "-p", "recordcount=100", "-p", "operationcount=50",
		"-p", "mongodb.url=" + srv.URI, "-json", "-s=false"}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), `"operations": 50`) {
		t.Fatalf("run exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if code := bench.Main([]string{"run", "-workload", "z"}, &out, &errOut); code != bench.ExitBadOptions {
		t.Fatalf("unknown preset: exit %d", code)
	}
}
