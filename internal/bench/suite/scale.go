package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
)

// The scale series (issue #15 item 4): per record count, a fresh node is
// loaded in chunks and then read (workload C), so the growth of the cost
// per insert and per read with the data size is measured on every run.
const (
	// DefaultScaleChunk is the records per load phase of the series.
	DefaultScaleChunk = 100_000
	// scaleBytesPerRecord estimates a loaded YCSB record on disk (the
	// document, its oplog entry, Pebble's overheads: 2.4 GB for 1M).
	scaleBytesPerRecord = 3 << 10
	// scaleDiskSlack is kept free besides the estimate (WAL, memtables).
	scaleDiskSlack = 2 << 30
	// scaleThreads are the client threads of the series' phases.
	scaleThreads = 8
)

// ScaleEntry is one record count of the scale series.
type ScaleEntry struct {
	Records int64 `json:"records"`
	// Skipped says why the scale did not run (free disk); the figures
	// below are then zero.
	Skipped         string  `json:"skipped,omitempty"`
	InsertCPUPerOp  float64 `json:"insertServerCpuUsPerOp"`
	InsertOpsPerSec float64 `json:"insertOpsPerSec"`
	ReadCPUPerOp    float64 `json:"readServerCpuUsPerOp"`
	ReadOpsPerSec   float64 `json:"readOpsPerSec"`
	ReadOperations  int64   `json:"readOperations"`
	RSSMB           int64   `json:"rssMB"`
	DiskMB          float64 `json:"diskMB"`
	// SettleSeconds is how long the node took, after its load, to go
	// quiet (settle); the CPU it used meanwhile (compactions of what was
	// loaded) is counted in InsertCPUPerOp, not in the reads.
	SettleSeconds float64 `json:"settleSeconds"`
}

