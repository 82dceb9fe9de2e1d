// Package static holds the stylesheets, scripts and vendored front-end
// libraries that the server serves, embedded so the binary needs no files
// beside it and no CDN, and names each under a content-hashed address so
// that browsers may keep it for a year.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
)

// FS holds css/, js/ and vendor/ under those names, ready for
// http.FS or echo's StaticFS.
//
//go:embed css js vendor
var FS embed.FS

// Prefix is where the files are served.
const Prefix = "/static/"

// hashLen is how many hex digits of a file's SHA-256 its address carries.
const hashLen = 12

// hashes maps each embedded file's name ("css/site.css") to the hash its
// address carries. The files never change while the program runs.
var hashes = hashAll()

func hashAll() map[string]string {
	m := map[string]string{}
	_ = fs.WalkDir(FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := FS.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[name] = hex.EncodeToString(sum[:])[:hashLen]
		return nil
	})
	return m
}

// Hash returns the content hash of the file name ("css/site.css"), and
// whether there is such a file.
func Hash(name string) (string, bool) {
	h, ok := hashes[name]
	return h, ok
}

// URL returns the address of name, a path under static/ such as
// "css/site.css" or "/static/css/site.css", with its content hash before
// the extension: "/static/css/site.0a1b2c3d4e5f.css". A name that is not
// embedded comes back as its plain address.
func URL(name string) string {
	name = strings.TrimPrefix(name, Prefix)
	h, ok := hashes[name]
	if !ok {
		return Prefix + name
	}
	ext := path.Ext(name)
	return Prefix + strings.TrimSuffix(name, ext) + "." + h + ext
}

// Resolve takes a path under /static/ (without the prefix) and returns the
// embedded file it names and whether the path carried that file's current
// hash. Both "css/site.css" and "css/site.0a1b2c3d4e5f.css" resolve to
// "css/site.css"; an address with an old hash resolves too, unhashed, so a
// page cached from before an upgrade still gets its stylesheet.
func Resolve(p string) (name string, hashed, ok bool) {
	if _, ok := hashes[p]; ok {
		return p, false, true
	}
	ext := path.Ext(p)
	stem := strings.TrimSuffix(p, ext)
	dot := strings.LastIndexByte(stem, '.')
	if dot < 0 || len(stem)-dot-1 != hashLen {
		return "", false, false
	}
	name = stem[:dot] + ext
	h, ok := hashes[name]
	if !ok {
		return "", false, false
	}
	return name, h == stem[dot+1:], true
}
