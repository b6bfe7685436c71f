// Package collation implements MongoDB's collation documents
// ({locale, caseLevel, caseFirst, strength, numericOrdering, alternate,
// maxVariable, normalization, backwards, version}) on top of
// golang.org/x/text/collate (Unicode collation).
//
// Invariants:
//   - Parse returns nil for the simple (binary) collation; every other spec
//     is returned normalised, with every field filled in as MongoDB shows it
//     in listIndexes / listCollections (Spec.Doc).
//   - For a Collator c and strings a, b:
//     sign(c.CompareString(a, b)) == sign(strings.Compare(c.Key(a), c.Key(b))),
//     so a collated index may store c.Key(s) in place of s and keep order.
//   - A Collator is safe for concurrent use; its state is per call (pooled).
//   - Parsing allocates in proportion to the spec; the cache of built
//     collators is bounded (maxCached).
package collation
