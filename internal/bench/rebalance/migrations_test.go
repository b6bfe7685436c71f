package rebalance

import (
	"strings"
	"testing"
	"time"
)

const sampleLog = `{"time":"2026-11-28T06:08:23.5Z","level":"INFO","msg":"migration finished","ns":"ycsb.usertable","range":"[a, b)","to":"sh2","decision":"committed","reason":"","took":"500ms","cloned":619,"clonedBytes":1000000,"poll-recipient":"22ms"}
{"time":"2026-11-28T06:08:24Z","level":"INFO","msg":"balancer moved a range","ns":"ycsb.usertable"}
not json "migration finished"
{"time":"2026-11-28T06:08:25Z","level":"INFO","msg":"migration finished","ns":"other.c","took":"1s","decision":"committed"}
{"time":"2026-11-28T06:08:26Z","level":"INFO","msg":"migration finished","ns":"ycsb.usertable","range":"[b, c)","to":"sh3","decision":"aborted","took":"2s"}
{"time":"2026-11-28T06:08:27Z","level":"INFO","msg":"migration finished","ns":"ycsb.usertable","range":"[c, d)","to":"sh3","decision":"committed","took":"1s","cloned":10,"clonedBytes":4000000}
`

func TestParseMigrations(t *testing.T) {
	ms, err := ParseMigrations(strings.NewReader(sampleLog), "ycsb.usertable")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 {
		t.Fatalf("got %d migrations, want 3: %+v", len(ms), ms)
	}
	m := ms[0]
	if m.To != "sh2" || m.TookMs != 500 || m.ClonedBytes != 1000000 || m.Cloned != 619 || m.Decision != "committed" {
		t.Errorf("first: %+v", m)
	}
	if got := m.MiBPerSec(); got < 1.9 || got > 1.91 {
		t.Errorf("MiB/s = %v", got)
	}
}

func TestSummarizeMoves(t *testing.T) {
	ms, _ := ParseMigrations(strings.NewReader(sampleLog), "ycsb.usertable")
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	cases := []struct {
		name            string
		from, to        time.Time
		count, aborted  int
		bytes           int64
		mbs, med, activ float64
	}{
		{"all", at("2026-11-28T06:08:20Z"), at("2026-11-28T06:08:30Z"), 2, 1, 5000000, 0.5, 3, 1.5 / 1.5},
		{"first only", at("2026-11-28T06:08:20Z"), at("2026-11-28T06:08:25Z"), 1, 0, 1000000, 0.2, 2, 2},
		{"none", at("2026-11-28T06:09:00Z"), at("2026-11-28T06:09:10Z"), 0, 0, 0, 0, 0, 0},
	}
	for _, c := range cases {
		mv := SummarizeMoves(ms, c.from, c.to)
		if mv.Count != c.count || mv.Aborted != c.aborted || mv.Bytes != c.bytes || mv.MBPerSec != c.mbs || mv.PerMigMedMB != c.med {
			t.Errorf("%s: %+v", c.name, mv)
		}
		if c.name == "all" && (mv.ActiveSecs != 4 || mv.ActiveMBSec != 1.25 || mv.PerMigMinMB != 2 || mv.PerMigMaxMB != 4 || mv.MaxParallel != 1) {
			t.Errorf("%s: span/min/max/parallel %+v", c.name, mv)
		}
	}
}

func TestMaxParallel(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mig := func(startMs, endMs int) Migration {
		return Migration{End: t0.Add(time.Duration(endMs) * time.Millisecond), TookMs: float64(endMs - startMs)}
	}
	cases := []struct {
		ms   []Migration
		want int
	}{
		{nil, 0},
		{[]Migration{mig(0, 100)}, 1},
		{[]Migration{mig(0, 100), mig(50, 150)}, 2},
		{[]Migration{mig(0, 100), mig(100, 200)}, 1}, // back to back
		{[]Migration{mig(0, 300), mig(10, 20), mig(15, 40), mig(100, 200)}, 3},
	}
	for i, c := range cases {
		if got := maxParallel(c.ms); got != c.want {
			t.Errorf("case %d: %d, want %d", i, got, c.want)
		}
	}
}
