package mongoerr

// Codes of multi-document transactions' errors (kept apart from codes.go
// so their names register here).
const (
	LockTimeout                   Code = 24
	SnapshotUnavailable           Code = 246
	PreparedTransactionInProgress Code = 267
)

func init() {
	names[LockTimeout] = "LockTimeout"
	names[SnapshotUnavailable] = "SnapshotUnavailable"
	names[PreparedTransactionInProgress] = "PreparedTransactionInProgress"
}
