package routing

import (
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

var (
	testEpoch = bson.ObjectID{0x65, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	testTS    = bson.Timestamp{T: 1700000000, I: 1}
)

func testCollection(t testing.TB, pattern string) Collection {
	t.Helper()
	p, err := key.Parse(parseDoc(t, pattern))
	if err != nil {
		t.Fatalf("pattern %s: %v", pattern, err)
	}
	return Collection{NS: "db.c", Key: p, Epoch: testEpoch, Timestamp: testTS}
}

func parseDoc(t testing.TB, s string) bson.D {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad JSON %q: %v", s, err)
	}
	return d
}

func version(major, minor uint32) ChunkVersion {
	return ChunkVersion{Epoch: testEpoch, Timestamp: testTS, Major: major, Minor: minor}
}

// parseBound reads a chunk bound: MinKey or MaxKey (the global bounds) or
// Extended JSON; int32 values of a hashed field become int64.
func parseBound(t testing.TB, p key.Pattern, s string) bson.D {
	t.Helper()
	switch s {
	case "MinKey":
		return p.GlobalMin()
	case "MaxKey":
		return p.GlobalMax()
	}
	d := parseDoc(t, s)
	if h := p.HashedField(); h >= 0 && h < len(d) {
		if i, ok := d[h].Value.(int32); ok {
			d[h].Value = int64(i)
		}
	}
	return d
}

// chunksFromTable reads lines "shard: min"; each chunk ends where the next
// begins, the last at MaxKey; versions are 1|0, 1|1, ... in order.
func chunksFromTable(t testing.TB, p key.Pattern, input string) []Chunk {
	t.Helper()
	var chunks []Chunk
	for i, line := range nonEmptyLines(input) {
		shard, bound, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("chunk line %q: want shard: min", line)
		}
		min := parseBound(t, p, strings.TrimSpace(bound))
		if i > 0 {
			chunks[i-1].Max = min
		}
		chunks = append(chunks, Chunk{Min: min, Shard: strings.TrimSpace(shard), Lastmod: version(1, uint32(i))})
	}
	if len(chunks) > 0 {
		chunks[len(chunks)-1].Max = p.GlobalMax()
	}
	return chunks
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func formatChunks(chunks []Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		fmt.Fprintf(&b, "%s %s %d|%d\n", c.Range(), c.Shard, c.Lastmod.Major, c.Lastmod.Minor)
	}
	return b.String()
}

func errString(err error) string {
	return "error: " + mongoerr.From(err).Error() + "\n"
}
