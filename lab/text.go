package lab

import (
	"strconv"
	"strings"
)

// text is where a full replay writes its reasons, warnings and request
// ids: back to back in a few large buffers instead of one allocation a
// string. A string taken from it stays valid while more is written, since
// written bytes are never touched again: a full buffer is left to the
// strings that point into it and a new one is started.
type text struct {
	b    strings.Builder
	size int // the least a new buffer holds; minTextChunk when 0
}

// minTextChunk is the least a new buffer holds.
const minTextChunk = 256

// textChunk is the size of the first buffer of a replay of n events: about
// what the reasons of a typical step take.
func textChunk(n int) int { return max(minTextChunk, 96*n) }

// grow starts a new buffer with room for at least n bytes when the
// current one has less. The new one is as large as the last, so that what
// a full buffer leaves unused stays small beside what it holds.
func (t *text) grow(n int) {
	c := t.b.Cap()
	if c-t.b.Len() >= n {
		return
	}
	t.b = strings.Builder{}
	t.b.Grow(max(n, c, t.size, minTextChunk))
}

// join writes parts one after another and returns them as one string.
func (t *text) join(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n == 0 {
		return ""
	}
	t.grow(n)
	start := t.b.Len()
	for _, p := range parts {
		t.b.WriteString(p)
	}
	return t.b.String()[start:]
}

// int writes v in decimal and returns it.
func (t *text) int(v int64) string {
	if 0 <= v && v < 100 {
		return strconv.FormatInt(v, 10) // strconv keeps these, allocating nothing
	}
	var buf [20]byte
	t.grow(len(buf))
	start := t.b.Len()
	t.b.Write(strconv.AppendInt(buf[:0], v, 10))
	return t.b.String()[start:]
}
