// Package upload reads a posted form part by part, as it arrives: each
// file once, into one string, where ParseMultipartForm buffers it, copies
// it into a file header and leaves it to be read again. The import page
// reads its logs through it.
package upload

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Form is a posted import form: its fields, and its files with their
// names, in the order they came.
type Form struct {
	Values  url.Values
	Uploads []File // field "upload"
	Mapfile *File  // field "mapfile", the first one
}

// File is one uploaded file.
type File struct {
	Name string // as the browser sent it
	Text string
}

// MaxParts bounds a form's fields and files, as ParseMultipartForm's
// default does.
const MaxParts = 1000

// ErrParts refuses a form of more than MaxParts fields and files.
var ErrParts = errors.New("over 1000 fields")

// Read reads the form part by part, as it arrives. Unlike
// ParseMultipartForm, which buffers each file, copies it into a file
// header and leaves it to be read again, each file is read once, into the
// one string the page shows again; the body limit bounds the total.
func Read(req *http.Request) (*Form, error) {
	form := &Form{Values: url.Values{}}
	if !strings.HasPrefix(req.Header.Get("Content-Type"), "multipart/form-data") {
		if err := req.ParseForm(); err != nil {
			return nil, err
		}
		form.Values = req.PostForm
		return form, nil
	}
	mr, err := req.MultipartReader()
	if err != nil {
		return nil, err
	}
	// The rest of the handler reads the fields with FormValue, as after
	// ParseMultipartForm: the query's, then the body's.
	req.PostForm, req.Form = form.Values, req.URL.Query()
	for parts := 0; ; parts++ {
		if parts == MaxParts { // as ParseMultipartForm: a body of tiny fields costs no more
			return nil, ErrParts
		}
		part, err := mr.NextPart()
		if err == io.EOF {
			for k, vs := range form.Values {
				req.Form[k] = append(slices.Clip(vs), req.Form[k]...)
			}
			return form, nil
		}
		if err != nil {
			return nil, err
		}
		text, err := readPart(part)
		part.Close()
		if err != nil {
			return nil, err
		}
		field := part.FormName()
		switch {
		case part.FileName() == "":
			form.Values.Add(field, text)
		case field == "upload":
			form.Uploads = append(form.Uploads, File{Name: part.FileName(), Text: text})
		case field == "mapfile" && form.Mapfile == nil:
			form.Mapfile = &File{Name: part.FileName(), Text: text}
		}
	}
}

// readPart reads a part in chunks, then copies them into one string of
// its size: twice its size allocated, where a growing buffer takes about
// five times.
func readPart(r io.Reader) (string, error) {
	var chunks [][]byte
	n, size := 0, 512 // small fields stay small; chunks grow to 64 KiB
	for {
		c := make([]byte, size)
		k := 0
		var err error
		for k < len(c) && err == nil {
			var m int
			m, err = r.Read(c[k:])
			k += m
		}
		if k > 0 {
			chunks, n = append(chunks, c[:k]), n+k
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		size = min(2*size, 64<<10)
	}
	var b strings.Builder
	b.Grow(n)
	for _, c := range chunks {
		b.Write(c)
	}
	return b.String(), nil
}
