package spec

// The unified format's session and entity operations (sessions,
// retryable-reads, retryable-writes): createEntities (testRunner),
// endSession, assertSessionDirty, assertSessionNotDirty and
// getSnapshotTime. A session's dirty flag is read from the driver's
// server session by reflection (the v2 driver does not export it).

import (
	"context"
	"fmt"
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func init() {
	for name, fn := range map[string]opFunc{
		"createEntities":        opCreateEntities,
		"endSession":            opEndSession,
		"assertSessionDirty":    opAssertDirty,
		"assertSessionNotDirty": opAssertDirty,
		"getSnapshotTime":       opGetSnapshotTime,
	} {
		operations[name] = fn
	}
}

// opCreateEntities adds entities during a test, as the file's
// createEntities does; a session's snapshotTime names a saved entity.
func opCreateEntities(_ context.Context, r *testRun, op Operation) (any, bool, error) {
	raw, _ := lookup(op.Arguments, "entities")
	list, _ := raw.(bson.A)
	specs := make([]bson.D, 0, len(list))
	for _, x := range list {
		d, ok := x.(bson.D)
		if !ok {
			return nil, false, runnerErrorf("runner: createEntities: bad entity %v", x)
		}
		d, err := resolveSnapshotTime(r, d)
		if err != nil {
			return nil, false, err
		}
		specs = append(specs, d)
	}
	if err := createEntities(r.ents, specs, entityBaseURI(r.uri, specs)); err != nil {
		return nil, false, fmt.Errorf("createEntities: %w", err)
	}
	return nil, false, nil
}

// resolveSnapshotTime replaces a session entity's sessionOptions.snapshotTime
// (an entity id) by the saved timestamp.
func resolveSnapshotTime(r *testRun, spec bson.D) (bson.D, error) {
	if len(spec) != 1 || spec[0].Key != "session" {
		return spec, nil
	}
	body, _ := spec[0].Value.(bson.D)
	so := getDoc(body, "sessionOptions")
	id, ok := lookup(so, "snapshotTime")
	name, isName := id.(string)
	if !ok || !isName {
		return spec, nil
	}
	ts, err := getAs[bson.Timestamp](r.ents, name)
	if err != nil {
		return nil, err
	}
	so = append(without(so, "snapshotTime"), bson.E{Key: "snapshotTime", Value: ts})
	body = append(without(body, "sessionOptions"), bson.E{Key: "sessionOptions", Value: so})
	return bson.D{{Key: "session", Value: body}}, nil
}

func opEndSession(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	s, err := getAs[*mongo.Session](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	s.EndSession(ctx)
	return nil, false, nil
}

// opAssertDirty checks the session argument's server session dirty flag.
func opAssertDirty(ctx context.Context, _ *testRun, op Operation) (any, bool, error) {
	s := mongo.SessionFromContext(ctx) // runOp took the session argument
	if s == nil {
		return nil, false, runnerErrorf("runner: %s without a session", op.Name)
	}
	cs := reflect.ValueOf(s).Elem().FieldByName("clientSession")
	if !cs.IsValid() || cs.IsNil() {
		return nil, false, runnerErrorf("runner: cannot read the session's state")
	}
	srv := cs.Elem().FieldByName("Server")
	if !srv.IsValid() || srv.IsNil() {
		return nil, false, runnerErrorf("runner: the session has no server session")
	}
	dirty := srv.Elem().FieldByName("Dirty").Bool()
	if want := op.Name == "assertSessionDirty"; dirty != want {
		return nil, false, fmt.Errorf("%s: session dirty is %v", op.Name, dirty)
	}
	return nil, false, nil
}

func opGetSnapshotTime(_ context.Context, r *testRun, op Operation) (any, bool, error) {
	s, err := getAs[*mongo.Session](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	return s.SnapshotTime(), false, nil
}
