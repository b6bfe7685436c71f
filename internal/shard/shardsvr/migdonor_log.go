package shardsvr

// cloneAttrs are the slog attributes of the migration's clone counts
// (as _shardsvrMoveRange's reply counts): "cloned" documents,
// "clonedBytes", "reloaded" and "deleted" by the catch-up. None before
// the clone started. "relaydb bench experiment rebalance" reads them from
// the donor's "migration finished" line for each migration's MB/s.
func (r *donorRun) cloneAttrs() []any {
	if r.src == nil {
		return nil
	}
	s := r.src.Stats()
	return []any{"cloned", s.Docs, "clonedBytes", s.Bytes, "reloaded", s.Reloaded, "deleted", s.Deleted}
}
