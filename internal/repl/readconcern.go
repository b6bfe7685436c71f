package repl

// readConcern "majority" support: the coordinator hands every commit-point
// change to the catalog, which keeps the majority-committed snapshot that
// majority reads use (catalog/snapshot.go). Called from publishLocked, so
// the catalog learns a new commit point before any waiter is woken.

// publishCommitPointLocked tells the catalog the commit point of s once a
// config exists (tracking starts then). REQUIRES: c.mu. The catalog takes
// only its snapshot lock (never writeMu), so this cannot deadlock with a
// write in flight.
func (c *Coordinator) publishCommitPointLocked(s *snapshot) {
	if !s.hasConfig || c.cat == nil {
		return
	}
	c.cat.SetCommitPoint(s.commitPoint.TS)
}
