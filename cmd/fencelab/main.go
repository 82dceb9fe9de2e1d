// Command fencelab replays lease-and-fencing scenarios and serves the lab.
//
//	fencelab [serve] [--addr :8080] [--db ./fencelab.db]
//	fencelab admin hide|unhide|list|purge ... [--db D]
//	fencelab backup [--db FILE] PATH
//	fencelab replay [FILE | - | --scenario NAME] [--policies a,b] [--json | --format table|markdown|json|svg]
//	fencelab explore [FILE | - | --scenario NAME] [--json] [--budget N] [--deadline D]
//	fencelab scenarios
//	fencelab probe --target URL (FILE | --scenario NAME) [--policy P] [--orderings all|N | --concurrent W --duration D]
//	fencelab probe --sql FILE --db URL (FILE | --scenario NAME) [--policy P] [modes as above]
//	fencelab import FILE… --map MAP [--skew D] [--policy P] [--json]
//	fencelab receiver [--addr ADDR] [--policy P] [--store memory|sqlite|postgres://…|mysql://…] [--db PATH] [--flaw racy|forgetful]
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"fencelab/lab/probe"
	"fencelab/lab/probe/issuer/live"
	"fencelab/lab/probe/sqlprobe"
)

func main() {
	live.WorkerMain() // a worker of probe --issuer never returns
	err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr))
}

// usageError is a bad command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// invalidError is an invalid scenario whose errors were already printed: exit code 1.
type invalidError struct{}

func (invalidError) Error() string { return "invalid scenario" }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return serve(nil, stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "replay":
		return replay(args[1:], stdin, stdout, stderr)
	case "explore":
		return explore(args[1:], stdin, stdout, stderr)
	case "scenarios":
		return listScenarios(args[1:], stdout)
	case "probe":
		return runProbe(args[1:], stdin, stdout, stderr)
	case "receiver":
		return runReceiver(args[1:], stdout, stderr)
	case "admin":
		return admin(args[1:], stdout, stderr)
	case "backup":
		return backup(args[1:], stdout, stderr)
	case "import":
		return importLogs(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	if len(args[0]) > 0 && args[0][0] == '-' {
		return serve(args, stdout, stderr)
	}
	return &usageError{fmt.Sprintf("unknown command %q", args[0])}
}

const usage = `usage:
  fencelab [serve] [--addr :8080] [--db ./fencelab.db]   serve the lab
  fencelab admin hide RUN_ID --reason TEXT [--db D]        take a run down: 410 Gone, the reason shown
  fencelab admin unhide RUN_ID [--db D]                    show a hidden run again
  fencelab admin list [--recent N] [--db D]                the runs saved last, hidden ones marked
  fencelab admin purge [--client NET] [--since T] [--until T] [--dry-run] [--db D]
                                                           delete a flood's runs, hidden ones kept
  fencelab backup [--db FILE] PATH                         copy a running SQLite store to PATH
  fencelab replay                                          print the seed's four lines
  fencelab replay FILE|- [--policies p,q] [--format F]     replay a scenario file (- for stdin)
  fencelab replay --scenario NAME [--policies p,q] [--format F]
      F: table (default), markdown, json (same as --json), svg (diagram of the first policy)
  fencelab explore FILE|- | --scenario NAME [--json] [--budget N] [--deadline D]
                  [--writes split|atomic] [--expiry free|program]
                                                           try every ordering the workers allow
  fencelab scenarios                                       list the built-in scenarios
  fencelab probe --target URL FILE|- | --scenario NAME [--policy P] [--remember durable|memory]
         [--orderings all|N [--seed S] | --concurrent W [--duration 10s]] [--format table|markdown|json]
         [--timeout 5s] [--save BASE]                      check a real receiver against the model
  fencelab probe --sql FILE --db URL ... [--isolation L] [--retries 20]
                                                           the same against the statements your service runs
         (--db postgres://…, mysql://user:pass@host:port/db or a SQLite file; see docs/probe.md)
         [--role 'write=Q read=R …'] [--param 'Q: $1=token …']   which query plays which role, what each placeholder binds
  fencelab import FILE... --map MAP [--format F] [--since T] [--until T]
         [--skew D] [--policy P] [--strict] [--json] [-o SCENARIO] [--save BASE]
                                                           turn an incident's logs into a scenario
  fencelab import --suggest FILE... [--json]               a first mapping from the files alone
  fencelab receiver [--addr 127.0.0.1:8081] [--policy P] [--store memory|sqlite|postgres://…|mysql://…] [--db PATH]
         [--flaw racy|forgetful] [--window D]              run a reference receiver
`

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var exit *exitError
	if errors.As(err, &exit) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "fencelab: %s\n", msg)
		}
		return exit.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "fencelab: %s\n%s", ue.msg, usage)
		return 2
	}
	if errors.As(err, &invalidError{}) || errors.As(err, &disagreeError{}) {
		return 1
	}
	var unreachable *probe.UnreachableError
	var broken *probe.BrokenError
	var badFile *sqlprobe.FileError
	if errors.As(err, &unreachable) || errors.As(err, &broken) || errors.As(err, &badFile) {
		fmt.Fprintf(stderr, "fencelab: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "fencelab: %v\n", err)
	return 1
}
