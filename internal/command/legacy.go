package command

// TODO(#10): helpers of the commands not yet in the table; they go with
// them.

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/cmdspec"
)

// always is AfterWrite for commands that write on every call.
func always(bson.D) bool { return true }

var genericFields genericSet

type genericSet struct{}

func (genericSet) get(k string) bool { return cmdspec.IsGeneric(k) }

func parseHint(v any) (any, error) {
	var h cmdspec.Hint
	err := h.DecodeField("", v)
	return h.Value, err
}

func anyCollation(v any) error {
	var c cmdspec.Collation
	if err := c.DecodeField("", v); err != nil {
		return err
	}
	return checkCollation(c)
}

func (c *Ctx) letVars() (*expr.Vars, error) {
	let, _, err := c.doc("let")
	if err != nil {
		return nil, err
	}
	return letVars(let)
}
