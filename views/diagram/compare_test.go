package diagram

import (
	"bytes"
	"image/png"
	"testing"

	"fencelab/lab"
)

func TestComparePolicies(t *testing.T) {
	t.Parallel()
	tr := lab.Replay(builtin(t, "paused-worker"))
	tests := []struct {
		prefer []lab.Policy
		a, b   lab.Policy
	}{
		{nil, lab.Unfenced, lab.ClientCheck},
		{[]lab.Policy{lab.Fenced}, lab.Unfenced, lab.Fenced},
		{[]lab.Policy{lab.Unfenced}, lab.Unfenced, lab.ClientCheck},
		{[]lab.Policy{lab.Unfenced, lab.Fenced}, lab.Unfenced, lab.Fenced},
		{[]lab.Policy{lab.Unfenced, lab.Authoritative}, lab.Unfenced, lab.Authoritative},
	}
	for _, tt := range tests {
		if a, b := ComparePolicies(tr, tt.prefer); a != tt.a || b != tt.b {
			t.Errorf("ComparePolicies(paused-worker, %v) = %s, %s; want %s, %s", tt.prefer, a, b, tt.a, tt.b)
		}
	}
}

// TestComparePNG draws the card of paused-worker: 1200×630, its strip red
// over the failure and green over the fix.
func TestComparePNG(t *testing.T) {
	t.Parallel()
	s := builtin(t, "paused-worker")
	tr := lab.Replay(s)
	var buf bytes.Buffer
	if err := ComparePNG(&buf, s, tr, lab.Unfenced, lab.Fenced); err != nil {
		t.Fatalf("ComparePNG: %v", err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("decode the card: %v", err)
	}
	if b := img.Bounds(); b.Dx() != CardWidth || b.Dy() != CardHeight {
		t.Errorf("ComparePNG(paused-worker) is %dx%d, want %dx%d", b.Dx(), b.Dy(), CardWidth, CardHeight)
	}
	for _, tt := range []struct {
		x    int
		want string
	}{{100, colViol}, {1100, colGood}} {
		r, g, b, _ := img.At(tt.x, 4).RGBA()
		if got := "#" + hex2(r) + hex2(g) + hex2(b); got != tt.want {
			t.Errorf("ComparePNG(paused-worker, unfenced, fenced) strip at x=%d is %s, want %s", tt.x, got, tt.want)
		}
	}
	want := "“The lease ended before the process stopped” under unfenced and fenced side by side: unfenced corrupts data; fenced keeps the data: no invariant violated"
	if got := CompareAlt(s, tr, lab.Unfenced, lab.Fenced); got != want {
		t.Errorf("CompareAlt(paused-worker) = %q, want %q", got, want)
	}
}

func hex2(v uint32) string {
	const digits = "0123456789abcdef"
	v >>= 8
	return string([]byte{digits[v>>4], digits[v&15]})
}
