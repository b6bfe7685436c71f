package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// Hello is hello (and its legacy names isMaster and ismaster). Fields it
// does not read (saslSupportedMechs, speculativeAuthenticate,
// loadBalanced, ...) are accepted and ignored.
type Hello struct {
	cmdspec.Cmd     `cmd:"hello" roles:"primary,secondary,router,unauthenticated"`
	Value           any     `cmd:",command"`
	Client          *bson.D `cmd:"client"`
	HelloOk         any     `cmd:"helloOk"` // read leniently: a wrong type is false
	TopologyVersion *any    `cmd:"topologyVersion"`
	MaxAwaitTimeMS  *int64  `cmd:"maxAwaitTimeMS"`
	Compression     *any    `cmd:"compression"`
	Rest            bson.D  `cmd:",inline"`
}