// ParseScale parses "100000,1000000" (k and m suffixes allowed: 100k,1m).
func ParseScale(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mult := int64(1)
		switch {
		case strings.HasSuffix(f, "k"):
			mult, f = 1_000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mult, f = 1_000_000, strings.TrimSuffix(f, "m")
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("scale %q: want a positive record count (100000, 100k, 1m)", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// scaleDiskNeed estimates the free bytes a scale of n records needs.
func scaleDiskNeed(n int64) uint64 { return uint64(n)*scaleBytesPerRecord + scaleDiskSlack }

// freeDisk is the free bytes of the file system holding dir (var: tests).
var freeDisk = func(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free disk of %s: %w", dir, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// scales runs the scale series, one fresh server per record count.
func (r *runner) scales(ctx context.Context) error {
	for _, n := range r.cfg.Scale {
		e, err := r.scale(ctx, n)
		if err != nil {
			return fmt.Errorf("scale %d: %w", n, err)
		}
		r.rep.Scale = append(r.rep.Scale, e)
	}
	return nil
}

func (r *runner) scale(ctx context.Context, n int64) (ScaleEntry, error) {
	e := ScaleEntry{Records: n}
	free, err := freeDisk(os.TempDir())
	if err != nil {
		return e, err
	}
	if need := scaleDiskNeed(n); free < need {
		e.Skipped = fmt.Sprintf("needs about %d MB of free disk, %d MB free", need>>20, free>>20)
		fmt.Fprintf(r.cfg.Log, "suite: scale %d skipped: %s\n", n, e.Skipped)
		return e, nil
	}
	srv, err := StartServer(ctx, r.cfg.Binary, io.Discard)
	if err != nil {
		return e, err
	}
	defer srv.Stop()
	ops, cpu, err := r.scaleLoad(ctx, srv.URI, &e)
	if err != nil {
		return e, err
	}
	settleCPU, took, err := settleServer(ctx, srv.URI)
	if err != nil {
		return e, err
	}
	if e.SettleSeconds = took.Seconds(); ops > 0 {
		e.InsertCPUPerOp = float64(cpu+settleCPU) / float64(ops)
	}
	p := r.props("c")
	p["recordcount"] = strconv.FormatInt(n, 10)
	// A first run warms the caches (the document cache holds what the
	// load wrote, as far as it fits, but Pebble's block cache starts
	// cold); the second is measured.
	if _, err := r.quietPhase(ctx, "run", srv.URI, p.Clone()); err != nil {
		return e, err
	}
	res, err := r.quietPhase(ctx, "run", srv.URI, p)
	if err != nil {
		return e, err
	}
	e.ReadCPUPerOp, e.ReadOpsPerSec, e.ReadOperations = res.ServerCPUPerOp, res.Throughput, res.Operations
	e.RSSMB, e.DiskMB = srv.RSSMB(), dirMB(srv.dbPath)
	fmt.Fprintf(r.cfg.Log, "suite: scale %8d: insert %6.1f core-us/op (%6.0f/s), quiet after %.1f s, read %6.1f core-us/op (%6.0f/s), RSS %d MB, disk %.0f MB\n",
		n, e.InsertCPUPerOp, e.InsertOpsPerSec, e.SettleSeconds, e.ReadCPUPerOp, e.ReadOpsPerSec, e.RSSMB, e.DiskMB)
	return e, nil
}

// settleServer waits for the server at uri to go quiet (settle), reading
// its CPU time from serverStatus as the phases do.
func settleServer(ctx context.Context, uri string) (int64, time.Duration, error) {
	m, err := bench.ConnectMongo(ctx, uri, bench.Properties{}, io.Discard)
	if err != nil {
		return 0, 0, err
	}
	defer m.Close()
	return settle(ctx, func(ctx context.Context) (int64, error) {
		us, ok, err := m.ServerCPUMicros(ctx)
		if err == nil && !ok {
			err = errors.New("serverStatus reports no CPU time")
		}
		return us, err
	})
}

// scaleLoad loads e.Records in chunks of ScaleChunk and records the whole
// load's server CPU per insert and throughput; it returns the inserts and
// the server CPU (µs) they took.
func (r *runner) scaleLoad(ctx context.Context, uri string, e *ScaleEntry) (ops, cpu int64, err error) {
	var ms int64
	chunk := r.cfg.ScaleChunk
	for start := int64(0); start < e.Records; start += chunk {
		p := r.props("c")
		p["recordcount"] = strconv.FormatInt(e.Records, 10)
		p["insertstart"] = strconv.FormatInt(start, 10)
		p["insertcount"] = strconv.FormatInt(min(chunk, e.Records-start), 10)
		res, err := r.quietPhase(ctx, "load", uri, p)
		if err != nil {
			return 0, 0, err
		}
		ops, cpu, ms = ops+res.Operations, cpu+res.ServerCPUMicros, ms+res.RunTimeMs
	}
	if ops > 0 {
		e.InsertCPUPerOp = float64(cpu) / float64(ops)
	}
	if ms > 0 {
		e.InsertOpsPerSec = float64(ops) * 1000 / float64(ms)
	}
	return ops, cpu, nil
}

// RSSMB is the server process's resident set in MB (0 if unknown).
func (s *Server) RSSMB() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb >> 10
		}
	}
	return 0
}

// dirMB is the size of the files under dir in MB.
func dirMB(dir string) float64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return float64(total) / (1 << 20)
}

// quietPhase runs one phase of the series at scaleThreads threads; the
// series' phases are not suite entries (they have their own table).
func (r *runner) quietPhase(ctx context.Context, phase, uri string, p bench.Properties) (*bench.Result, error) {
	p["mongodb.url"] = uri
	p["threadcount"] = strconv.Itoa(scaleThreads)
	res, err := bench.RunPhase(ctx, bench.PhaseConfig{Phase: phase, Props: p, Seed: r.cfg.Seed, Stderr: r.cfg.Log})
	if err != nil {
		return nil, fmt.Errorf("%s (%s records): %w", phase, p["recordcount"], err)
	}
	return res, nil
}
