package router

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// ddlOps are the events every shard reports for one command (a sharded
// collection's drop runs on each shard): a merged stream returns the
// first and drops the others, as mongos reports one.
var ddlOps = []string{"drop", "rename", "dropDatabase"}

// maxDDLSeen bounds the remembered DDL events of a stream.
const maxDDLSeen = 1024

// duplicateDDL reports an event another shard already reported: the same
// operationType on the same ns as a DDL event returned with no other
// event on that ns since.
func (m *csMerge) duplicateDDL(ev bson.D) bool {
	opv, _ := bsonx.Get(ev, "operationType")
	op, _ := opv.(string)
	nsv, _ := bsonx.Get(ev, "ns")
	ns := fmt.Sprint(nsv)
	isDDL := false
	for _, d := range ddlOps {
		isDDL = isDDL || d == op
	}
	if !isDDL {
		for _, d := range ddlOps {
			delete(m.ddlSeen, d+" "+ns)
		}
		return false
	}
	key := op + " " + ns
	if m.ddlSeen[key] {
		return true
	}
	if m.ddlSeen == nil || len(m.ddlSeen) >= maxDDLSeen {
		m.ddlSeen = map[string]bool{}
	}
	m.ddlSeen[key] = true
	return false
}
