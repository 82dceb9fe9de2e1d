package server_test

// The harness of the browser tests: a real server on a loopback port and
// headless Chromium driven with chromedp. The tests share one browser and
// run in parallel, each in a tab of its own; -short skips them. Locally
// they also skip when Chromium is missing; .ci/run sets FENCELAB_BROWSER_TESTS=required, so
// there they fail instead. Each test keeps screenshots (PNG) in the
// directory FENCELAB_ARTEFACTS names, or in its own temporary directory.

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which .ci/run installs when missing.
const chromiumPath = "/usr/bin/chromium"

// browserTimeout bounds the steps of one test, not the browser's start.
const browserTimeout = 60 * time.Second

// startServer serves the whole lab (routes, middleware, a SQLite file)
// on a loopback port and returns its base URL. Under -short it skips the
// test at once, as newBrowser would later: the tests call it first, and
// some save runs over HTTP before they open a browser.
func startServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	s := newTestServer(t)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts.URL
}

// The browser the tests share: started by the first test that needs it,
// stopped by TestMain when every test has run. Each test gets its own tab
// in its own browser context, so no cookies or localStorage leak between
// tests, and the tests run in parallel.
var shared struct {
	once    sync.Once
	browser context.Context // the first tab, whose context owns the browser
	err     error
	stop    func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	closeSharedStore()
	os.Exit(code)
}

// startBrowser starts headless Chromium in a fresh profile, once.
func startBrowser() (context.Context, error) {
	shared.once.Do(func() {
		profile, err := os.MkdirTemp("", "fencelab-chromium-")
		if err != nil {
			shared.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(chromiumPath),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(profile),
			chromedp.WindowSize(1280, 1000),
		)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		browser, cancelBrowser := chromedp.NewContext(alloc)
		shared.stop = func() {
			cancelBrowser()
			cancelAlloc()
			os.RemoveAll(profile)
		}
		// The first action ties the browser's life to its context: start it
		// on one without a deadline.
		shared.browser, shared.err = browser, chromedp.Do(browser)
	})
	return shared.browser, shared.err
}

// newBrowser returns a fresh tab of the shared headless Chromium (its own
// browser context: no cookies or localStorage shared with other tests),
// with a deadline for the test's steps, and marks the test parallel.
// Console errors and uncaught exceptions in the page (a CSP violation
// among them) fail the test when it ends. Browser tests are skipped under
// -short, and when Chromium is missing unless FENCELAB_BROWSER_TESTS is
// "required".
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped under -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("FENCELAB_BROWSER_TESTS") == "required" {
			t.Fatalf("browser tests are required, but Chromium is missing: %v", err)
		}
		t.Skipf("no Chromium at %s: browser test skipped", chromiumPath)
	}
	t.Parallel()
	browser, err := startBrowser()
	if err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	tab := newTab(t, browser)
	ctx, cancel := context.WithTimeout(tab, browserTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newTab opens a tab in a fresh browser context of the same browser: no
// cookies or localStorage shared with the other tabs.
func newTab(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a fresh browser context: %v", err)
	}
	watchConsole(t, tab)
	return tab
}

// watchConsole fails the test, at its end, on the page's console errors
// and uncaught exceptions.
func watchConsole(t *testing.T, ctx context.Context) {
	t.Helper()
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// A page without a favicon makes the browser log a 404; not the page's doing.
			if strings.HasSuffix(m.URL, "/favicon.ico") {
				continue
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("browser console: %s", p)
		}
	})
}

// artefacts is the directory for screenshots: FENCELAB_ARTEFACTS, or the
// test's temporary directory.
func artefacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FENCELAB_ARTEFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artefacts: %v", err)
	}
	return dir
}

// screenshot keeps what the tab's viewport shows as name.png and returns
// the file's path.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(artefacts(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// run runs the steps, failing the test with what was being done.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %.80s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it holds, failing the test
// with what it waited for when the deadline passes.
func waitFor(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	poll := chromedp.Poll[bool](cond, chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(15*time.Second))
	if _, err := chromedp.Run(ctx, poll); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// noReload marks the page, so that a later check can tell it was not reloaded.
func noReload(t *testing.T, ctx context.Context) {
	t.Helper()
	eval[chromedp.Void](t, ctx, `window.__fencelabNoReload = true`)
}

func checkNoReload(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if !eval[bool](t, ctx, `window.__fencelabNoReload === true`) {
		t.Errorf("%s reloaded the page", what)
	}
}
