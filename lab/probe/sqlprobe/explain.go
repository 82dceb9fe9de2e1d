package sqlprobe

import (
	"fmt"
	"strings"

	"fencelab/lab/probe"
)

// Annotate keeps the statement file with a result and, where the
// receiver and the model differ, names the blocks and statements that
// decided: the check block's (if any) and the write block's.
func (r *Receiver) Annotate(res *probe.Result) {
	res.SQL = r.SQLFile()
	if res.Verdict != probe.Disagree {
		return
	}
	res.Divergence += ". " + r.Deciders()
}

// Deciders names the statements that decide a write, in words.
func (r *Receiver) Deciders() string {
	var parts []string
	for _, name := range []string{"check", "write"} {
		b := r.file.Blocks[name]
		if b == nil {
			continue
		}
		for i, st := range b.Statements {
			parts = append(parts, fmt.Sprintf("block %s statement %d (%s line %d): %s", name, i+1, r.file.Name, st.Line, clip(st.Text)))
		}
	}
	iso := "the database's default isolation"
	if r.engine == SQLite {
		iso = "BEGIN IMMEDIATE"
	} else if r.iso.String() != "Default" {
		iso = "isolation " + strings.ToLower(r.iso.String())
	}
	return fmt.Sprintf("The statements that decided, in one transaction at %s on %s: %s", iso, r.engine, strings.Join(parts, "; "))
}
