package privilege

import "go.mongodb.org/mongo-driver/v2/bson"

// mapReduce needs find on its collection and, unless it answers inline,
// insert, update and remove on its output collection (mongod's
// map_reduce_agg privileges, with update for a merge output).
func init() {
	commands["mapReduce"] = mapReduceNeeds
}

func mapReduceNeeds(db string, cmd bson.D) []Need {
	needs := []Need{{DB: db, Coll: str(cmd[0].Value), Actions: Find}}
	switch out := field(cmd, "out").(type) {
	case string:
		needs = append(needs, Need{DB: db, Coll: out, Actions: Insert | Remove})
	case bson.D:
		outDB, coll := db, ""
		for _, e := range out {
			switch e.Key {
			case "db":
				outDB = str(e.Value)
			case "replace", "merge", "reduce":
				coll = str(e.Value)
			}
		}
		if coll != "" {
			needs = append(needs, Need{DB: outDB, Coll: coll, Actions: Insert | Remove | Update})
		}
	}
	return needs
}
