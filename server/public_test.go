
// TestImportsInTurn: one client's imports are read one at a time, so its
// second waits while its first is still being read, and other clients
// are served meanwhile. (Attack F3: 128 uploads at once from one address
// took the server from 24 MB to 3.78 GB.)
func TestImportsInTurn(t *testing.T) {
	t.Parallel()
	base, _ := publicServer(t, server.Config{})
	addr := strings.TrimPrefix(base, "http://")
	form := "log=" + url.QueryEscape("2026-12-01T10:00:00Z a acquire token=41\n")
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		conn, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	head := func(conn net.Conn, n int) {
		fmt.Fprintf(conn, "POST /import/preview HTTP/1.1\r\nHost: lab\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", n)
	}
	status := func(conn net.Conn, wait time.Duration) int {
		conn.SetReadDeadline(time.Now().Add(wait))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	first := dial("127.0.0.1")
	head(first, len(form))
	io.WriteString(first, form[:5]) // and stalls: its turn is held while its body is read
	time.Sleep(50 * time.Millisecond)
	second := dial("127.0.0.1")
	head(second, len(form))
	io.WriteString(second, form)
	if code := status(second, 300*time.Millisecond); code != 0 {
		t.Errorf("the same client's second import while its first is read: %d, want it to wait", code)
	}
	other := dial("127.0.0.2")
	head(other, len(form))
	io.WriteString(other, form)
	if code := status(other, 5*time.Second); code == 0 {
		t.Errorf("another client's import while the first client's is read: no answer, want one")
	}
	io.WriteString(first, form[5:])
	if code := status(first, 5*time.Second); code == 0 {
		t.Errorf("the first import, its body complete: no answer")
	}
	if code := status(second, 5*time.Second); code == 0 {
		t.Errorf("the second import, once the first was done: no answer")
	}
}
