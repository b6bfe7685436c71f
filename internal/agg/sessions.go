package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// listSessionsStage is $listLocalSessions: it ignores its input and yields
// the server's in-memory sessions from Env.LocalSessions (none when that
// is nil). It is only valid first in a database-level aggregate.
// TODO(#2): filter by 'users' once relaydb has authentication.
type listSessionsStage struct{}

func compileListLocalSessions(spec any, _ *compileCtx) ([]stage, error) {
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "$listLocalSessions must be an object, found %s", typeOf(spec))
	}
	for _, e := range d {
		switch e.Key {
		case "allUsers":
			if _, ok := e.Value.(bool); !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$listLocalSessions.allUsers' is the wrong type '%s', expected type 'bool'", typeOf(e.Value))
			}
		case "users":
			if _, ok := e.Value.(bson.A); !ok {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$listLocalSessions.users' is the wrong type '%s', expected type 'array'", typeOf(e.Value))
			}
		default:
			return nil, mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$listLocalSessions.%s' is an unknown field.", e.Key)
		}
	}
	return []stage{listSessionsStage{}}, nil
}

func (listSessionsStage) run(in Iterator, rc *runCtx) Iterator {
	var out Iterator
	return iterx.Func(func() (bson.D, bool, error) {
		if out == nil {
			var docs []bson.D
			if rc.env.LocalSessions != nil {
				var err error
				if docs, err = rc.env.LocalSessions(); err != nil {
					return nil, false, err
				}
			}
			out = Slice(docs)
		}
		return pull(out)
	}, in.Close)
}

// firstOnly are the stages valid only at the start of a pipeline.
var firstOnly = map[string]bool{"$documents": true, "$listLocalSessions": true, "$currentOp": true,
	"$indexStats": true, "$planCacheStats": true}

func checkFirstOnly(name string, i int) error {
	if i > 0 && firstOnly[name] {
		return mongoerr.New(mongoerr.StageMustBeFirst, "%s is only valid as the first stage in a pipeline", name)
	}
	return nil
}
