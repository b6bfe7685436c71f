package topology

// Sync-source liveness. Heartbeat replies carry each member's sync source,
// so a member knows the chains of the set as of the last heartbeats. A
// chain only delivers new entries if it leads to the primary or passes a
// member that is ahead of us; a chain that ends (a member without a
// source, or one we see down) or loops without either is stalled, and once
// the primary stops writing the lag rules never notice (MongoDB's
// shouldChangeSyncSource likewise drops a source that is not ahead of us,
// is not primary and has no source of its own).

// lastFetched is the OpTime our fetcher resumes after: our written (which
// never trails our applied) OpTime, MongoDB's lastOpTimeFetched.
func (c *Coordinator) lastFetched() OpTime { return c.me().written }

// ahead reports whether member i has applied past our last fetched OpTime.
func (c *Coordinator) ahead(i int) bool { return c.lastFetched().Less(c.members[i].applied) }

// sourceOf returns the index of the sync source member i reported, or -1.
func (c *Coordinator) sourceOf(i int) int {
	if i == c.self {
		return c.syncSource
	}
	return c.cfg.MemberIndex(c.members[i].syncSource)
}

// chainReaches reports whether following sync sources from member i
// (excluded) arrives at member target.
func (c *Coordinator) chainReaches(i, target int) bool {
	for hops, j := 0, c.sourceOf(i); j >= 0 && hops < len(c.members); hops++ {
		if j == target {
			return true
		}
		if j == c.self {
			return false // our own source is being chosen
		}
		j = c.sourceOf(j)
	}
	return false
}

// sourceStalled reports whether our source cur can bring us nothing: it is
// not the primary and not ahead of us, and its chain (as the latest
// heartbeats tell it) neither reaches the primary nor passes a member that
// is ahead of us before it ends, meets a member we see down, or loops.
func (c *Coordinator) sourceStalled(cur int) bool {
	seen := make([]bool, len(c.members))
	for j := cur; j >= 0 && j != c.self && !seen[j]; j = c.sourceOf(j) {
		if j == c.primary || c.ahead(j) {
			return false
		}
		if !c.members[j].up {
			return true
		}
		seen[j] = true
	}
	return true
}

// someoneAhead reports whether a member we could sync from is ahead of us.
func (c *Coordinator) someoneAhead() bool {
	for i := range c.members {
		if c.ahead(i) && c.eligible(i, false) {
			return true
		}
	}
	return false
}
