package repl

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// WaitWriteConcern blocks until the write at ts (of this primary's term)
// satisfies w and j, the member steps down (PrimarySteppedDown) or ctx
// ends (WriteConcernFailed). Waiters are woken by position changes.
func (c *Coordinator) WaitWriteConcern(ctx context.Context, ts bson.Timestamp, w any, j bool) error {
	if ts.IsZero() {
		return nil
	}
	w, err := normalizeW(w)
	if err != nil || w == 0 {
		return err
	}
	c.mu.Lock()
	if c.mu.topo == nil {
		c.mu.Unlock()
		return nil
	}
	if err := checkSatisfiable(c.mu.topo.Config(), w); err != nil {
		c.mu.Unlock()
		return err
	}
	if acts := c.mu.topo.NoteWriteConcernWait(c.now(), w); len(acts) > 0 { // rarely: the direct readers changed
		c.applyLocked(acts)
		c.publishLocked()
	}
	_, term := c.cat.Oplog().Last()
	op := topology.OpTime{TS: ts, Term: term}
	registered := false
	defer func() {
		if registered {
			c.waiting.Add(-1)
		}
	}()
	for {
		if c.mu.topo.WriteConcernSatisfied(w, j, op) {
			c.mu.Unlock()
			return nil
		}
		if c.mu.topo.Term() != term || c.mu.topo.State() != topology.StatePrimary {
			c.mu.Unlock()
			return mongoerr.New(mongoerr.PrimarySteppedDown, "Primary stepped down while waiting for replication")
		}
		ch := c.mu.changed
		c.mu.Unlock()
		if !registered {
			registered = true
			c.waiting.Add(1)
			c.cat.Engine().RequestSync() // our durable position may be what is missing
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return mongoerr.New(mongoerr.WriteConcernFailed, "waiting for replication timed out")
		case <-c.stop:
			return mongoerr.New(mongoerr.InterruptedAtShutdown, "interrupted at shutdown")
		}
		c.mu.Lock()
	}
}

// normalizeW turns a write concern's w into what the topology takes: an
// int, "majority"/a mode name, or a tag-count map.
func normalizeW(w any) (any, error) {
	switch v := w.(type) {
	case nil:
		return 1, nil
	case string:
		return v, nil
	case bson.D:
		m := map[string]int{}
		for _, f := range v {
			n, _ := bsonx.AsInt64(f.Value)
			m[f.Key] = int(n)
		}
		return m, nil
	}
	if n, ok := bsonx.AsInt64(w); ok {
		return int(n), nil
	}
	return nil, mongoerr.New(mongoerr.FailedToParse, "w has to be a number, string or object")
}

func checkSatisfiable(cfg topology.Config, w any) error {
	switch v := w.(type) {
	case int:
		n := 0
		for _, m := range cfg.Members {
			if m.DataBearing() {
				n++
			}
		}
		if v > n {
			return mongoerr.New(mongoerr.UnsatisfiableWriteConcern, "Not enough data-bearing nodes")
		}
	case string:
		if _, ok := cfg.Settings.GetLastErrorModes[v]; !ok && v != "majority" {
			return mongoerr.New(mongoerr.UnknownReplWriteConcern, "No write concern mode named '%s' found in replica set configuration", v)
		}
	}
	return nil
}
