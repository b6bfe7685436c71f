package command

import (
	"os"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdLine is the process's parsed options (getCmdLineOpts' "parsed"). Like
// os.Args, which the same reply reports, it belongs to the process, not to
// a dispatcher: `relaydb serve` and `relaydb router` set it once at start.
var cmdLine atomic.Pointer[bson.D]

// SetCmdLine records the process's resolved options in mongod's option
// tree (net, storage, replication, security, setParameter, ...), which
// getCmdLineOpts reports as "parsed" on data nodes and routers.
func SetCmdLine(parsed bson.D) { cmdLine.Store(&parsed) }

// CmdLineOpts is the getCmdLineOpts reply: the process's arguments and its
// parsed options ({} until SetCmdLine).
func CmdLineOpts() bson.D {
	argv := bson.A{}
	for _, a := range os.Args {
		argv = append(argv, a)
	}
	parsed := bson.D{}
	if p := cmdLine.Load(); p != nil && *p != nil {
		parsed = *p
	}
	return bson.D{{Key: "argv", Value: argv}, {Key: "parsed", Value: parsed}}
}
