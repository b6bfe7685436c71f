package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ShardsvrCriticalSection is relaydb's _shardsvrCriticalSection, which a
// router sends to the shards of a namespace around a DDL change of its
// metadata (MongoDB's routers hold the same critical section through the
// config server's DDL coordinators): action "enter" (with a lease in
// milliseconds) or "exit". It changes no data (the section lives in
// memory, ended by its lease if never exited), so it is not a write: a
// router sends it to each shard's primary, where writes are admitted.
type ShardsvrCriticalSection struct {
	cmdspec.Cmd `cmd:"_shardsvrCriticalSection" roles:"primary,secondary"`
	NS          string `cmd:",command"`
	Action      string `cmd:"action,required"`
	LeaseMillis *int64 `cmd:"leaseMillis"`
}
