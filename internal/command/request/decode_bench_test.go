package request

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// The typed decode of the commands on YCSB's hot path (find by _id,
// update by _id, insert, getMore), as the dispatcher runs it per request.
var benchCmds = map[string]bson.D{
	"find": {{Key: "find", Value: "usertable"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: "user123"}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}, {Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{}}}},
		{Key: "$db", Value: "ycsb"}},
	"update": {{Key: "update", Value: "usertable"}, {Key: "ordered", Value: true},
		{Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: "user123"}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "field1", Value: "x"}}}}}}}},
		{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{}}}}, {Key: "$db", Value: "ycsb"}},
	"insert": {{Key: "insert", Value: "usertable"}, {Key: "ordered", Value: true},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: "user1"}, {Key: "field0", Value: "v"}}}},
		{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{}}}}, {Key: "$db", Value: "ycsb"}},
}

func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"find", "update", "insert"} {
		cmd := benchCmds[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				var err error
				switch name {
				case "find":
					var r Find
					err = cmdspec.Decode(cmd, &r)
				case "update":
					var r Update
					err = cmdspec.Decode(cmd, &r)
				case "insert":
					var r Insert
					err = cmdspec.Decode(cmd, &r)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
