package spec

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// sensitiveCommands are never recorded (the spec's list plus hello).
var sensitiveCommands = map[string]bool{
	"hello": true, "ismaster": true, "saslstart": true, "saslcontinue": true,
	"getnonce": true, "authenticate": true, "createuser": true, "updateuser": true,
	"copydbgetnonce": true, "copydbsaslstart": true, "copydb": true,
}

// alwaysIgnored commands are never recorded, whatever the client entity
// says (unified format: "in addition to configureFailPoint").
var alwaysIgnored = map[string]bool{"configurefailpoint": true}

// observedEvent is one command monitoring event a client entity recorded.
type observedEvent struct {
	kind    string // commandStartedEvent, commandSucceededEvent, commandFailedEvent
	name    string
	db      string
	payload bson.D // command (started) or reply (succeeded)
}

// clientEntity is a MongoClient with its recorded events.
type clientEntity struct {
	c       *mongo.Client
	observe map[string]bool
	ignore  map[string]bool

	mu     sync.Mutex
	events []observedEvent // REQUIRES: mu
	cmap   []observedEvent // REQUIRES: mu; connection pool events
}

func (ce *clientEntity) record(kind, name, db string, raw bson.Raw) {
	lower := strings.ToLower(name)
	if !ce.observe[kind] || ce.ignore[name] || sensitiveCommands[lower] || alwaysIgnored[lower] {
		return
	}
	ev := observedEvent{kind: kind, name: name, db: db}
	if raw != nil {
		ev.payload, _ = normalize(raw).(bson.D)
	}
	ce.mu.Lock()
	ce.events = append(ce.events, ev)
	ce.mu.Unlock()
}

func (ce *clientEntity) observed() []observedEvent {
	ce.mu.Lock()
	defer ce.mu.Unlock()
	return append([]observedEvent(nil), ce.events...)
}

func (ce *clientEntity) observedCMAP() []observedEvent {
	ce.mu.Lock()
	defer ce.mu.Unlock()
	return append([]observedEvent(nil), ce.cmap...)
}

func (ce *clientEntity) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			ce.record("commandStartedEvent", e.CommandName, e.DatabaseName, e.Command)
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			ce.record("commandSucceededEvent", e.CommandName, e.DatabaseName, e.Reply)
		},
		Failed: func(_ context.Context, e *event.CommandFailedEvent) {
			ce.record("commandFailedEvent", e.CommandName, e.DatabaseName, nil)
		},
	}
}

// entityMap holds one test's entities by id.
type entityMap struct {
	mu  sync.Mutex
	m   map[string]any                     // REQUIRES: mu
	wcs map[any]*writeconcern.WriteConcern // REQUIRES: mu; database/collection -> effective write concern
}

func newEntityMap() *entityMap {
	return &entityMap{m: map[string]any{}, wcs: map[any]*writeconcern.WriteConcern{}}
}

func (em *entityMap) add(id string, v any) error {
	em.mu.Lock()
	defer em.mu.Unlock()
	if _, dup := em.m[id]; dup {
		return fmt.Errorf("entity %q already exists", id)
	}
	em.m[id] = v
	return nil
}

func (em *entityMap) get(id string) (any, error) {
	em.mu.Lock()
	defer em.mu.Unlock()
	v, ok := em.m[id]
	if !ok {
		return nil, runnerErrorf("runner: entity %q not found", id)
	}
	return v, nil
}

// getAs fetches entity id and checks its type.
func getAs[T any](em *entityMap, id string) (T, error) {
	var zero T
	v, err := em.get(id)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, runnerErrorf("runner: entity %q is %T, want %T", id, v, zero)
	}
	return t, nil
}

func (em *entityMap) bsonValue(id string) (any, error) { return em.get(id) }

func (em *entityMap) sessionLsid(id string) (any, error) {
	s, err := getAs[*mongo.Session](em, id)
	if err != nil {
		return nil, err
	}
	return normalize(s.ID()), nil
}

// close ends sessions, closes cursors and disconnects clients.
func (em *entityMap) close() {
	em.mu.Lock()
	defer em.mu.Unlock()
	ctx := context.Background()
	for _, v := range em.m {
		switch x := v.(type) {
		case *mongo.Cursor:
			_ = x.Close(ctx)
		case *mongo.Session:
			x.EndSession(ctx)
		}
	}
	for _, v := range em.m {
		if ce, ok := v.(*clientEntity); ok {
			_ = ce.c.Disconnect(ctx)
		}
	}
}

