package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// GetParameter is getParameter: {getParameter: "*" | {allParameters: true}
// | 1, <name>: 1, ...}.
type GetParameter struct {
	cmdspec.Cmd `cmd:"getParameter" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Names       bson.D `cmd:",inline"` // the parameters asked for
}

// SetParameter is setParameter: {setParameter: 1, <name>: <value>, ...}.
type SetParameter struct {
	cmdspec.Cmd `cmd:"setParameter" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Values      bson.D `cmd:",inline"` // the parameters to set
}
