package bsonx

import "bytes"

// Lookup returns the value of the first top-level field named key in raw,
// decoded as Decode would decode it, without decoding the other fields:
// for code that needs one field (an _id, a command name) of a document it
// otherwise keeps as bytes. raw should be a document Validate accepted;
// Lookup checks only what it reads, reporting malformed bytes as
// InvalidBSON (22).
func Lookup(raw []byte, key string) (any, bool, error) {
	d := decoder{maxDepth: MaxWireDepth}
	n, err := d.frame(raw, 1)
	if err != nil {
		return nil, false, err
	}
	body := raw[4 : n-1]
	for pos := 0; pos < len(body); {
		t, k := body[pos], bytes.IndexByte(body[pos+1:], 0)
		if t == 0 || k < 0 {
			return nil, false, invalid("malformed element at offset %d", 4+pos)
		}
		start := pos + 2 + k
		if string(body[pos+1:start-1]) == key {
			var a arena
			v, _, err := d.value(t, body[start:], 1, &a)
			return v, err == nil, err
		}
		size := valueSize(t, body[start:])
		if size < 0 || size > len(body)-start {
			return nil, false, invalid("malformed element at offset %d", 4+pos)
		}
		pos = start + size
	}
	return nil, false, nil
}
