package privilege

import "go.mongodb.org/mongo-driver/v2/bson"

// Capped copies (issue #14), kept apart from commands.go. MongoDB's
// cloneCollectionAsCapped needs find on the source and insert and
// createCollection on the target; its convertToCapped action (held by
// readWrite and up) is approximated by what the conversion does.
func init() {
	commands["cloneCollectionAsCapped"] = func(db string, cmd bson.D) []Need {
		return []Need{{DB: db, Coll: str(cmd[0].Value), Actions: Find},
			{DB: db, Coll: str(field(cmd, "toCollection")), Actions: Insert | CreateCollection}}
	}
	commands["convertToCapped"] = onColl(Find | Insert | CreateCollection | DropCollection)
}
