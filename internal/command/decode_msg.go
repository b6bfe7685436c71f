package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// DecodeMsg decodes an OP_MSG request: the body document with each
// document sequence appended as an array field, and its $db (kept in
// cmd). A data node and a router read requests the same way.
func DecodeMsg(req *Request) (db string, cmd bson.D, err error) {
	if cmd, err = bsonx.Decode(req.Body); err != nil {
		return "", nil, err
	}
	for _, s := range req.Sequences {
		arr := make(bson.A, 0, len(s.Docs))
		for _, raw := range s.Docs {
			doc, err := bsonx.Decode(raw)
			if err != nil {
				return "", nil, err
			}
			arr = append(arr, doc)
		}
		cmd = append(cmd, bson.E{Key: s.Identifier, Value: arr})
	}
	v, _ := bsonx.Get(cmd, "$db")
	db, ok := v.(string)
	if !ok {
		return "", nil, mongoerr.New(mongoerr.FailedToParse, "OP_MSG requests require a $db argument")
	}
	return db, cmd, nil
}

// DecodeLegacy decodes a command sent as OP_QUERY on "<db>.$cmd" (the
// first hello of many drivers), unwrapping {$query: ...}; like MongoDB 6+
// it accepts only hello and isMaster that way.
func DecodeLegacy(fullName string, query []byte) (db string, cmd bson.D, err error) {
	db, coll, _ := strings.Cut(fullName, ".")
	if coll != "$cmd" { // a legacy find
		return "", nil, unsupportedOpQuery("find")
	}
	if cmd, err = bsonx.Decode(query); err != nil {
		return "", nil, err
	}
	if len(cmd) > 0 && (cmd[0].Key == "$query" || cmd[0].Key == "query") {
		if inner, ok := cmd[0].Value.(bson.D); ok {
			cmd = inner
		}
	}
	name := ""
	if len(cmd) > 0 {
		name = cmd[0].Key
	}
	switch name {
	case "hello", "isMaster", "ismaster":
		return db, cmd, nil
	}
	return "", nil, unsupportedOpQuery(name)
}

func unsupportedOpQuery(name string) error {
	return mongoerr.New(mongoerr.UnsupportedOpQueryCommand, "Unsupported OP_QUERY command: %s. The client driver may require an upgrade.", name)
}
