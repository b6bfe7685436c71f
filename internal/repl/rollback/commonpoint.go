package rollback

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// localPage is how many local entries one reverse read fetches.
const localPage = 256

// localOplog walks our oplog newest first.
type localOplog struct {
	log    *oplog.Log
	before bson.Timestamp // next page ends before this; zero = the top
	buf    [][]byte
	done   bool
}

// next returns the next (older) entry, nil at the start of the oplog.
func (l *localOplog) next() (*oplog.Entry, error) {
	if len(l.buf) == 0 && !l.done {
		raws, err := l.log.ReadReverse(l.before, localPage)
		if err != nil {
			return nil, fmt.Errorf("rollback: read our oplog: %w", err)
		}
		l.buf, l.done = raws, len(raws) < localPage
	}
	if len(l.buf) == 0 {
		return nil, nil
	}
	e, err := oplog.Unmarshal(l.buf[0])
	if err != nil {
		return nil, fmt.Errorf("rollback: our oplog: %w", err)
	}
	l.buf = l.buf[1:]
	l.before = e.TS
	return e, nil
}

// findCommonPoint walks both oplogs newest first (MongoDB's
// syncRollBackLocalOperations): a local entry newer than the source's
// current one, or at the same ts with another term, is divergent; the
// first entry both hold with the same ts and term is the common point.
// It returns the common point and the divergent local entries, oldest
// first.
func findCommonPoint(ctx context.Context, log *oplog.Log, src Source) (topology.OpTime, []*oplog.Entry, error) {
	local := &localOplog{log: log}
	l, err := local.next()
	if err != nil || l == nil {
		return topology.OpTime{}, nil, noCommon(err, "our oplog is empty")
	}
	remote := newRemoteOplog(src, l.TS)
	defer remote.close(context.WithoutCancel(ctx))
	r, err := remote.next(ctx)
	var divergent []*oplog.Entry
	for err == nil {
		switch {
		case l == nil:
			return topology.OpTime{}, nil, noCommon(nil, "our oplog holds no entry the source has")
		case r == nil:
			return topology.OpTime{}, nil, noCommon(nil, "the source's oplog does not reach back to an entry we have")
		case l.TS.After(r.TS):
			divergent = append(divergent, l)
			l, err = local.next()
		case r.TS.After(l.TS):
			r, err = remote.next(ctx)
		case l.Term == r.Term:
			reverse(divergent)
			return topology.OpTime{TS: l.TS, Term: l.Term}, divergent, nil
		default: // same ts, another term
			divergent = append(divergent, l)
			if l, err = local.next(); err == nil {
				r, err = remote.next(ctx)
			}
		}
	}
	return topology.OpTime{}, nil, err
}

func noCommon(err error, why string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: %s", ErrNoCommonPoint, why)
}

func reverse(es []*oplog.Entry) {
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
}
