package spec

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestCheckError(t *testing.T) {
	dup := mongo.CommandError{Code: 11000, Name: "DuplicateKey", Message: "E11000 duplicate key",
		Labels: []string{"L1"}, Raw: bson.Raw(mustMarshal(t, bson.D{{Key: "ok", Value: 0},
			{Key: "code", Value: 11000}, {Key: "keyValue", Value: bson.D{{Key: "x", Value: "foo"}}}}))}
	wex := mongo.WriteException{WriteErrors: []mongo.WriteError{{Index: 0, Code: 121, Message: "failed validation"}}}
	client := errors.New("cannot do that client side")
	for _, tc := range []struct {
		name string
		exp  string
		err  error
		ok   bool
	}{
		{"isError", `{"isError":true}`, client, true},
		{"client error", `{"isClientError":true}`, client, true},
		{"server error is not client", `{"isClientError":true}`, dup, false},
		{"server error", `{"isClientError":false}`, dup, true},
		{"code", `{"errorCode":11000}`, dup, true},
		{"wrong code", `{"errorCode":11001}`, dup, false},
		{"codeName", `{"errorCodeName":"DuplicateKey"}`, dup, true},
		{"contains", `{"errorContains":"DUPLICATE key"}`, dup, true},
		{"labels", `{"errorLabelsContain":["L1"],"errorLabelsOmit":["L2"]}`, dup, true},
		{"label missing", `{"errorLabelsContain":["L2"]}`, dup, false},
		{"errorResponse root", `{"errorResponse":{"keyValue":{"x":"foo"}}}`, dup, true},
		{"errorResponse nested exact", `{"errorResponse":{"keyValue":{}}}`, dup, false},
		{"write error code", `{"errorCode":121}`, wex, true},
		{"write error codeName", `{"errorCodeName":"DocumentValidationFailure"}`, wex, true},
		{"unsupported field", `{"isBogus":true}`, dup, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &testRun{ents: newEntityMap()}
			err := r.checkError(ej(t, tc.exp).(bson.D), tc.err, nil)
			if (err == nil) != tc.ok {
				t.Errorf("checkError(%s, %v) = %v, want ok=%v", tc.exp, tc.err, err, tc.ok)
			}
		})
	}
}

func TestCheckEvents(t *testing.T) {
	ce := &clientEntity{observe: map[string]bool{"commandStartedEvent": true, "connectionReadyEvent": true},
		ignore: map[string]bool{}}
	cmd := mustMarshal(t, bson.D{{Key: "insert", Value: "coll"}, {Key: "lsid", Value: bson.D{}}})
	ce.record("commandStartedEvent", "hello", "admin", cmd)              // sensitive: dropped
	ce.record("commandStartedEvent", "configureFailPoint", "admin", cmd) // always ignored
	pm := ce.poolMonitor()
	pm.Event(&event.PoolEvent{Type: event.ConnectionReady})
	pm.Event(&event.PoolEvent{Type: event.ConnectionCheckedOut}) // not observed
	ce.record("commandStartedEvent", "insert", "db", cmd)
	ce.record("commandSucceededEvent", "insert", "db", nil) // not observed
	r := &testRun{ents: newEntityMap()}
	if err := r.ents.add("client0", ce); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		exp string
		ok  bool
	}{
		{`{"client":"client0","events":[{"commandStartedEvent":{"command":{"insert":"coll"},"commandName":"insert","databaseName":"db"}}]}`, true},
		{`{"client":"client0","events":[{"commandStartedEvent":{"databaseName":"other"}}]}`, false},
		{`{"client":"client0","events":[]}`, false},
		{`{"client":"client0","events":[],"ignoreExtraEvents":true}`, true},
		{`{"client":"client0","eventType":"cmap","events":[{"connectionReadyEvent":{}}]}`, true},
		{`{"client":"client0","eventType":"cmap","events":[{"connectionCheckedOutEvent":{}}]}`, false},
		{`{"client":"client0","eventType":"cmap","events":[]}`, false},
		{`{"client":"client0","eventType":"cmap","events":[{"connectionReadyEvent":{"bogus":1}}]}`, false},
		{`{"client":"client0","eventType":"sdam","events":[]}`, false},
	} {
		err := r.checkEvents([]bson.D{ej(t, tc.exp).(bson.D)})
		if (err == nil) != tc.ok {
			t.Errorf("checkEvents(%s) = %v, want ok=%v", tc.exp, err, tc.ok)
		}
	}
}

func mustMarshal(t *testing.T, d bson.D) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
