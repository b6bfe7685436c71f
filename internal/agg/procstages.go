package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $currentOp, $indexStats and $planCacheStats ignore their input and yield
// documents from the process (Env.CurrentOp, Env.IndexStats) or nothing.
// $currentOp and $indexStats must be first; $currentOp only in
// {aggregate: 1} on admin.
// {idleCursors: true} adds the idle cursors (Env.IdleCursors).
// TODO(#14): $currentOp's allUsers/idleConnections/idleSessions/
// localOps are accepted but every running command is listed and idle
// connections never are; $planCacheStats is always empty (no plan cache).

type sourceStage struct {
	list func(rc *runCtx) ([]bson.D, error)
}

func (s sourceStage) run(in Iterator, rc *runCtx) Iterator {
	var out Iterator
	return iterx.Func(func() (bson.D, bool, error) {
		if out == nil {
			docs, err := s.list(rc)
			if err != nil {
				return nil, false, err
			}
			out = Slice(docs)
		}
		return pull(out)
	}, in.Close)
}

var currentOpBools = map[string]bool{"allUsers": true, "idleConnections": true, "idleCursors": true,
	"idleSessions": true, "localOps": true, "backtrace": true, "truncateOps": true}

func compileCurrentOp(spec any, cc *compileCtx) ([]stage, error) {
	if err := checkBoolSpec("$currentOp", spec, currentOpBools); err != nil {
		return nil, err
	}
	if cc.env.DB != "admin" || cc.env.CurrentOp == nil {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "$currentOp must be run against the 'admin' database with {aggregate: 1}")
	}
	idleCursors := false
	if d, ok := spec.(bson.D); ok {
		for _, e := range d {
			idleCursors = idleCursors || (e.Key == "idleCursors" && e.Value == true)
		}
	}
	return []stage{sourceStage{list: func(rc *runCtx) ([]bson.D, error) {
		ops, err := rc.env.CurrentOp()
		if err != nil || !idleCursors || rc.env.IdleCursors == nil {
			return ops, err
		}
		idle, err := rc.env.IdleCursors()
		return append(ops, idle...), err
	}}}, nil
}

func compileIndexStats(spec any, _ *compileCtx) ([]stage, error) {
	if err := checkBoolSpec("$indexStats", spec, nil); err != nil {
		return nil, err
	}
	return []stage{sourceStage{list: func(rc *runCtx) ([]bson.D, error) {
		if rc.env.IndexStats == nil {
			return nil, nil
		}
		return rc.env.IndexStats()
	}}}, nil
}

func compilePlanCacheStats(spec any, _ *compileCtx) ([]stage, error) {
	if err := checkBoolSpec("$planCacheStats", spec, map[string]bool{"allHosts": true}); err != nil {
		return nil, err
	}
	return []stage{sourceStage{list: func(*runCtx) ([]bson.D, error) { return nil, nil }}}, nil
}

// checkBoolSpec: spec is an object whose fields are among allowed, each
// a bool.
func checkBoolSpec(stage string, spec any, allowed map[string]bool) error {
	d, ok := spec.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "%s must be an object, found %s", stage, typeOf(spec))
	}
	for _, e := range d {
		if !allowed[e.Key] {
			return mongoerr.New(mongoerr.IDLUnknownField, "BSON field '%s.%s' is an unknown field.", stage, e.Key)
		}
		if _, ok := e.Value.(bool); !ok {
			return mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'bool'", stage, e.Key, typeOf(e.Value))
		}
	}
	return nil
}
