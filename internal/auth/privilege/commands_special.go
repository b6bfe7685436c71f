package privilege

import "go.mongodb.org/mongo-driver/v2/bson"

// findAndModify needs find and update (upsert: insert; remove: remove).
func findAndModify(db string, cmd bson.D) []Need {
	a := Find | Update
	if b, _ := field(cmd, "remove").(bool); b {
		a = Find | Remove
	}
	if b, _ := field(cmd, "upsert").(bool); b {
		a |= Insert
	}
	return []Need{{DB: db, Coll: str(cmd[0].Value), Actions: a}}
}

// getMore needs find on the cursor's namespace (its collection field).
func getMore(db string, cmd bson.D) []Need {
	return []Need{{DB: db, Coll: str(field(cmd, "collection")), Actions: Find}}
}

// renameCollection (both names full namespaces) needs renameCollection on
// both within one database, else find and dropCollection on the source and
// insert and createIndex on the target.
func renameCollection(_ string, cmd bson.D) []Need {
	fromDB, fromColl := splitNS(str(cmd[0].Value))
	toDB, toColl := splitNS(str(field(cmd, "to")))
	if fromDB == toDB {
		return []Need{{DB: fromDB, Coll: fromColl, Actions: RenameCollection}, {DB: toDB, Coll: toColl, Actions: RenameCollection}}
	}
	return []Need{{DB: fromDB, Coll: fromColl, Actions: Find | DropCollection}, {DB: toDB, Coll: toColl, Actions: Insert | CreateIndex}}
}

func splitNS(ns string) (db, coll string) {
	for i := 0; i < len(ns); i++ {
		if ns[i] == '.' {
			return ns[:i], ns[i+1:]
		}
	}
	return ns, ""
}

// explain needs what the explained command needs (one level deep).
func explain(db string, cmd bson.D) []Need {
	inner, _ := field(cmd, "explain").(bson.D)
	if len(inner) == 0 || inner[0].Key == "explain" {
		return []Need{{DB: db, Actions: Find}}
	}
	needs, ok := Needs(inner[0].Key, db, inner)
	if !ok {
		return []Need{{Cluster: true, Actions: Internal}} // refused
	}
	return needs
}

// aggregate needs find on its collection (the database for {aggregate: 1})
// and, for a last $out stage, insert and remove on the target, for $merge
// insert and update. A $changeStream needs changeStream and find on what
// it watches (every database's collections for allChangesForCluster).
func aggregate(db string, cmd bson.D) []Need {
	needs := []Need{{DB: db, Coll: str(cmd[0].Value), Actions: Find}}
	pipe, _ := field(cmd, "pipeline").(bson.A)
	if len(pipe) == 0 {
		return needs
	}
	if first, _ := pipe[0].(bson.D); len(first) == 1 && first[0].Key == "$changeStream" {
		needs[0].Actions |= ChangeStream
		if spec, _ := first[0].Value.(bson.D); field(spec, "allChangesForCluster") == true {
			needs[0].DB, needs[0].Coll = "", ""
		}
	}
	if first, _ := pipe[0].(bson.D); len(first) == 1 && first[0].Key == "$currentOp" {
		needs = append(needs, Need{Cluster: true, Actions: Inprog})
	}
	last, _ := pipe[len(pipe)-1].(bson.D)
	if len(last) != 1 {
		return needs
	}
	switch last[0].Key {
	case "$out":
		tdb, tc := target(db, last[0].Value)
		needs = append(needs, Need{DB: tdb, Coll: tc, Actions: Insert | Remove})
	case "$merge":
		into := last[0].Value
		if d, ok := into.(bson.D); ok {
			into = field(d, "into")
		}
		tdb, tc := target(db, into)
		needs = append(needs, Need{DB: tdb, Coll: tc, Actions: Insert | Update})
	}
	return needs
}

// target reads a stage's "coll" or {db, coll}.
func target(db string, v any) (string, string) {
	if d, ok := v.(bson.D); ok {
		if s := str(field(d, "db")); s != "" {
			db = s
		}
		return db, str(field(d, "coll"))
	}
	return db, str(v)
}

// currentOp needs inprog on the cluster, except with $ownOps: true (the
// caller's own operations only).
func currentOp(_ string, cmd bson.D) []Need {
	if b, _ := field(cmd, "$ownOps").(bool); b {
		return nil
	}
	return []Need{{Cluster: true, Actions: Inprog}}
}
