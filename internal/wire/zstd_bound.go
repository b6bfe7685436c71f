package wire

import (
	"errors"

	"github.com/klauspost/compress/zstd"
)

// zstdMaxBlock is zstd's Block_Maximum_Size (before the window's limit).
const zstdMaxBlock = 128 << 10

var errZstdTruncated = errors.New("zstd frame truncated")

// zstdBound walks the frames in src without decoding them and returns the
// most bytes they can decompress to: a raw or RLE block's stated size, a
// compressed block's maximum (min(window, 128 KiB)), never more than a
// frame's content size when it states one. It allocates nothing.
func zstdBound(src []byte) (uint64, error) {
	var total uint64
	for len(src) > 0 {
		n, rest, err := zstdFrameBound(src)
		if err != nil {
			return 0, err
		}
		total, src = total+n, rest
	}
	return total, nil
}

// zstdFrameBound bounds the first frame of src and returns what follows it.
func zstdFrameBound(src []byte) (uint64, []byte, error) {
	var h zstd.Header
	rest, err := h.DecodeAndStrip(src)
	if err != nil {
		return 0, nil, err
	}
	if h.Skippable {
		if uint64(len(rest)) < uint64(h.SkippableSize) {
			return 0, nil, errZstdTruncated
		}
		return 0, rest[h.SkippableSize:], nil
	}
	window := h.WindowSize
	if h.SingleSegment {
		window = h.FrameContentSize
	}
	bound, rest, err := zstdBlocksBound(rest, min(window, zstdMaxBlock))
	if err != nil {
		return 0, nil, err
	}
	if h.HasCheckSum {
		if len(rest) < 4 {
			return 0, nil, errZstdTruncated
		}
		rest = rest[4:]
	}
	if h.HasFCS {
		bound = min(bound, h.FrameContentSize)
	}
	return bound, rest, nil
}

// zstdBlocksBound walks a frame's blocks up to and including the last one.
func zstdBlocksBound(src []byte, blockMax uint64) (uint64, []byte, error) {
	var bound uint64
	for {
		if len(src) < 3 {
			return 0, nil, errZstdTruncated
		}
		bh := uint32(src[0]) | uint32(src[1])<<8 | uint32(src[2])<<16
		last, size := bh&1 != 0, uint64(bh>>3)
		src = src[3:]
		in, out := size, min(size, blockMax)
		switch (bh >> 1) & 3 {
		case 0: // raw
		case 1: // RLE: one byte repeated size times
			in = 1
		case 2: // compressed: size is the input; output is at most blockMax
			out = blockMax
		default:
			return 0, nil, errors.New("zstd block type is reserved")
		}
		if uint64(len(src)) < in {
			return 0, nil, errZstdTruncated
		}
		bound, src = bound+out, src[in:]
		if last {
			return bound, src, nil
		}
	}
}
