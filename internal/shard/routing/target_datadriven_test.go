package routing

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// TestTargetGolden runs the scripts in testdata/target. Verbs:
//
//	collection key=PATTERN   a new collection db.c (no chunks yet)
//	chunks                   one line "shard: min" per chunk (MinKey for the
//	                         global min); versions 1|0, 1|1, ...; prints them
//	initial primary=S shards=(S,...) [per-shard=N]
//	                         InitialChunks; prints them
//	split min=BOUND          splits the chunk starting at BOUND at the
//	                         points given one per line; prints the chunks
//	target [filter=JSON]     the filter (or the input); prints the shards
//	                         and whether the key chose them
//	shard-for                one document per line; prints its shard
//	shard-key                one filter per line; prints the key it pins
//	versions                 the collection and placement versions
//
// Patterns, filters and bounds are Extended JSON without spaces (or input
// lines). go test ./internal/shard/routing -run TestTargetGolden -rewrite
// regenerates the expected output.
func TestTargetGolden(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "target"), func(t *testing.T, path string) {
		s := &script{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return s.run(t, d)
		})
	})
}

type script struct {
	coll Collection
	m    *ChunkManager
}

func (s *script) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "split", "target", "shard-for", "shard-key", "versions":
		if s.m == nil {
			return "error: no routing table\n"
		}
	}
	switch d.Cmd {
	case "collection":
		s.coll, s.m = testCollection(t, arg(t, d, "key")), nil
		return "ok\n"
	case "chunks":
		return s.install(chunksFromTable(t, s.coll.Key, d.Input))
	case "initial":
		return s.initial(t, d)
	case "split":
		return s.split(t, d)
	case "target":
		return s.target(t, d)
	case "shard-for":
		return s.shardFor(t, d)
	case "shard-key":
		return s.shardKey(t, d)
	case "versions":
		return s.versions()
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func arg(t *testing.T, d *datadriven.TestData, name string) string {
	var v string
	d.ScanArgs(t, name, &v)
	return v
}

func (s *script) install(chunks []Chunk) string {
	m, err := New(s.coll, chunks)
	if err != nil {
		return errString(err)
	}
	s.m = m
	return formatChunks(m.Chunks())
}

func (s *script) initial(t *testing.T, d *datadriven.TestData) string {
	split := InitialSplit{Primary: arg(t, d, "primary")}
	if d.HasArg("shards") {
		d.ScanArgs(t, "shards", &split.Shards)
	}
	if d.HasArg("per-shard") {
		d.ScanArgs(t, "per-shard", &split.ChunksPerShard)
	}
	chunks, err := InitialChunks(s.coll, split)
	if err != nil {
		return errString(err)
	}
	return s.install(chunks)
}

func (s *script) split(t *testing.T, d *datadriven.TestData) string {
	min := parseBound(t, s.coll.Key, arg(t, d, "min"))
	var points = parseBounds(t, s, d.Input)
	m, err := s.m.Split(min, points)
	if err != nil {
		return errString(err)
	}
	s.m = m
	return formatChunks(m.Chunks())
}

func parseBounds(t *testing.T, s *script, input string) (out []bson.D) {
	for _, line := range nonEmptyLines(input) {
		out = append(out, parseBound(t, s.coll.Key, line))
	}
	return out
}

func (s *script) target(t *testing.T, d *datadriven.TestData) string {
	src := strings.TrimSpace(d.Input)
	if d.HasArg("filter") {
		src = arg(t, d, "filter")
	}
	shards, targeted := s.m.Target(parseDoc(t, src))
	return fmt.Sprintf("shards: %s\ntargeted: %v\n", strings.Join(shards, " "), targeted)
}

func (s *script) shardFor(t *testing.T, d *datadriven.TestData) string {
	var b strings.Builder
	for _, line := range nonEmptyLines(d.Input) {
		shard, err := s.m.ShardFor(parseDoc(t, line))
		if err != nil {
			b.WriteString(errString(err))
			continue
		}
		fmt.Fprintf(&b, "%s\n", shard)
	}
	return b.String()
}

func (s *script) versions() string {
	var b strings.Builder
	cv := s.m.CollectionVersion()
	fmt.Fprintf(&b, "collection: %d|%d\n", cv.Major, cv.Minor)
	shards := append(s.m.Shards(), "absent")
	sort.Strings(shards)
	for _, sh := range shards {
		v := s.m.PlacementVersion(sh)
		fmt.Fprintf(&b, "%s: %d|%d\n", sh, v.Major, v.Minor)
	}
	return b.String()
}

func (s *script) shardKey(t *testing.T, d *datadriven.TestData) string {
	var b strings.Builder
	for _, line := range nonEmptyLines(d.Input) {
		k, ok := ShardKeyFromFilter(s.coll.Key, parseDoc(t, line))
		if !ok {
			b.WriteString("none\n")
			continue
		}
		fmt.Fprintf(&b, "%s\n", key.Format(k))
	}
	return b.String()
}
