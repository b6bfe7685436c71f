package spec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// errDetails is what expectError can inspect in a driver error.
type errDetails struct {
	server      mongo.ServerError // nil for client-side errors
	codeName    string
	raw         bson.Raw
	writeErrors bson.D // index -> {code, message, ...}
	wcErrors    bson.A
}

func details(err error) errDetails {
	var d errDetails
	var cbe mongo.ClientBulkWriteException
	if errors.As(err, &cbe) {
		return clientBulkDetails(cbe)
	}
	if !errors.As(err, &d.server) {
		return d
	}
	var ce mongo.CommandError
	var we mongo.WriteException
	var bwe mongo.BulkWriteException
	switch {
	case errors.As(err, &ce):
		d.codeName, d.raw = ce.Name, ce.Raw
	case errors.As(err, &we):
		d.raw = we.Raw
		for _, w := range we.WriteErrors {
			d.addWriteError(w)
		}
		if we.WriteConcernError != nil {
			d.addWCError(*we.WriteConcernError)
		}
	case errors.As(err, &bwe):
		for _, w := range bwe.WriteErrors {
			d.addWriteError(w.WriteError)
		}
		if bwe.WriteConcernError != nil {
			d.addWCError(*bwe.WriteConcernError)
		}
	}
	return d
}

// clientBulkDetails reads a client bulkWrite error: write errors are
// keyed by model index, write concern errors are a list.
func clientBulkDetails(cbe mongo.ClientBulkWriteException) errDetails {
	var d errDetails
	if cbe.WriteError != nil {
		d.server = mongo.WriteException{WriteErrors: []mongo.WriteError{*cbe.WriteError}}
		d.codeName = mongoerr.Code(cbe.WriteError.Code).Name()
		d.raw = cbe.WriteError.Raw
	}
	var we mongo.WriteException
	for _, i := range sortedKeys(cbe.WriteErrors) {
		w := cbe.WriteErrors[i]
		w.Index = i
		d.addWriteError(w)
		we.WriteErrors = append(we.WriteErrors, w)
	}
	for _, w := range cbe.WriteConcernErrors {
		d.addWCError(w)
		we.WriteConcernError = &w
	}
	if d.server == nil && (len(we.WriteErrors) > 0 || we.WriteConcernError != nil) {
		d.server = we
	}
	return d
}

func (d *errDetails) addWriteError(w mongo.WriteError) {
	doc := bson.D{{Key: "code", Value: int32(w.Code)}, {Key: "message", Value: w.Message}}
	if w.Details != nil {
		doc = append(doc, bson.E{Key: "details", Value: normalize(w.Details)})
	}
	if d.codeName == "" {
		d.codeName = mongoerr.Code(w.Code).Name()
		d.raw = w.Raw
	}
	d.writeErrors = append(d.writeErrors, bson.E{Key: strconv.Itoa(w.Index), Value: doc})
}

func (d *errDetails) addWCError(w mongo.WriteConcernError) {
	d.wcErrors = append(d.wcErrors, bson.D{{Key: "code", Value: int32(w.Code)},
		{Key: "codeName", Value: w.Name}, {Key: "message", Value: w.Message}})
	if d.codeName == "" {
		d.codeName = w.Name
	}
}

// checkError verifies an operation error against expectError.
func (r *testRun) checkError(exp bson.D, err error, result any) error {
	d := details(err)
	m := &matcher{ents: r.ents}
	for _, e := range exp {
		if err := r.checkErrorField(m, e, err, d, result); err != nil {
			return fmt.Errorf("expectError.%s: %w (error was: %v)", e.Key, err, err)
		}
	}
	return nil
}