// clientURI appends uriOptions to the server's base URI.
func clientURI(base string, uriOptions bson.D) string {
	if len(uriOptions) == 0 {
		return base
	}
	q := url.Values{}
	for _, e := range uriOptions {
		q.Set(e.Key, fmt.Sprint(e.Value))
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + q.Encode()
}

func newClientEntity(spec bson.D, baseURI string) (*clientEntity, error) {
	ce := &clientEntity{observe: map[string]bool{}, ignore: map[string]bool{}}
	opts := options.Client()
	for _, e := range spec {
		switch e.Key {
		case "id", "useMultipleMongoses", "observeSensitiveCommands":
		case "uriOptions":
			opts.ApplyURI(clientURI(baseURI, e.Value.(bson.D)))
		case "observeEvents":
			for _, n := range e.Value.(bson.A) {
				ce.observe[fmt.Sprint(n)] = true
			}
		case "ignoreCommandMonitoringEvents":
			for _, n := range e.Value.(bson.A) {
				ce.ignore[fmt.Sprint(n)] = true
			}
		case "serverApi":
			opts.SetServerAPIOptions(serverAPI(e.Value.(bson.D)))
		default:
			return nil, fmt.Errorf("runner: unsupported client option %q", e.Key)
		}
	}
	if _, ok := lookup(spec, "uriOptions"); !ok {
		opts.ApplyURI(baseURI)
	}
	for k := range ce.observe {
		if !strings.HasPrefix(k, "command") && !cmapEventNames[k] {
			return nil, fmt.Errorf("runner: unsupported observeEvents %q", k)
		}
	}
	opts.SetMonitor(ce.monitor())
	opts.SetPoolMonitor(ce.poolMonitor())
	c, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("connect client: %w", err)
	}
	ce.c = c
	return ce, nil
}

func serverAPI(d bson.D) *options.ServerAPIOptions {
	o := options.ServerAPI(options.ServerAPIVersion(getString(d, "version")))
	if b, ok := getBool(d, "strict"); ok {
		o.SetStrict(b)
	}
	if b, ok := getBool(d, "deprecationErrors"); ok {
		o.SetDeprecationErrors(b)
	}
	return o
}

// createEntities builds the entities of a file, in order.
func createEntities(em *entityMap, specs []bson.D, baseURI string) error {
	for _, s := range specs {
		if len(s) != 1 {
			return fmt.Errorf("bad entity %v", s)
		}
		kind, body := s[0].Key, s[0].Value.(bson.D)
		id := getString(body, "id")
		v, err := createEntity(em, kind, body, baseURI)
		if err != nil {
			return fmt.Errorf("create %s %q: %w", kind, id, err)
		}
		if err := em.add(id, v); err != nil {
			return err
		}
	}
	return nil
}

func createEntity(em *entityMap, kind string, body bson.D, baseURI string) (any, error) {
	switch kind {
	case "client":
		return newClientEntity(body, baseURI)
	case "database":
		ce, err := getAs[*clientEntity](em, getString(body, "client"))
		if err != nil {
			return nil, err
		}
		o, c, err := databaseOptions(getDoc(body, "databaseOptions"))
		if err != nil {
			return nil, err
		}
		db := ce.c.Database(getString(body, "databaseName"), o)
		em.setWC(db, c.wc)
		return db, nil
	case "collection":
		db, err := getAs[*mongo.Database](em, getString(body, "database"))
		if err != nil {
			return nil, err
		}
		o, c, err := collectionOptions(getDoc(body, "collectionOptions"))
		if err != nil {
			return nil, err
		}
		coll := db.Collection(getString(body, "collectionName"), o)
		if c.wc == nil {
			c.wc = em.writeConcern(db)
		}
		em.setWC(coll, c.wc)
		return coll, nil
	case "session":
		ce, err := getAs[*clientEntity](em, getString(body, "client"))
		if err != nil {
			return nil, err
		}
		o, err := sessionOptions(getDoc(body, "sessionOptions")) // ops_txn.go
		if err != nil {
			return nil, err
		}
		return ce.c.StartSession(o)
	}
	return nil, fmt.Errorf("runner: unsupported entity type %q", kind)
}

// entityIDs lists the ids in a stable order (for messages).
func (em *entityMap) entityIDs() []string {
	em.mu.Lock()
	defer em.mu.Unlock()
	var ids []string
	for k := range em.m {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	return ids
}
