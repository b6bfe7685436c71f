package catalog

import "sync/atomic"

// A Watch tells its holder, with one atomic load, whether the documents of
// one namespace may have changed: Version changes whenever a committed
// batch writes a document of the namespace (a primary's write, the
// applier's, rollback's and initial sync's alike: they all commit through
// write.finish) and whenever the namespace is created, dropped or renamed
// to or from. It is how caches derived from a collection (users and roles,
// the IP allowlist) notice changes that replication applies.
//
// Invariants: a Version read after a change committed differs from every
// Version read before the change was published; a watch never misses a
// change, but may report one that did not alter the documents.
type Watch struct{ v atomic.Uint64 }

// Version returns the namespace's change count; compare with ==.
func (w *Watch) Version() uint64 { return w.v.Load() }

func (w *Watch) bump() {
	if w != nil {
		w.v.Add(1)
	}
}

// Watch returns the watch of ns ("db.coll"), creating it on first use.
// Keep it: it is cheap to read and lives as long as the catalog.
func (c *Catalog) Watch(ns string) *Watch {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.mu.watches[ns]; w != nil {
		return w
	}
	if c.mu.watches == nil {
		c.mu.watches = map[string]*Watch{}
	}
	w := &Watch{}
	c.mu.watches[ns] = w
	if coll := c.mu.byNS[ns]; coll != nil {
		coll.watch = w
	}
	return w
}

// publishNS makes coll the collection of its namespace. REQUIRES: c.mu.
func (c *Catalog) publishNS(coll *Collection) {
	coll.watch = c.mu.watches[coll.NS()]
	c.mu.byNS[coll.NS()] = coll
	c.mu.byID[coll.ID] = coll
	coll.watch.bump()
}

// unpublishNS removes ns's collection if it is coll. REQUIRES: c.mu.
func (c *Catalog) unpublishNS(coll *Collection) {
	if cur := c.mu.byNS[coll.NS()]; cur != nil && cur.ID == coll.ID {
		delete(c.mu.byNS, coll.NS())
		cur.watch.bump()
	}
}
