package sim

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/vfs/errorfs"

	"github.com/relaydb/relaydb/internal/storage"
)

// errDiskFault is the error an armed fault injects (errorfs).
var errDiskFault = errors.New("sim: injected disk fault")

// diskFault is one member's fault injection: once armed, the next WAL
// write or sync fails. Pebble calls the injector from its own goroutines,
// hence the atomics.
type diskFault struct {
	armed, failed atomic.Bool
}

func (f *diskFault) reset() {
	f.armed.Store(false)
	f.failed.Store(false)
}

// injector fails m's first WAL write or sync after its fault is armed. A
// process whose durable write fails stops (storage.Fatal) before it
// answers anyone, so the member is cut off from the network at once; the
// driver kills it (keeping only what was synced) after its current step.
func (cl *Cluster) injector(m *Member) errorfs.Injector {
	return errorfs.InjectorFunc(func(op errorfs.Op, path string) error {
		if (op != errorfs.OpFileWrite && op != errorfs.OpFileSync) || !strings.HasSuffix(path, ".log") ||
			!m.fault.armed.CompareAndSwap(true, false) {
			return nil
		}
		m.fault.failed.Store(true)
		cl.net.Isolate(m.host, true)
		return errDiskFault
	})
}

// ArmDiskFault makes member idx's next WAL write or sync fail.
func (cl *Cluster) ArmDiskFault(idx int) {
	m := cl.members[idx]
	if m.alive {
		cl.eventf("disk fault armed on n%d", m.id)
		m.fault.armed.Store(true)
	}
}

// reapFailed kills the members whose disk failed, as storage.Fatal stops
// the process, keeping only what was synced.
func (cl *Cluster) reapFailed() {
	for _, m := range cl.members {
		if m.alive && m.fault.failed.Load() {
			cl.eventf("n%d stopped: durable write failed", m.id)
			if err := cl.powerFail(m); err != nil {
				cl.fail(err)
			}
		}
	}
}

// fatalHook replaces storage.Fatal (os.Exit) once the first cluster is
// created, for the rest of the process (only tests create clusters): an
// injected fault is expected (the member is reaped), any other failed
// durable write fails every run from then on.
type fatalHook struct {
	mu  sync.Mutex
	err error
}

var (
	theFatalHook fatalHook
	hookOnce     sync.Once
)

func installFatalHook() *fatalHook {
	hookOnce.Do(func() {
		h := &theFatalHook
		storage.Fatal = func(logger *slog.Logger, msg string, err error) {
			logger.Error(msg, "err", err)
			if strings.Contains(err.Error(), errDiskFault.Error()) {
				return
			}
			h.mu.Lock()
			if h.err == nil {
				h.err = fmt.Errorf("storage fatal without an injected fault: %s: %w", msg, err)
			}
			h.mu.Unlock()
		}
	})
	return &theFatalHook
}

func (h *fatalHook) unexpected() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}
