package bsonx

// knownKey returns the field names the wire protocol and common commands
// use without allocating (the compiler compiles a switch on string(b)
// without converting b).
func knownKey(b []byte) (string, bool) {
	switch string(b) {
	case "_id":
		return "_id", true
	case "$db":
		return "$db", true
	case "lsid":
		return "lsid", true
	case "id":
		return "id", true
	case "txnNumber":
		return "txnNumber", true
	case "autocommit":
		return "autocommit", true
	case "startTransaction":
		return "startTransaction", true
	case "$clusterTime":
		return "$clusterTime", true
	case "clusterTime":
		return "clusterTime", true
	case "signature":
		return "signature", true
	case "hash":
		return "hash", true
	case "keyId":
		return "keyId", true
	case "$readPreference":
		return "$readPreference", true
	case "mode":
		return "mode", true
	case "insert":
		return "insert", true
	case "documents":
		return "documents", true
	case "ordered":
		return "ordered", true
	case "find":
		return "find", true
	case "filter":
		return "filter", true
	case "limit":
		return "limit", true
	case "singleBatch":
		return "singleBatch", true
	case "batchSize":
		return "batchSize", true
	case "projection":
		return "projection", true
	case "sort":
		return "sort", true
	case "skip":
		return "skip", true
	case "update":
		return "update", true
	case "updates":
		return "updates", true
	case "q":
		return "q", true
	case "u":
		return "u", true
	case "multi":
		return "multi", true
	case "upsert":
		return "upsert", true
	case "delete":
		return "delete", true
	case "deletes":
		return "deletes", true
	case "getMore":
		return "getMore", true
	case "collection":
		return "collection", true
	case "writeConcern":
		return "writeConcern", true
	case "w":
		return "w", true
	case "j":
		return "j", true
	case "wtimeout":
		return "wtimeout", true
	case "readConcern":
		return "readConcern", true
	case "level":
		return "level", true
	case "afterClusterTime":
		return "afterClusterTime", true
	case "$set":
		return "$set", true
	case "$inc":
		return "$inc", true
	case "$unset":
		return "$unset", true
	}
	return "", false
}
