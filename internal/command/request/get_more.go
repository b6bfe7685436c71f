package request

import (
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// GetMore is the getMore command.
type GetMore struct {
	cmdspec.Cmd              `cmd:"getMore" roles:"primary,secondary,router"`
	CursorID                 cmdspec.Long `cmd:",command"`
	Collection               string       `cmd:"collection,required"`
	BatchSize                *int64       `cmd:"batchSize"`
	Term                     any          `cmd:"term"`
	LastKnownCommittedOpTime any          `cmd:"lastKnownCommittedOpTime"`
}
