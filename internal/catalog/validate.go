package catalog

// ValidateResult is the validate command's check of one collection: the
// documents against their index entries and the collection's counters,
// read from one storage snapshot taken between writes.
type ValidateResult struct {
	NRecords     int64
	KeysPerIndex []IndexKeys // in the collection's index order
	Problems     []string    // empty when the collection is consistent
}

// IndexKeys is one index's entry count.
type IndexKeys struct {
	Name string
	Keys int64
}

// Validate runs Verify's collection check (tool verify) on the live
// catalog: every document has exactly its index entries, every entry
// points to a document with those keys, and the counters match. The
// snapshot and the counters are taken under writeMu, so concurrent writes
// are consistent with both; the scan itself runs without the lock.
func (c *Catalog) Validate(coll *Collection) (ValidateResult, error) {
	c.writeMu.Lock()
	snap := c.eng.NewSnapshot()
	count, size := coll.Count(), coll.DataSize()
	c.writeMu.Unlock()
	defer snap.Close()
	var r Report
	keys, err := verifyCollectionOn(snap, coll, count, size, &r)
	if err != nil {
		return ValidateResult{}, err
	}
	out := ValidateResult{NRecords: r.Documents, Problems: r.Problems}
	for _, idx := range coll.Indexes() {
		out.KeysPerIndex = append(out.KeysPerIndex, IndexKeys{Name: idx.Name, Keys: keys[idx.ID]})
	}
	return out, nil
}
