// Package text is MongoDB's text search (text index version 3) without
// the storage: it splits strings into terms, folds case and diacritics,
// drops stop words and stems, scores a document's terms as a text index
// stores them, and parses and evaluates $text queries.
//
// Invariants:
//   - it is pure: no I/O, no global state but read-only language tables;
//   - a document's terms (Spec.Terms) are exactly the terms a text index
//     holds for it, each with the score the index stores, so a query's
//     score computed from the document (Query.Score) equals the sum of
//     its terms' index entries (MongoDB's TEXT_OR);
//   - stemming uses github.com/kljensen/snowball (Snowball) for the
//     languages it has; the others are tokenized and folded only;
//   - every loop is bounded by the size of the document or the query.
package text
