package main

import (
	"os"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether f is a terminal (not a pipe, file or /dev/null).
func isTerminal(f *os.File) bool { return isatty.IsTerminal(f.Fd()) }
