package privilege

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Unauthorized is MongoDB's refusal of cmd on db: Unauthorized (13) "not
// authorized on db to execute command { name: value }" (the value cut at
// 64 characters), for data nodes and routers alike.
func Unauthorized(db string, cmd bson.D) error {
	return mongoerr.New(mongoerr.Unauthorized, "not authorized on %s to execute command { %s: %s }", db, cmd[0].Key, shortValue(cmd[0].Value))
}

// shortValue prints a command's first value for an error message.
func shortValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	s := fmt.Sprint(v)
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return s
}
