package spec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Status is a test case's verdict.
type Status string

// The verdicts.
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP"
)

// CaseResult is the verdict of one test case.
type CaseResult struct {
	Test   string `json:"test"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	Millis int64  `json:"millis"`
}

// Runner executes test files against one server.
type Runner struct {
	URI      string        // base URI for client entities
	Env      *Env          // for runOnRequirements
	Internal *mongo.Client // internal client: initialData, outcome, asserts
	Timeout  time.Duration // per test case
	Deadline time.Time     // cases not started by then FAIL unrun; zero = none
	// ShardKey, when set (a router's URI), shards every initialData
	// collection on this key before its documents are inserted, so they
	// spread over the shards (an empty collection with a hashed key gets
	// chunks on every shard).
	ShardKey bson.D
}

// testRun is the state of one test case.
type testRun struct {
	env      *Env
	ents     *entityMap
	internal *mongo.Client
	cleanups []func()
	uri      string // base URI of client entities (createEntities)
}

// RunFile runs every test of f.
func (rn *Runner) RunFile(ctx context.Context, f *File) []CaseResult {
	ok, why := rn.Env.satisfied(ctx, f.RunOnRequirements)
	var out []CaseResult
	for i := range f.Tests {
		t := &f.Tests[i]
		if !ok {
			out = append(out, CaseResult{Test: t.Description, Status: Skip, Reason: "file: " + why})
			continue
		}
		start := time.Now()
		if !rn.Deadline.IsZero() && start.After(rn.Deadline) {
			out = append(out, CaseResult{Test: t.Description, Status: Fail, Reason: "not run: suite time budget exhausted"})
			continue
		}
		res := rn.runCase(ctx, f, t)
		res.Millis = time.Since(start).Milliseconds()
		out = append(out, res)
	}
	return out
}

// runCase applies skip rules, then runs the case under a deadline.
func (rn *Runner) runCase(ctx context.Context, f *File, t *Test) CaseResult {
	res := CaseResult{Test: t.Description}
	if t.SkipReason != "" {
		res.Status, res.Reason = Skip, "skipReason: "+t.SkipReason
		return res
	}
	if ok, why := rn.Env.satisfied(ctx, t.RunOnRequirements); !ok {
		res.Status, res.Reason = Skip, why
		return res
	}
	if err := checkOperations(t); err != nil {
		res.Status, res.Reason = Fail, err.Error()
		return res
	}
	// Cancelled after rn.Timeout, but without a deadline: the v2 driver
	// retries a read or write as often as a deadline allows (CSOT), the
	// retryable tests expect one retry.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := time.AfterFunc(rn.Timeout, cancel)
	defer stop.Stop()
	done := make(chan error, 1)
	go func() { done <- rn.execute(ctx, f, t) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(rn.Timeout + 5*time.Second):
		err = fmt.Errorf("hung: no result %v after the deadline", rn.Timeout)
	}
	if err != nil {
		res.Status, res.Reason = Fail, err.Error()
		if ctx.Err() != nil {
			res.Reason = fmt.Sprintf("deadline %v exceeded: %s", rn.Timeout, res.Reason)
		}
		return res
	}
	res.Status = Pass
	return res
}

// checkOperations fails fast on operations the runner cannot execute.
func checkOperations(t *Test) error {
	for _, d := range t.Operations {
		op, err := ParseOperation(d)
		if err != nil {
			return err
		}
		if !Supported(op.Name) {
			return fmt.Errorf("runner: unsupported operation %s", op.Name)
		}
	}
	return nil
}

func (rn *Runner) execute(ctx context.Context, f *File, t *Test) error {
	r := &testRun{env: rn.Env, ents: newEntityMap(), internal: rn.Internal, uri: rn.URI}
	defer func() {
		for _, c := range r.cleanups {
			c()
		}
		r.ents.close()
	}()
	rn.dropDatabases(ctx, f)
	if err := rn.loadInitialData(ctx, f.InitialData); err != nil {
		return fmt.Errorf("initialData: %w", err)
	}
	if err := createEntities(r.ents, f.CreateEntities, entityBaseURI(rn.URI, f.CreateEntities)); err != nil {
		return fmt.Errorf("createEntities: %w", err)
	}
	for i, d := range t.Operations {
		op, _ := ParseOperation(d)
		if err := r.runOp(ctx, op); err != nil {
			return fmt.Errorf("operation %d (%s): %w", i, op.Name, err)
		}
	}
	if err := r.checkEvents(t.ExpectEvents); err != nil {
		return err
	}
	return r.checkOutcome(ctx, t.Outcome)
}

// dropDatabases drops every database the file names, so no state leaks.
func (rn *Runner) dropDatabases(ctx context.Context, f *File) {
	names := map[string]bool{}
	for _, cd := range f.InitialData {
		names[cd.DatabaseName] = true
	}
	for _, e := range f.CreateEntities {
		if len(e) == 1 && e[0].Key == "database" {
			names[getString(e[0].Value.(bson.D), "databaseName")] = true
		}
	}
	for n := range names {
		if n != "" && n != "admin" && n != "config" && n != "local" {
			_ = rn.Internal.Database(n).Drop(ctx)
		}
	}
}

func (rn *Runner) loadInitialData(ctx context.Context, data []CollectionData) error {
	wc := options.Collection().SetWriteConcern(writeconcern.Majority())
	for _, cd := range data {
		db := rn.Internal.Database(cd.DatabaseName)
		coll := db.Collection(cd.CollectionName, wc)
		if err := coll.Drop(ctx); err != nil {
			return fmt.Errorf("drop %s: %w", fmtNS(cd.DatabaseName, cd.CollectionName), err)
		}
		if len(rn.ShardKey) > 0 {
			if err := rn.shardCollection(ctx, db, cd); err != nil {
				return err
			}
		} else if len(cd.CreateOptions) > 0 || len(cd.Documents) == 0 {
			cmd := append(bson.D{{Key: "create", Value: cd.CollectionName}}, cd.CreateOptions...)
			cmd = append(cmd, bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}})
			if err := db.RunCommand(ctx, cmd).Err(); err != nil {
				return fmt.Errorf("create %s: %w", fmtNS(cd.DatabaseName, cd.CollectionName), err)
			}
		}
		if len(cd.Documents) == 0 {
			continue
		}
		docs := make([]any, len(cd.Documents))
		for i, d := range cd.Documents {
			docs[i] = d
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			return fmt.Errorf("insert into %s: %w", fmtNS(cd.DatabaseName, cd.CollectionName), err)
		}
	}
	return nil
}

// shardCollection creates cd's collection (with its options) and shards
// it on rn.ShardKey, with majority write concern.
func (rn *Runner) shardCollection(ctx context.Context, db *mongo.Database, cd CollectionData) error {
	ns := fmtNS(cd.DatabaseName, cd.CollectionName)
	majority := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}
	create := append(bson.D{{Key: "create", Value: cd.CollectionName}}, cd.CreateOptions...)
	if err := db.RunCommand(ctx, append(create, majority)).Err(); err != nil {
		return fmt.Errorf("create %s: %w", ns, err)
	}
	cmd := bson.D{{Key: "shardCollection", Value: ns}, {Key: "key", Value: rn.ShardKey}, majority}
	if err := rn.Internal.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		return fmt.Errorf("shardCollection %s: %w", ns, err)
	}
	return nil
}

// runOp executes one operation and checks its expectations.
func (r *testRun) runOp(ctx context.Context, op Operation) error {
	fn, ok := operations[op.Name]
	if !ok {
		return runnerErrorf("runner: unsupported operation %s", op.Name)
	}
	if v, ok := lookup(op.Arguments, "session"); ok {
		sess, err := getAs[*mongo.Session](r.ents, fmt.Sprint(v))
		if err != nil {
			return err
		}
		ctx = mongo.NewSessionContext(ctx, sess)
		op.Arguments = without(op.Arguments, "session")
	}
	result, root, err := fn(ctx, r, op)
	var re *runnerError
	if errors.As(err, &re) {
		return err
	}
	if op.IgnoreResultAndError {
		return nil
	}
	if op.ExpectError != nil {
		if err == nil {
			return fmt.Errorf("expected an error, got result %s", show(normalizeResult(result)))
		}
		return r.checkError(op.ExpectError, err, normalizeResult(result))
	}
	if err != nil {
		return fmt.Errorf("unexpected error: %w", err)
	}
	if op.HasExpectResult {
		m := &matcher{ents: r.ents}
		if err := m.match(op.ExpectResult, normalizeResult(result), root, "$"); err != nil {
			return fmt.Errorf("expectResult: %w", err)
		}
	}
	if op.SaveResultAsEntity != "" {
		return r.ents.add(op.SaveResultAsEntity, normalizeResult(result))
	}
	return nil
}

// normalizeResult keeps driver objects (cursors, collections) and
// normalizes values.
func normalizeResult(v any) any {
	switch c := v.(type) {
	case *mongo.Cursor, *mongo.Collection:
		return c
	}
	return normalize(v)
}

func without(d bson.D, key string) bson.D {
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		if e.Key != key {
			out = append(out, e)
		}
	}
	return out
}
