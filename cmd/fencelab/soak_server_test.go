//go:build soak

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// The soak and kill -9 tests run the real program, built once, as a child
// process: what they measure (RSS, a kill -9 mid-commit) needs a process of
// its own. They are behind the build tag soak, outside the default go test.

var soakAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

// buildBinary builds the program into dir once per test run.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "fencelab")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// child is a running fencelab serve.
type child struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:port
	log  *os.File
}

// startServer runs bin serve on a free port with the database at db and
// waits until it listens. Its log goes to a file beside the database.
func startServer(t *testing.T, bin, db string, extra ...string) *child {
	t.Helper()
	logFile, err := os.OpenFile(db+".log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	// The soak measures capacity: its clients share one address, whose
	// budgets (issue 24) are turned off.
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--access-log", "off",
		"--client-saves", "0", "--client-save-bytes", "0", "--client-saves-at-once", "0", "--max-store-size", "0"}, extra...)
	cmd := exec.Command(bin, args...)
	pr, pw := io.Pipe()
	cmd.Stderr = io.MultiWriter(logFile, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := soakAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case a := <-addr:
		return &child{cmd: cmd, base: "http://" + a, log: logFile}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%s did not start; see %s.log", bin, db)
	}
	return nil
}

// stop ends the server with SIGTERM (graceful) or SIGKILL.
func (c *child) stop(sig syscall.Signal) {
	c.cmd.Process.Signal(sig)
	c.cmd.Wait()
	c.log.Close()
}

// scenarioWithTitle is paused-worker under another title: every title
// makes a new run id, so each save is a new row.
func scenarioWithTitle(t testing.TB, title string) []byte {
	t.Helper()
	src, err := os.ReadFile("../../scenarios/paused-worker.json")
	if err != nil {
		t.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(src, &sc); err != nil {
		t.Fatal(err)
	}
	sc["title"] = title
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
