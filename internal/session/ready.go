package session

// Rebuilding in the background: the startup rebuild from the oplog's tail
// reads up to the newest 200,000 entries, which took seconds on a large
// node and held up the first connection. It now runs after the server
// accepts connections; the lookups a retry or a commit depends on (Begin,
// Executed, TxnCommitted) and Reset wait until it is done, so no retry is
// answered from a table that does not know its statement yet. Records
// made meanwhile are safe: Record and RecordCommit keep the newest
// transaction whatever the order they arrive in.
// TODO(#15): persist the records (MongoDB's config.transactions) so that
// retryable writes need not wait for a rebuild after a restart.

// StartRebuild marks the table as being rebuilt until done is called
// (exactly once, also when the rebuild fails).
func (t *Table) StartRebuild() (done func()) {
	ch := make(chan struct{})
	t.mu.Lock()
	t.ready = ch
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		if t.ready == ch {
			t.ready = nil
		}
		t.mu.Unlock()
		close(ch)
	}
}

// waitReady waits for a rebuild in progress to finish.
func (t *Table) waitReady() {
	t.mu.Lock()
	ch := t.ready
	t.mu.Unlock()
	if ch != nil {
		<-ch
	}
}
