package exec

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Batch limits: MongoDB returns at most 101 documents in a first batch by
// default, and at most 16 MB per batch.
const (
	DefaultFirstBatch = 101
	maxBatchBytes     = 16 * 1024 * 1024
	cursorIdleTimeout = 10 * time.Minute
)

// Cursor is a query result the client reads in batches.
type Cursor struct {
	ID int64
	NS string
	it Iterator
	// Limit (0 = none) closes the cursor as soon as that many documents
	// were returned, so the last batch reports cursor id 0 as MongoDB's does.
	Limit int64
	sent  int64

	// Tailable cursors stay open at the end of data; Wait (if set) blocks
	// until more may be available.
	Tailable  bool
	AwaitData bool
	Wait      func(ctx context.Context) error

	// Owners are the users ("db.user") authenticated on the connection
	// that opened the cursor under --auth (nil without auth): the command
	// layer lets only a connection sharing one of them use the cursor.
	Owners []string

	// TimeLimited: the cursor was opened with maxTimeMS, so its getMores
	// run with a time limit too (the maxTimeAlwaysTimeOut fail point).
	TimeLimited bool

	// Interrupt, when set, is asked before each document of a batch; an
	// error (killOp's Interrupted) closes the cursor and fails the batch.
	Interrupt func() error

	mu      sync.Mutex // one getMore at a time
	lastUse time.Time
	done    bool
}

// NewCursor wraps it. ns is "db.coll" as getMore must name it.
func NewCursor(ns string, it Iterator) *Cursor {
	return &Cursor{NS: ns, it: it, lastUse: time.Now()}
}

// NextBatch returns up to n documents (n <= 0: no count limit) and whether
// the cursor is exhausted.
func (c *Cursor) NextBatch(ctx context.Context, n int) (bson.A, bool, error) {
	out := bson.A{}
	size := 0
	for n <= 0 || len(out) < n {
		if c.Interrupt != nil {
			if err := c.Interrupt(); err != nil {
				c.close()
				return nil, true, err
			}
		}
		r, ok := c.it.Next()
		if !ok {
			if err := c.it.Err(); err != nil {
				c.close()
				return nil, true, err
			}
			if c.Tailable && len(out) == 0 && c.AwaitData && c.Wait != nil {
				if werr := c.Wait(ctx); werr == nil {
					continue
				}
			}
			if !c.Tailable {
				c.close()
			}
			return out, c.done, nil
		}
		b, err := r.Bytes()
		if err != nil {
			c.close()
			return nil, true, err
		}
		n := len(b) + arrayElemOverhead(len(out))
		if size+n > maxBatchBytes && len(out) > 0 {
			c.it = &pushBack{row: r, in: c.it}
			break
		}
		size += n
		out = append(out, bson.Raw(b))
		c.sent++
		if c.Limit > 0 && c.sent >= c.Limit {
			c.close()
			break
		}
	}
	return out, c.done, nil
}

// arrayElemOverhead is what the i-th document adds to the reply besides
// its own bytes: the element's type byte and its array index as a
// NUL-terminated decimal key. Counting it keeps a batch of many small
// documents under the 16 MB reply limit.
func arrayElemOverhead(i int) int {
	digits := 1
	for i >= 10 {
		i /= 10
		digits++
	}
	return 2 + digits
}

// Close releases an unregistered cursor's resources.
func (c *Cursor) Close() { c.close() }

func (c *Cursor) close() {
	if !c.done {
		c.done = true
		_ = c.it.Close()
	}
}

// pushBack returns row before the rest of in.
type pushBack struct {
	row *Row
	in  Iterator
}

func (p *pushBack) Next() (*Row, bool) {
	if p.row != nil {
		r := p.row
		p.row = nil
		return r, true
	}
	return p.in.Next()
}

func (p *pushBack) Err() error { return p.in.Err() }
func (p *pushBack) Close() error {
	p.row = nil
	return p.in.Close()
}

// Cursors is the server-wide registry of open cursors.
type Cursors struct {
	mu       sync.Mutex
	byID     map[int64]*Cursor
	lastReap time.Time
}

func newCursors() *Cursors { return &Cursors{byID: map[int64]*Cursor{}} }

// Register stores c and gives it an id.
func (cs *Cursors) Register(c *Cursor) int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if now := time.Now(); now.Sub(cs.lastReap) > time.Minute {
		cs.lastReap = now
		cs.reapLocked(now)
	}
	for {
		id := rand.Int64N(1<<62) + 1
		if _, taken := cs.byID[id]; !taken {
			c.ID = id
			cs.byID[id] = c
			return id
		}
	}
}

// Checkout returns cursor id for ns, locked for one getMore.
func (cs *Cursors) Checkout(id int64, ns string) (*Cursor, error) {
	cs.mu.Lock()
	c, ok := cs.byID[id]
	cs.mu.Unlock()
	if !ok {
		return nil, mongoerr.New(mongoerr.CursorNotFound, "cursor id %d not found", id)
	}
	if c.NS != ns {
		return nil, mongoerr.New(mongoerr.Unauthorized, "Requested getMore on namespace '%s', but cursor belongs to a different namespace %s", ns, c.NS)
	}
	if !c.mu.TryLock() {
		return nil, mongoerr.New(mongoerr.CursorNotFound, "cursor id %d is already in use", id)
	}
	return c, nil
}

// OwnersOf returns cursor id's Owners; false if there is no such cursor.
func (cs *Cursors) OwnersOf(id int64) ([]string, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.byID[id]
	if !ok {
		return nil, false
	}
	return c.Owners, true
}

// Release unlocks c after a getMore, dropping it when exhausted.
func (cs *Cursors) Release(c *Cursor) {
	c.lastUse = time.Now()
	done := c.done
	c.mu.Unlock()
	if done {
		cs.Kill(c.ID)
	}
}

// Kill closes and forgets cursor id; false if there was none.
func (cs *Cursors) Kill(id int64) bool {
	cs.mu.Lock()
	c, ok := cs.byID[id]
	delete(cs.byID, id)
	cs.mu.Unlock()
	if ok {
		c.mu.Lock()
		c.close()
		c.mu.Unlock()
	}
	return ok
}

// KillNS closes every cursor on namespace ns and returns how many.
func (cs *Cursors) KillNS(ns string) int {
	cs.mu.Lock()
	var ids []int64
	for id, c := range cs.byID {
		if c.NS == ns {
			ids = append(ids, id)
		}
	}
	cs.mu.Unlock()
	n := 0
	for _, id := range ids {
		if cs.Kill(id) {
			n++
		}
	}
	return n
}

// Open returns how many cursors are open.
func (cs *Cursors) Open() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.byID)
}

// reapLocked drops cursors idle longer than the timeout.
// REQUIRES: cs.mu
func (cs *Cursors) reapLocked(now time.Time) {
	for id, c := range cs.byID {
		if c.mu.TryLock() {
			if now.Sub(c.lastUse) > cursorIdleTimeout {
				c.close()
				delete(cs.byID, id)
			}
			c.mu.Unlock()
		}
	}
}

func (cs *Cursors) killAll() {
	cs.mu.Lock()
	ids := make([]int64, 0, len(cs.byID))
	for id := range cs.byID {
		ids = append(ids, id)
	}
	cs.mu.Unlock()
	for _, id := range ids {
		cs.Kill(id)
	}
}
