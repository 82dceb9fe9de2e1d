package live

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// postgres: one PostgreSQL server for --issuer-sql, from Debian's
// binaries (initdb, postgres); as root it runs as the postgres user, as
// PostgreSQL insists. A --config postgresql.conf is included, and the
// probe's settings come on the command line, which wins.
func (g *group) postgres(opt StartOptions) ([]string, error) {
	if opt.N != 1 {
		return nil, fmt.Errorf("--start local=%d: PostgreSQL starts one server; use local", opt.N)
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	sort.Strings(bins)
	bin := ""
	if len(bins) > 0 {
		bin = bins[len(bins)-1]
	} else if p, err := exec.LookPath("postgres"); err == nil {
		bin = p
	} else {
		return nil, fmt.Errorf("--start local: no PostgreSQL server binaries (Debian: apt-get install postgresql)")
	}
	out, _ := exec.Command(bin, "--version").Output()
	if f := strings.Fields(string(out)); len(f) > 0 {
		g.version = f[len(f)-1]
	}
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("--start local as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	mdir := filepath.Join(g.dir, "postgres-1")
	if err := os.MkdirAll(mdir, 0o755); err != nil {
		return nil, err
	}
	os.Chmod(g.dir, 0o755)
	if cred != nil {
		os.Chown(mdir, int(cred.Uid), int(cred.Gid))
	}
	data := filepath.Join(mdir, "data")
	initdb := exec.Command(filepath.Join(filepath.Dir(bin), "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	if opt.Config != "" {
		abs, _ := filepath.Abs(opt.Config)
		f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(f, "\ninclude '%s'\n", strings.ReplaceAll(abs, "'", "''"))
		f.Close()
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	over := []string{"-c", "listen_addresses=127.0.0.1", "-c", "port=" + strconv.Itoa(ports[0]), "-c", "unix_socket_directories=" + mdir}
	g.members = []*member{{name: "postgres-1", addr: addr(ports[0]), bin: bin, args: append([]string{"-D", data}, over...),
		dir: mdir, cred: cred}}
	return []string{"postgres: " + strings.Join(over, " ")}, nil
}

// PostgresURL is the started PostgreSQL's address for --db.
func PostgresURL(addr string) string {
	return "postgres://postgres@" + addr + "/postgres?sslmode=disable"
}

// waitPostgres waits until the server answers queries: it accepts
// connections while it is still starting up.
func (g *group) waitPostgres(ctx context.Context, within time.Duration) error {
	db, err := sql.Open("pgx", PostgresURL(g.members[0].addr))
	if err != nil {
		return fmt.Errorf("open PostgreSQL: %w (is the pgx driver registered?)", err)
	}
	defer db.Close()
	deadline := time.Now().Add(within)
	for {
		c, cancel := context.WithTimeout(ctx, time.Second)
		err := db.PingContext(c)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("PostgreSQL did not answer within %s: %w; its log: %s",
				within, err, tail(filepath.Join(g.members[0].dir, "server.log")))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
