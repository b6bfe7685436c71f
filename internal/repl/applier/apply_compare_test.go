package applier

import (
	"bytes"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// dumpState renders everything replication must reproduce: databases,
// collections (name, UUID, options, counters), index specs and multikey
// flags, documents (raw bytes) and index entries (key and value bytes,
// without the locally allocated index id). The local database is left out.
func dumpState(t testing.TB, c *catalog.Catalog) []string {
	t.Helper()
	var out []string
	for _, db := range c.Databases() {
		if db == catalog.LocalDB {
			continue
		}
		for _, coll := range c.Collections(db) {
			opts := coll.Options
			if len(opts) == 0 {
				opts = nil // a reloaded catalog has {} for none
			}
			out = append(out, fmt.Sprintf("coll %s uuid=%x opts=%v count=%d size=%d",
				coll.NS(), coll.UUID.Data, opts, coll.Count(), coll.DataSize()))
			out = append(out, dumpDocs(t, c, coll)...)
			for _, idx := range coll.Indexes() {
				out = append(out, fmt.Sprintf("  index %v multikey=%v", idx.Spec, idx.Multikey))
				if !idx.IsID() {
					out = append(out, dumpRange(t, c, storage.IndexPrefix(idx.ID), "    entry")...)
				}
			}
		}
	}
	return out
}

func dumpDocs(t testing.TB, c *catalog.Catalog, coll *catalog.Collection) []string {
	return dumpRange(t, c, storage.DocPrefix(coll.ID), "  doc")
}

// dumpRange lists the keys (minus prefix p) and values under p.
func dumpRange(t testing.TB, c *catalog.Catalog, p []byte, label string) []string {
	t.Helper()
	it, err := c.Engine().NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, fmt.Sprintf("%s %x => %x", label, it.Key()[len(p):], it.Value()))
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mustSameState fails with the first difference between two catalogs.
func mustSameState(t testing.TB, want, got *catalog.Catalog) {
	t.Helper()
	a, b := dumpState(t, want), dumpState(t, got)
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			t.Fatalf("states differ at line %d:\n want %s\n got  %s", i, x, y)
		}
	}
	mustVerify(t, got)
}

// mustSameOplog fails unless both oplogs hold byte-identical entries.
func mustSameOplog(t testing.TB, want, got *catalog.Catalog) {
	t.Helper()
	a, err := want.Oplog().ReadRaw(bson.Timestamp{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := got.Oplog().ReadRaw(bson.Timestamp{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("oplogs have %d and %d entries", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("oplog entry %d differs:\n want %v\n got  %v", i, bson.Raw(a[i]), bson.Raw(b[i]))
		}
	}
}

// entriesOf reads c's whole oplog, decoded.
func entriesOf(t testing.TB, c *catalog.Catalog) []*oplog.Entry {
	t.Helper()
	raws, err := c.Oplog().ReadRaw(bson.Timestamp{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*oplog.Entry, len(raws))
	for i, raw := range raws {
		if out[i], err = oplog.Unmarshal(raw); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
