// Package upload reads a posted form part by part, as it arrives, and
// never holds a large log in memory.
//
// Each log, uploaded (field "upload") or pasted (field "log"), of up to
// InMemory bytes is kept in memory; a larger one is copied, as it
// arrives, through a buffer of that size into a temporary file, its
// spool, in os.TempDir() (TMPDIR on Unix). The file is removed from its
// directory as soon as it is created, where the system allows it (Linux
// does), so that nothing is left behind even by a process killed
// mid-upload; its space is freed when Form.Close closes it, or,
// elsewhere, Close removes it. Whoever reads a form closes it, on every
// path; Read itself does when it fails. A spool that cannot be written
// is a *SpoolError.
//
// A form's spools take at most its body, which the request's body limit
// bounds (on the import page 4 MiB, and the server reads two imports at
// once: 8 MiB of disk at most); MaxParts bounds its parts. The mapping
// file is kept in memory, its first MaxMapfile bytes, and so are the
// other fields (the body limit bounds them). A form sent
// otherwise than as multipart/form-data (the import page sends that) is
// read whole, by ParseForm, and may hold at most MaxInline bytes.
//
// The readers of a log read it again from its spool each time, from the
// start (File.Open), rather than from one string of it: the import page
// surveys the logs, imports them and shows them again from there.
package upload

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
)

// Form is a posted import form: its fields, and its logs with their
// names, in the order they came.
type Form struct {
	Values  url.Values // every field but the logs
	Logs    []File     // field "log": pasted logs, each with the name field of its place
	Uploads []File     // field "upload"
	Mapfile *File      // field "mapfile", the first one, at most MaxMapfile bytes of it

	spools []*os.File
	remove []string // spools the system would not remove while open
}

// File is one log, or the mapping file: its text in memory, or in a
// spool when it is larger than InMemory.
type File struct {
	Name string // as the browser sent it; "" for a pasted log
	text string // the text, when it is not spooled
	file *os.File
	size int64
}

// InMemory is the largest log kept in memory; a larger one is spooled to
// a temporary file as it arrives.
const InMemory = 64 << 10

// MaxMapfile is as much of a mapping file as is kept: all that
// logs.ReadMapping reads of one.
const MaxMapfile = 1 << 20

// MaxInline bounds a form that is not multipart/form-data: its fields,
// logs included, are read into memory at once.
const MaxInline = 256 << 10

// ErrInline refuses a form over MaxInline that is not multipart/form-data.
var ErrInline = errors.New("a form of more than 256 KiB not sent as multipart/form-data")

// MaxParts bounds a form's fields and files, as ParseMultipartForm's
// default does.
const MaxParts = 1000

// ErrParts refuses a form of more than MaxParts fields and files.
var ErrParts = errors.New("over 1000 fields")

// SpoolError is a log that could not be written to its temporary file: a
// full disk, or no temporary directory. It is the server's lack, not the
// client's fault.
type SpoolError struct{ Err error }

func (e *SpoolError) Error() string { return "spool an upload: " + e.Err.Error() }
func (e *SpoolError) Unwrap() error { return e.Err }

// Size is the file's length in bytes.
func (f File) Size() int64 {
	if f.file != nil {
		return f.size
	}
	return int64(len(f.text))
}

// Spooled says whether the file is in a temporary file, not in memory.
func (f File) Spooled() bool { return f.file != nil }

// Open gives the file's bytes, from the start, to be read at will: each
// call is a reader of its own. It reads until the form is closed.
func (f File) Open() (io.ReaderAt, int64) {
	if f.file != nil {
		return f.file, f.size
	}
	return strings.NewReader(f.text), int64(len(f.text))
}

// Text is the file's text: for the mapping file and the small logs,
// which are in memory. A spooled file's is read whole, which its readers
// should not need.
func (f File) Text() string {
	if f.file == nil {
		return f.text
	}
	var b strings.Builder
	b.Grow(int(f.size))
	io.Copy(&b, io.NewSectionReader(f.file, 0, f.size))
	return b.String()
}

