package command

import (
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Versioned writes skip orphans, as MongoDB's writes carrying a
// shardVersion do: an update, delete or findAndModify a router sent with
// the shard version of a sharded collection matches only the documents
// whose shard key is in a chunk this shard owns (the filter reads use,
// ReadFilterer), so a multi update or delete broadcast to every shard,
// or a single-document write by _id, never changes an orphan a migration
// left or a client wrote straight to the shard. A write without a
// shardVersion (a direct client) sees every document.

// writeOwned returns the ownership filter of the write command in c (nil:
// unfiltered). The dispatcher's version check passed before the handler
// runs; ReadFilter validates again against the metadata it uses, so an
// error is StaleConfig for metadata that moved in between.
func (c *Ctx) writeOwned() (exec.OwnershipFilter, error) {
	if c.Owned != nil {
		return c.Owned, nil
	}
	f, ok := c.D.shardVersioner.(ReadFilterer)
	if !ok || len(c.Cmd) == 0 {
		return nil, nil
	}
	return f.ReadFilter(c.DB, c.Cmd)
}

// staleWriteResult is err as the result of a batch of n statements none
// of which ran (as staleWriteErrors: statement 0 of an ordered batch,
// each statement of an unordered one).
func staleWriteResult(n int, ordered bool, err error) *exec.WriteResult {
	if ordered {
		n = min(n, 1)
	}
	res := &exec.WriteResult{}
	for i := range n {
		res.Errors = append(res.Errors, exec.WriteError{Index: i, Err: mongoerr.From(err), Info: extraInfo(err)})
	}
	return res
}
