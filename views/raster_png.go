package views

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
)

// encodePNG writes an opaque RGBA image as an 8-bit RGB PNG. It does what
// image/png does with one difference that makes it about twice as fast on
// the diagram: each row gets the "up" filter rather than the best of all
// five, tried one after another. On a drawing of flat colours and
// straight lines, "up" leaves mostly zeros, which deflate at its fastest
// setting packs almost as small.
func encodePNG(w io.Writer, img *image.RGBA) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	width, height := img.Rect.Dx(), img.Rect.Dy()
	if _, err := bw.WriteString("\x89PNG\r\n\x1a\n"); err != nil {
		return err
	}
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(width))
	binary.BigEndian.PutUint32(hdr[4:], uint32(height))
	hdr[8], hdr[9] = 8, 2 // 8 bits per sample, truecolour; deflate, filters, no interlace
	if err := writeChunk(bw, "IHDR", hdr[:]); err != nil {
		return err
	}
	idat := &chunkWriter{w: bw, kind: "IDAT"}
	zw, err := zlib.NewWriterLevel(idat, zlib.BestSpeed)
	if err != nil {
		return err
	}
	row := make([]byte, 1+3*width)
	row[0] = 2                     // up
	above := make([]byte, 4*width) // the row above the first is zeros
	for y := range height {
		off := img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y)
		cur := img.Pix[off : off+4*width]
		out := row[1:]
		for x := 0; x < width; x++ {
			c, a, o := cur[4*x:4*x+3], above[4*x:4*x+3], out[3*x:3*x+3]
			o[0], o[1], o[2] = c[0]-a[0], c[1]-a[1], c[2]-a[2]
		}
		above = cur
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := idat.flush(); err != nil {
		return err
	}
	if err := writeChunk(bw, "IEND", nil); err != nil {
		return err
	}
	return bw.Flush()
}

// chunkWriter cuts the compressed stream into IDAT chunks of up to 64 KiB.
type chunkWriter struct {
	w    io.Writer
	kind string
	buf  []byte
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for len(c.buf) >= 64<<10 {
		if err := writeChunk(c.w, c.kind, c.buf[:64<<10]); err != nil {
			return 0, err
		}
		c.buf = append(c.buf[:0], c.buf[64<<10:]...)
	}
	return len(p), nil
}

func (c *chunkWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	err := writeChunk(c.w, c.kind, c.buf)
	c.buf = nil
	return err
}

// writeChunk writes one PNG chunk: length, type, data, CRC of type and data.
func writeChunk(w io.Writer, kind string, data []byte) error {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], kind)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], crc.Sum32())
	for _, b := range [][]byte{head[:], data, tail[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