func (r *testRun) checkErrorField(m *matcher, e bson.E, err error, d errDetails, result any) error {
	switch e.Key {
	case "isError":
		return nil
	case "isClientError":
		isClient := d.server == nil || mongo.IsNetworkError(err)
		if want, _ := e.Value.(bool); isClient != want {
			return fmt.Errorf("isClientError is %v", isClient)
		}
	case "isTimeoutError":
		if want, _ := e.Value.(bool); mongo.IsTimeout(err) != want {
			return fmt.Errorf("isTimeoutError is %v", !want)
		}
	case "errorContains":
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(fmt.Sprint(e.Value))) {
			return fmt.Errorf("message does not contain %q", e.Value)
		}
	case "errorCode":
		code, _ := asInt64(e.Value)
		if d.server == nil || !d.server.HasErrorCode(int(code)) {
			return fmt.Errorf("want code %d", code)
		}
	case "errorCodeName":
		if d.codeName != e.Value {
			return fmt.Errorf("codeName is %q, want %q", d.codeName, e.Value)
		}
	case "errorLabelsContain", "errorLabelsOmit":
		want := e.Key == "errorLabelsContain"
		for _, l := range e.Value.(bson.A) {
			has := d.server != nil && d.server.HasErrorLabel(fmt.Sprint(l))
			if has != want {
				return fmt.Errorf("label %v present=%v", l, has)
			}
		}
	case "errorResponse":
		return m.match(e.Value, normalize(d.raw), true, "$")
	case "writeErrors":
		return m.match(e.Value, d.writeErrors, true, "$")
	case "writeConcernErrors":
		return m.match(e.Value, d.wcErrors, true, "$")
	case "expectResult":
		return m.match(e.Value, result, true, "$")
	default:
		return runnerErrorf("runner: unsupported expectError field %q", e.Key)
	}
	return nil
}

// checkEvents verifies test.expectEvents.
func (r *testRun) checkEvents(expects []bson.D) error {
	m := &matcher{ents: r.ents}
	for _, ee := range expects {
		ce, err := getAs[*clientEntity](r.ents, getString(ee, "client"))
		if err != nil {
			return err
		}
		var got []observedEvent
		match := matchEvent
		switch t := getString(ee, "eventType"); t {
		case "", "command":
			got = ce.observed()
		case "cmap":
			got, match = ce.observedCMAP(), matchCMAPEvent
		default:
			return runnerErrorf("runner: unsupported eventType %q", t)
		}
		want := getA(ee, "events")
		extraOK, _ := getBool(ee, "ignoreExtraEvents")
		if len(got) < len(want) || (len(got) > len(want) && !extraOK) {
			return fmt.Errorf("expectEvents: got %d events %s, want %d", len(got), eventNames(got), len(want))
		}
		for i, w := range want {
			if err := match(m, w.(bson.D), got[i]); err != nil {
				return fmt.Errorf("expectEvents[%d] (%s): %w", i, got[i].kind, err)
			}
		}
	}
	return nil
}

func eventNames(evs []observedEvent) string {
	var names []string
	for _, e := range evs {
		names = append(names, strings.TrimSuffix(e.kind, "Event")+":"+e.name)
	}
	return "[" + strings.Join(names, " ") + "]"
}

func matchEvent(m *matcher, want bson.D, got observedEvent) error {
	if len(want) != 1 {
		return fmt.Errorf("bad expected event %v", want)
	}
	if want[0].Key != got.kind {
		return fmt.Errorf("want %s, got %s", want[0].Key, got.kind)
	}
	for _, f := range want[0].Value.(bson.D) {
		var err error
		switch f.Key {
		case "command", "reply":
			err = m.match(f.Value, got.payload, true, "$."+f.Key)
		case "commandName":
			if f.Value != got.name {
				err = fmt.Errorf("commandName %q, want %q", got.name, f.Value)
			}
		case "databaseName":
			if f.Value != got.db {
				err = fmt.Errorf("databaseName %q, want %q", got.db, f.Value)
			}
		case "hasServiceId", "hasServerConnectionId":
			// TODO(#2): record serviceId / serverConnectionId.
		default:
			err = runnerErrorf("runner: unsupported event field %q", f.Key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkOutcome compares collections with test.outcome, sorted by _id.
func (r *testRun) checkOutcome(ctx context.Context, outcome []CollectionData) error {
	m := &matcher{ents: r.ents}
	for _, cd := range outcome {
		coll := r.internal.Database(cd.DatabaseName).Collection(cd.CollectionName)
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			return fmt.Errorf("outcome %s: %w", fmtNS(cd.DatabaseName, cd.CollectionName), err)
		}
		var docs []bson.D
		if err := cur.All(ctx, &docs); err != nil {
			return fmt.Errorf("outcome %s: %w", fmtNS(cd.DatabaseName, cd.CollectionName), err)
		}
		want := bson.A{}
		for _, d := range cd.Documents {
			want = append(want, d)
		}
		if err := m.match(want, normalize(docs), false, "outcome"); err != nil {
			return fmt.Errorf("outcome %s: %w", fmtNS(cd.DatabaseName, cd.CollectionName), err)
		}
	}
	return nil
}