// Close frees the form's spools. It may be called more than once, and on
// a nil form.
func (form *Form) Close() error {
	if form == nil {
		return nil
	}
	var errs []error
	for _, f := range form.spools {
		errs = append(errs, f.Close())
	}
	for _, name := range form.remove {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	form.spools, form.remove = nil, nil
	return errors.Join(errs...)
}

// Read reads the form part by part, as it arrives. Unlike
// ParseMultipartForm, which buffers each file, copies it into a file
// header and leaves it to be read again, each log is read once, into
// memory when small, else into its spool. The caller closes the form;
// when Read fails, it has freed what it spooled. A spool that cannot be
// written is a *SpoolError.
func Read(req *http.Request) (*Form, error) {
	form := &Form{Values: url.Values{}}
	if !strings.HasPrefix(req.Header.Get("Content-Type"), "multipart/form-data") {
		// ParseForm reads the body whole: only a small one.
		if req.ContentLength > MaxInline {
			return nil, ErrInline
		}
		req.Body = http.MaxBytesReader(nil, req.Body, MaxInline)
		if err := req.ParseForm(); err != nil {
			if big := (*http.MaxBytesError)(nil); errors.As(err, &big) && big.Limit == MaxInline {
				return nil, ErrInline
			}
			return nil, err
		}
		form.Values = req.PostForm
		for _, t := range form.Values["log"] {
			form.Logs = append(form.Logs, File{text: t})
		}
		delete(form.Values, "log")
		return form, nil
	}
	if err := form.read(req); err != nil {
		form.Close()
		return nil, err
	}
	return form, nil
}

func (form *Form) read(req *http.Request) error {
	mr, err := req.MultipartReader()
	if err != nil {
		return err
	}
	// The rest of the handler reads the fields with FormValue, as after
	// ParseMultipartForm: the query's, then the body's.
	req.PostForm, req.Form = form.Values, req.URL.Query()
	buf := make([]byte, InMemory+1) // a log's head, then what a spool is written through
	for parts := 0; ; parts++ {
		if parts == MaxParts { // as ParseMultipartForm: a body of tiny fields costs no more
			return ErrParts
		}
		part, err := mr.NextPart()
		if err == io.EOF {
			for k, vs := range form.Values {
				req.Form[k] = append(slices.Clip(vs), req.Form[k]...)
			}
			return nil
		}
		if err != nil {
			return err
		}
		err = form.readPart(part, buf)
		part.Close()
		if err != nil {
			return err
		}
	}
}

// readPart reads one part into the form: a log into memory or its spool,
// the mapping file into memory, another field into Values; other files
// are read into nothing.
func (form *Form) readPart(part interface {
	io.Reader
	FormName() string
	FileName() string
}, buf []byte) error {
	field, file := part.FormName(), part.FileName()
	switch {
	case field == "log" && file == "", field == "upload" && file != "":
		f, err := form.readLog(part, buf)
		if err != nil {
			return err
		}
		if file == "" {
			form.Logs = append(form.Logs, f)
		} else {
			f.Name = file
			form.Uploads = append(form.Uploads, f)
		}
	case file == "":
		text, err := readSmall(part, -1)
		if err != nil {
			return err
		}
		form.Values.Add(field, text)
	case field == "mapfile" && form.Mapfile == nil:
		text, err := readSmall(part, MaxMapfile)
		if err != nil {
			return err
		}
		form.Mapfile = &File{Name: file, text: text}
		fallthrough // the rest of an over-long one is dropped
	default:
		if _, err := io.CopyBuffer(io.Discard, part, buf); err != nil {
			return err
		}
	}
	return nil
}

// readSmall reads r, or its first limit bytes when limit is 0 or more,
// into a string, through a buffer that grows as it fills: a small field
// stays small.
func readSmall(r io.Reader, limit int64) (string, error) {
	if limit >= 0 {
		r = io.LimitReader(r, limit)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		return "", err
	}
	return b.String(), nil
}

// readLog reads a log into buf, of InMemory+1 bytes, and keeps it in
// memory if it fits in InMemory; else it writes what it read to a spool,
// then the rest through buf, as it arrives.
func (form *Form) readLog(r io.Reader, buf []byte) (File, error) {
	n, err := io.ReadFull(r, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return File{text: string(buf[:n])}, nil
	}
	if err != nil {
		return File{}, err
	}
	spool, err := form.spool()
	if err != nil {
		return File{}, err
	}
	if _, err := spool.Write(buf); err != nil {
		return File{}, &SpoolError{err}
	}
	size := int64(n)
	for {
		k, rerr := r.Read(buf)
		if k > 0 {
			if _, err := spool.Write(buf[:k]); err != nil {
				return File{}, &SpoolError{err}
			}
			size += int64(k)
		}
		if rerr == io.EOF {
			return File{file: spool, size: size}, nil
		}
		if rerr != nil {
			return File{}, rerr
		}
	}
}

// createTemp makes a spool; a test replaces it.
var createTemp = func() (*os.File, error) { return os.CreateTemp("", "fencelab-upload-*") }

// spool makes a temporary file, counted in the form to be closed, and
// removes its name at once where the system lets an open file lose it.
func (form *Form) spool() (*os.File, error) {
	f, err := createTemp()
	if err != nil {
		return nil, &SpoolError{err}
	}
	form.spools = append(form.spools, f)
	if os.Remove(f.Name()) != nil {
		form.remove = append(form.remove, f.Name())
	}
	return f, nil
}
