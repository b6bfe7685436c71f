package suite

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseScale(t *testing.T) {
	cases := []struct {
		in   string
		want []int64
		err  bool
	}{
		{"", nil, false},
		{"100000,1000000", []int64{100000, 1000000}, false},
		{"100k, 1m,10M", []int64{100000, 1000000, 10000000}, false},
		{"0", nil, true},
		{"lots", nil, true},
		{"1m,", nil, true},
	}
	for _, c := range cases {
		got, err := ParseScale(c.in)
		if (err != nil) != c.err || len(got) != len(c.want) {
			t.Errorf("ParseScale(%q) = %v, %v", c.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("ParseScale(%q) = %v, want %v", c.in, got, c.want)
			}
		}
	}
}

func TestScaleMarkdown(t *testing.T) {
	md := scaleMarkdown([]ScaleEntry{
		{Records: 100000, InsertCPUPerOp: 70, InsertOpsPerSec: 9000, SettleSeconds: 1, ReadCPUPerOp: 30, ReadOpsPerSec: 20000, RSSMB: 300, DiskMB: 500},
		{Records: 1000000, InsertCPUPerOp: 80, InsertOpsPerSec: 8000, SettleSeconds: 7.5, ReadCPUPerOp: 33, ReadOpsPerSec: 19000, RSSMB: 1500, DiskMB: 2400},
		{Records: 10000000, Skipped: "needs about 31000 MB of free disk, 20000 MB free"},
	}, 100000)
	for _, want := range []string{
		"## Scale series", "chunks of 100000 records",
		"| 100000 | 70.0 | 9000 | 1.0 | 30.0 | 20000 | 1.00x | 300 | 500 |",
		"| 1000000 | 80.0 | 8000 | 7.5 | 33.0 | 19000 | 1.10x | 1500 | 2400 |",
		"| 10000000 | skipped: needs about 31000 MB of free disk, 20000 MB free |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("scale table lacks %q:\n%s", want, md)
		}
	}
	if scaleMarkdown(nil, 1) != "" {
		t.Error("a report without a scale series has a scale table")
	}
}

// TestScaleSeriesTiny runs the scale series alone against nodes it starts
// (two tiny scales loaded in chunks of 200), with the free disk faked so
// the larger one is skipped.
func TestScaleSeriesTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	bin := os.Getenv("RELAYDB_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "relaydb")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/relaydb/relaydb/cmd/relaydb").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	old := freeDisk
	freeDisk = func(string) (uint64, error) { return scaleDiskNeed(700), nil }
	t.Cleanup(func() { freeDisk = old })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	rep, err := Run(ctx, Config{Binary: bin, Name: "scale", OperationCount: 300, Scale: []int64{300, 500, 1000},
		ScaleChunk: 200, ScaleOnly: true, Log: &log, Seed: 1})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(rep.Entries) != 0 || len(rep.Scale) != 3 {
		t.Fatalf("%d entries, %d scales:\n%s", len(rep.Entries), len(rep.Scale), log.String())
	}
	for _, e := range rep.Scale[:2] {
		if e.Skipped != "" || e.InsertCPUPerOp <= 0 || e.ReadCPUPerOp <= 0 || e.ReadOperations != 300 || e.RSSMB <= 0 || e.DiskMB <= 0 ||
			e.SettleSeconds < settleWindow.Seconds() {
			t.Errorf("scale %d: %+v", e.Records, e)
		}
	}
	if s := rep.Scale[2]; s.Skipped == "" || !strings.Contains(s.Skipped, "free disk") {
		t.Errorf("scale 1000 not skipped for disk: %+v", s)
	}
	if !strings.Contains(Markdown(rep, "x"), "| 500 |") {
		t.Errorf("markdown lacks the 500-record scale:\n%s", Markdown(rep, "x"))
	}
}
