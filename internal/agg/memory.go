package agg

import (
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Blocking stages bound the bytes they hold by MongoDB's server
// parameters. Sizes are estimates of the BSON size of what a stage holds
// (docSize), plus a small per-item overhead: cheap, not exact.
//
// Invariant: a stage never holds more than its limit plus one item; past
// the limit it spills to disk (Env.AllowDiskUse) or fails with 292
// QueryExceededMemoryLimitNoDiskUseAllowed.
const (
	// ParamSortBytes bounds $sort (and $sample, a sort by a random key).
	ParamSortBytes = "internalQueryMaxBlockingSortMemoryUsageBytes"
	// ParamGroupBytes bounds $group, $bucket, $count and $sortByCount's group.
	ParamGroupBytes = "internalDocumentSourceGroupMaxMemoryBytes"
	// ParamLookupCacheBytes bounds the foreign documents $lookup caches;
	// past it $lookup re-reads the foreign collection for each document.
	ParamLookupCacheBytes = "internalDocumentSourceLookupCacheSizeBytes"
	// ParamFacetBufferBytes bounds the input $facet buffers for its
	// sub-pipelines.
	ParamFacetBufferBytes = "internalQueryFacetBufferSizeBytes"
	// ParamFacetOutputBytes bounds the document $facet builds.
	ParamFacetOutputBytes = "internalQueryFacetMaxOutputDocSizeBytes"
	// ParamWindowBytes bounds the partition $setWindowFields holds.
	ParamWindowBytes = "internalDocumentSourceSetWindowFieldsMaxMemoryBytes"
	// ParamGraphLookupBytes bounds what $graphLookup holds per document:
	// its visited set and queue.
	ParamGraphLookupBytes = "internalDocumentSourceGraphLookupMaxMemoryBytes"
)

// defaultLimitBytes is MongoDB's default for each of the parameters.
const defaultLimitBytes = 100 << 20

// maxUserDocBytes is the 16 MiB document limit plus the 16 KiB MongoDB
// allows internally, the bound on one $lookup result array.
const maxUserDocBytes = 16<<20 + 16<<10

var params = newParams()

func newParams() map[string]*atomic.Int64 {
	m := map[string]*atomic.Int64{}
	for _, n := range ParamNames() {
		m[n] = new(atomic.Int64)
		m[n].Store(defaultLimitBytes)
	}
	return m
}

// ParamNames lists the memory parameters agg owns, in a fixed order.
func ParamNames() []string {
	return []string{ParamSortBytes, ParamGroupBytes, ParamLookupCacheBytes, ParamFacetBufferBytes, ParamFacetOutputBytes,
		ParamWindowBytes, ParamGraphLookupBytes}
}

// Parameters returns the memory parameters and their values, for
// getParameter.
func Parameters() bson.D {
	out := bson.D{}
	for _, n := range ParamNames() {
		out = append(out, bson.E{Key: n, Value: params[n].Load()})
	}
	return out
}

// SetParameter sets one memory parameter (setParameter); found is false
// when name is not one of agg's. Values must be positive integers. It
// returns the previous value. Pipelines already running keep the limits
// they started with.
func SetParameter(name string, value any) (was int64, found bool, err error) {
	p, ok := params[name]
	if !ok {
		return 0, false, nil
	}
	n, isInt := bsonx.AsInt64(value)
	if !bsonx.IsNumber(value) || !isInt || n <= 0 {
		return 0, true, mongoerr.New(mongoerr.BadValue, "%s must be a positive integer, got %v", name, value)
	}
	return p.Swap(n), true, nil
}

// limits are the memory limits one Run uses, read when it starts.
type limits struct {
	sortBytes, groupBytes, lookupCacheBytes, facetBufferBytes, facetOutputBytes int64
	windowBytes, graphLookupBytes                                               int64
	allowDiskUse                                                                bool
	tempDir                                                                     string // "" = os.TempDir()
}

func currentLimits(env *Env) *limits {
	return &limits{
		sortBytes:        params[ParamSortBytes].Load(),
		groupBytes:       params[ParamGroupBytes].Load(),
		lookupCacheBytes: params[ParamLookupCacheBytes].Load(),
		facetBufferBytes: params[ParamFacetBufferBytes].Load(),
		facetOutputBytes: params[ParamFacetOutputBytes].Load(),
		windowBytes:      params[ParamWindowBytes].Load(),
		graphLookupBytes: params[ParamGraphLookupBytes].Load(),
		allowDiskUse:     env.AllowDiskUse,
		tempDir:          env.TempDir,
	}
}

const errNoDiskUse = mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed

func sortLimitErr(limit int64) error {
	return mongoerr.New(errNoDiskUse, "PlanExecutor error during aggregation :: caused by :: Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", limit)
}

func groupLimitErr() error {
	return mongoerr.New(errNoDiskUse, "PlanExecutor error during aggregation :: caused by :: Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in.")
}

func facetLimitErr(limit int64) error {
	return mongoerr.New(errNoDiskUse, "PlanExecutor error during aggregation :: caused by :: $facet exceeded memory limit of %d bytes buffering its input, but did not opt in to external sorting. Pass allowDiskUse:true to opt in.", limit)
}

// itemOverhead is added per held document or group: slice slots, map
// entries, the sort key.
const itemOverhead = 32

// docSize estimates the BSON size of d without encoding it.
func docSize(d bson.D) int64 {
	n := int64(5)
	for _, e := range d {
		n += 2 + int64(len(e.Key)) + valueSize(e.Value)
	}
	return n
}

// valueSize estimates the BSON size of one value (without its key).
func valueSize(v any) int64 {
	switch t := v.(type) {
	case nil, bool, bson.Null, bson.Undefined, bson.MinKey, bson.MaxKey:
		return 1
	case int32:
		return 4
	case int64, float64, bson.DateTime, bson.Timestamp, time.Time:
		return 8
	case string:
		return 5 + int64(len(t))
	case bson.D:
		return docSize(t)
	case bson.A:
		n := int64(5)
		for i, x := range t {
			n += 2 + digits(i) + valueSize(x)
		}
		return n
	case bson.Binary:
		return 5 + int64(len(t.Data))
	case []byte:
		return 5 + int64(len(t))
	case bson.Decimal128:
		return 16
	case bson.ObjectID:
		return 12
	case bson.Regex:
		return 2 + int64(len(t.Pattern)+len(t.Options))
	}
	return 16
}

func digits(i int) int64 {
	n := int64(1)
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// GroupMemory is the $group memory limit a router merging the shards'
// partial groups holds them to (it cannot spill): the current
// internalDocumentSourceGroupMaxMemoryBytes, the estimated size of one
// group, and the error past the limit.
func GroupMemory() (limit int64, size func(bson.D) int64, exceeded func() error) {
	return params[ParamGroupBytes].Load(), func(d bson.D) int64 { return docSize(d) + itemOverhead }, groupLimitErr
}
