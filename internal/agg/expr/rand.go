package expr

import (
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// registerRand adds $rand: {$rand: {}} is a fresh double in [0, 1) at each
// evaluation.
func registerRand() {
	operators["$rand"] = func(name string, raw any, _ *scope) (Expr, error) {
		if d, ok := raw.(bson.D); !ok || len(d) != 0 {
			return nil, errf(mongoerr.RandHasArguments, "%s not allowed to have arguments: %v", name, raw)
		}
		return funcExpr(func(bson.D, *Vars) (any, error) { return rand.Float64(), nil }), nil
	}
}
