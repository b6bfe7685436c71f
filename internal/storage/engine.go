// Package storage is the only package that imports Pebble. It provides an
// Engine (one Pebble DB per data directory), batches, iterators, snapshots
// and group commit.
//
// Invariants:
//   - keys.go lists every key prefix; nothing else is written.
//   - The data format version is written at creation and checked at open; a
//     newer or unknown version refuses to open.
//   - A directory is used by one process at a time (ErrLocked otherwise).
//   - Commit sequence numbers are assigned after the batch is applied, so
//     seq <= committed implies the batch is in the WAL; a WAL sync that
//     starts after reading committed makes every seq <= that value durable.
//   - A failed commit or WAL sync calls Fatal: continuing after a lost
//     durable write could corrupt data.
package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
)

// ErrLocked is returned by Open when another process uses the directory.
var ErrLocked = errors.New("dbpath is locked by another relaydb process")

// ErrFormatVersion is returned by Open for a newer or unknown data format.
var ErrFormatVersion = errors.New("unsupported data format version")

// Fatal stops the process after a failed durable write. Tests may replace it.
var Fatal = func(logger *slog.Logger, msg string, err error) {
	logger.Error(msg, "err", err)
	os.Exit(1)
}

// Options configure Open.
type Options struct {
	// Dir is the data directory (created if missing). Ignored when InMemory.
	Dir string
	// InMemory keeps everything in memory (tests, simulator).
	InMemory bool
	// FS overrides the file system when InMemory (share one vfs.NewMem
	// between Opens to simulate restarts). Optional.
	FS vfs.FS
	// ReadOnly opens without writing (tool verify).
	ReadOnly bool
	// CommitInterval is the background WAL sync period; default 100ms.
	CommitInterval time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// CacheSizeMB is the block cache size; 0 = DefaultCacheSizeMB.
	CacheSizeMB int
	// DocCacheMB is the document cache size; 0 = DefaultDocCacheMB.
	DocCacheMB int
}

// Engine is one open data directory.
type Engine struct {
	db     *pebble.DB
	lock   io.Closer
	logger *slog.Logger
	opts   Options
	cache  *docCache // latest committed documents (see doccache.go)
	docMax docMax    // per-collection document key bounds (docmax.go)

	committed atomic.Uint64 // last assigned commit seq (batch applied)
	durable   atomic.Uint64 // every seq <= durable is synced
	syncs     atomic.Uint64 // number of WAL syncs performed

	syncMu   sync.Mutex
	syncDone chan struct{} // closed after each sync; REQUIRES: syncMu
	syncReq  chan struct{} // buffered(1) request for the syncer

	stop chan struct{}
	wg   sync.WaitGroup

	beforeSync func() // test hook: runs before each WAL sync
}

// pebbleLogger routes Pebble's logs to slog (info at debug level: Pebble
// is chatty about WAL replay).
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	Fatal(p.l, "pebble fatal", fmt.Errorf(format, args...))
}

// Open opens (creating if needed) the data directory described by opts.
func Open(opts Options) (*Engine, error) {
	if opts.CommitInterval <= 0 {
		opts.CommitInterval = 100 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	e := &Engine{logger: opts.Logger, opts: opts, cache: newDocCache(opts.DocCacheMB), syncDone: make(chan struct{}),
		syncReq: make(chan struct{}, 1), stop: make(chan struct{})}
	popts := pebbleOptions(opts)
	defer popts.Cache.Unref()
	dir := opts.Dir
	if opts.InMemory {
		popts.FS = opts.FS
		if popts.FS == nil {
			popts.FS = vfs.NewMem()
		}
		dir = "db"
	} else {
		if opts.ReadOnly {
			if err := checkStore(opts.Dir); err != nil { // readonly.go
				return nil, err
			}
		}
		if err := e.lockDir(opts.Dir); err != nil {
			return nil, err
		}
	}
	db, err := pebble.Open(dir, popts)
	if err != nil {
		e.unlock()
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	e.db = db
	if err := e.checkFormat(); err != nil {
		_ = db.Close()
		e.unlock()
		return nil, err
	}
	if !opts.ReadOnly {
		e.wg.Add(1)
		go e.syncLoop()
	}
	return e, nil
}

// lockDir takes the relaydb.lock file lock of dir.
func (e *Engine) lockDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("storage: create dbpath: %w", err)
	}
	l, err := vfs.Default.Lock(filepath.Join(dir, "relaydb.lock"))
	if err != nil {
		return fmt.Errorf("%w: %s (%v)", ErrLocked, dir, err)
	}
	e.lock = l
	return nil
}

func (e *Engine) unlock() {
	if e.lock != nil {
		_ = e.lock.Close()
		e.lock = nil
	}
}

// checkFormat writes the format version into a new directory, or checks it.
func (e *Engine) checkFormat() error {
	v, ok, err := e.Get(KeyFormatVersion)
	if err != nil {
		return fmt.Errorf("storage: read format version: %w", err)
	}
	if !ok {
		if e.opts.ReadOnly {
			return fmt.Errorf("%w: no format version (not a relaydb dbpath?)", ErrFormatVersion)
		}
		var buf [4]byte
		binary.BigEndian.PutUint32(buf[:], FormatVersion)
		return e.db.Set(KeyFormatVersion, buf[:], pebble.Sync)
	}
	if len(v) != 4 {
		return fmt.Errorf("%w: malformed (%d bytes)", ErrFormatVersion, len(v))
	}
	if got := binary.BigEndian.Uint32(v); got != FormatVersion {
		return fmt.Errorf("%w: dbpath has version %d, this build supports %d", ErrFormatVersion, got, FormatVersion)
	}
	return nil
}

// Close syncs the WAL and closes the engine.
func (e *Engine) Close() error {
	close(e.stop)
	e.wg.Wait()
	var err error
	if !e.opts.ReadOnly {
		err = e.db.LogData(nil, pebble.Sync)
	}
	if cerr := e.db.Close(); err == nil {
		err = cerr
	}
	e.unlock()
	return err
}

// Get returns a copy of the value of key at the latest committed state.
// A document key is served from the document cache when present; the
// returned slice is shared and must not be modified.
func (e *Engine) Get(key []byte) ([]byte, bool, error) {
	if !isDocKey(key) {
		return get(e.db, key)
	}
	v, ok, gen := e.cache.get(key)
	if ok {
		return v, true, nil
	}
	v, found, err := get(e.db, key)
	if err == nil && found {
		e.cache.put(key, v, gen)
	}
	return v, found, err
}

type getter interface {
	Get(key []byte) ([]byte, io.Closer, error)
}

func get(g getter, key []byte) ([]byte, bool, error) {
	v, closer, err := g.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := append([]byte(nil), v...)
	return out, true, closer.Close()
}

// Metrics is a snapshot of engine counters.
type Metrics struct {
	Committed uint64 // batches committed
	Durable   uint64 // highest commit seq known synced
	Syncs     uint64 // WAL syncs performed by the syncer
	DiskBytes uint64 // approximate on-disk size
}

// Committed returns the sequence of the newest committed batch: every batch
// whose commit returned before the call has a sequence <= it.
func (e *Engine) Committed() uint64 { return e.committed.Load() }

// Metrics returns current counters.
func (e *Engine) Metrics() Metrics {
	m := e.db.Metrics()
	return Metrics{Committed: e.committed.Load(), Durable: e.durable.Load(),
		Syncs: e.syncs.Load(), DiskBytes: m.DiskSpaceUsage()}
}
