package exec

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
)

// ProcessInfo is what the command layer tells the engine about the
// process, for $currentOp and $indexStats.
type ProcessInfo struct {
	Host  string                   // host:port as clients reach it
	Ops   func() ([]bson.D, error) // the running operations (currentOp's inprog)
	Start time.Time                // when the process started ($indexStats accesses.since)
}

// SetProcessInfo installs p; until then $currentOp lists nothing and
// $indexStats reports an empty host.
func (e *Engine) SetProcessInfo(p ProcessInfo) { e.procInfo.Store(&p) }

func (e *Engine) processInfo() ProcessInfo {
	if p := e.procInfo.Load(); p != nil {
		return *p
	}
	return ProcessInfo{Ops: func() ([]bson.D, error) { return nil, nil }}
}

// indexStats lists db.coll's indexes as $indexStats does.
// TODO(#14): count index uses in the planner; accesses.ops is 0.
func (e *Engine) indexStats(db, coll string) func() ([]bson.D, error) {
	return func() ([]bson.D, error) {
		col := e.cat.Collection(db, coll)
		if col == nil {
			return nil, nil
		}
		p := e.processInfo()
		var out []bson.D
		for _, idx := range col.Indexes() {
			out = append(out, bson.D{
				{Key: "name", Value: idx.Name},
				{Key: "key", Value: idx.Key},
				{Key: "host", Value: p.Host},
				{Key: "accesses", Value: bson.D{{Key: "ops", Value: int64(0)}, {Key: "since", Value: bson.NewDateTimeFromTime(p.Start)}}},
				{Key: "spec", Value: idx.Spec},
			})
		}
		return out, nil
	}
}

// aggProcessHooks fills env's process-level sources: $currentOp only in
// a database-level aggregate, $indexStats on a collection.
func (e *Engine) aggProcessHooks(env *agg.Env, coll string) {
	if coll == "" {
		env.CurrentOp = e.processInfo().Ops
		env.IdleCursors = func() ([]bson.D, error) { return e.Cursors().Idle(e.processInfo().Host), nil } // cursors_idle.go
		return
	}
	env.IndexStats = e.indexStats(env.DB, coll)
}
