package main

import "testing"

func TestRedact(t *testing.T) {
	tests := []struct{ db, want string }{
		{"./fencelab.db", "./fencelab.db"},
		{"/var/lib/fencelab/postgres:x.db", "/var/lib/fencelab/postgres:x.db"},
		{"postgres://lab:s3cret@db.internal:5432/lab?sslmode=require", "postgres://lab:xxxxx@db.internal:5432/lab?sslmode=require"},
		{"postgresql://lab@db/lab", "postgresql://lab@db/lab"},
	}
	for _, tt := range tests {
		if got := redact(tt.db); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.db, got, tt.want)
		}
	}
}
