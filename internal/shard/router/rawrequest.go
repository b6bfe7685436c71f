package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/wire"
)

// rawReq is what the fast path reads from a request.
type rawReq struct {
	name, coll, db string
	body           bson.Raw
	seqs           []wire.Sequence
	filter         bson.Raw           // find's filter, nil when absent
	stmts          bson.Raw           // the body's documents/updates/deletes array
	retryable      bool               // txnNumber outside a transaction
	stmtIDs        bool               // the client sent stmtId or stmtIds
	pref           netclient.ReadPref // $readPreference (zero: primary)
}

// rawCommands are the commands the fast path forwards (those
// versionedUnsharded sends with versions, without aggregate).
func rawCommand(name string) bool {
	switch name {
	case "find", "insert", "update", "delete", "count", "distinct", "findAndModify", "findandmodify":
		return true
	}
	return false
}

// scanRequest reads the fields the fast path needs in one pass over the
// body; ok is false when the request must take the decoded path.
func scanRequest(req *command.Request) (q rawReq, ok bool) {
	body := bsoncore.Document(req.Body)
	if len(body) < 5 {
		return q, false
	}
	rest := body[4 : len(body)-1]
	first := true
	for len(rest) > 0 {
		el, next, valid := bsoncore.ReadElement(rest)
		if !valid {
			return q, false
		}
		rest = next
		if first {
			first = false
			q.name = el.Key()
			coll, isStr := el.Value().StringValueOK()
			if !rawCommand(q.name) || !isStr || coll == "" {
				return q, false
			}
			q.coll = coll
			continue
		}
		if !q.scanField(el) {
			return q, false
		}
	}
	if q.db == "" || q.db == "admin" || q.db == "config" || q.db == "local" {
		return q, false
	}
	q.body = bson.Raw(body)
	for _, s := range req.Sequences {
		q.seqs = append(q.seqs, wire.Sequence{Identifier: s.Identifier, Docs: s.Docs})
	}
	return q, true
}

// scanField reads one body field; false sends the request the decoded way.
func (q *rawReq) scanField(el bsoncore.Element) bool {
	switch string(el.KeyBytes()) {
	case "$db":
		db, ok := el.Value().StringValueOK()
		q.db = db
		return ok
	case "autocommit", "startTransaction", "shardVersion", "databaseVersion":
		return false
	case "txnNumber":
		q.retryable = true
	case "$readPreference":
		return q.scanReadPref(el)
	case "filter":
		if q.name == "find" {
			f, ok := el.Value().DocumentOK()
			q.filter = bson.Raw(f)
			return ok
		}
	case "documents", "updates", "deletes":
		if statementsField(q.name) == string(el.KeyBytes()) {
			arr, ok := el.Value().ArrayOK()
			q.stmts = bson.Raw(arr)
			return ok
		}
	case "stmtId", "stmtIds":
		q.stmtIDs = true
	case "collation":
		return false // targeting under a collation: ForCollation, decoded
	}
	return true
}

// scanReadPref parses $readPreference as the decoded path does
// (readpref.go); an invalid one goes the decoded way, which answers the
// error.
func (q *rawReq) scanReadPref(el bsoncore.Element) bool {
	rp, ok := el.Value().DocumentOK()
	if !ok {
		return false
	}
	d, err := bsonx.Decode(bson.Raw(rp))
	if err != nil {
		return false
	}
	q.pref, err = parseReadPref(d)
	return err == nil
}

// readPref is the read preference q is routed by: the client's for a
// read, primary for anything else (as selectsMember).
func (q *rawReq) readPref() netclient.ReadPref {
	if !q.readOnly() || q.pref.Mode == "" {
		return netclient.ReadPref{Mode: netclient.ModePrimary}
	}
	return q.pref
}

// selects reports a read sent to the member server selection picks (mode
// not primary): it goes without databaseVersion, as on the decoded path.
func (q *rawReq) selects() bool { return q.readPref().Mode != netclient.ModePrimary }

// statementsField names the array of a write command's statements.
func statementsField(name string) string {
	switch name {
	case "insert":
		return "documents"
	case "update":
		return "updates"
	case "delete":
		return "deletes"
	}
	return ""
}

// single returns the only statement of a write command (from its document
// sequence or its body), false when there are several or none.
func (q *rawReq) single() (bson.Raw, bool) {
	field := statementsField(q.name)
	for _, s := range q.seqs {
		if s.Identifier == field {
			if len(s.Docs) != 1 || q.stmts != nil {
				return nil, false
			}
			return s.Docs[0], true
		}
	}
	if q.stmts == nil {
		return nil, false
	}
	vals, err := q.stmts.Values()
	if err != nil || len(vals) != 1 {
		return nil, false
	}
	d, ok := vals[0].DocumentOK()
	return d, ok
}

// idempotent mirrors idempotent(c) for the fast path's commands.
func (q *rawReq) idempotent() bool {
	switch q.name {
	case "find", "count", "distinct":
		return true
	}
	return q.retryable
}

// readOnly mirrors readOnly(c): reads never create their database.
func (q *rawReq) readOnly() bool {
	switch q.name {
	case "find", "count", "distinct":
		return true
	}
	return false
}
