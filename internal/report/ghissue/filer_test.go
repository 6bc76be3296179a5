package ghissue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/bisect"
	"github.com/perfbisect/perfbisect/internal/report"
)

// loadCase reads one of the report package's golden inputs.
func loadCase(t *testing.T, name string) report.Input {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := report.Load(doc)
	if err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	return in
}

const testToken = "ghp_TESTtoken0123456789abcdefSECRET"

// A request is what the fake GitHub saw.
type request struct {
	Method, Path, Query, Auth string
	Body                      map[string]any
}

// fakeGitHub is an httptest server that records requests and answers
// from a handler per "METHOD path".
type fakeGitHub struct {
	t        *testing.T
	mu       sync.Mutex
	requests []request
	handlers map[string]func(w http.ResponseWriter, r *http.Request, n int)
	counts   map[string]int
}

func newFakeGitHub(t *testing.T) (*fakeGitHub, *httptest.Server) {
	f := &fakeGitHub{t: t, handlers: map[string]func(http.ResponseWriter, *http.Request, int){}, counts: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization")}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req.Body); err != nil {
			f.t.Errorf("%s %s: body is not JSON: %v", r.Method, r.URL.Path, err)
		}
	}
	key := r.Method + " " + r.URL.Path
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.counts[key]++
	n := f.counts[key]
	h := f.handlers[key]
	f.mu.Unlock()
	if h == nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	h(w, r, n)
}

func (f *fakeGitHub) on(key string, h func(w http.ResponseWriter, r *http.Request, n int)) {
	f.handlers[key] = h
}

// paths lists "METHOD path" of every request, in order.
func (f *fakeGitHub) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

func jsonReply(status int, v any) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
}

func issueJSON(number int, body string, pr bool) map[string]any {
	m := map[string]any{"number": number, "state": "open", "body": body,
		"html_url": "https://github.com/o/r/issues/" + strconv.Itoa(number)}
	if pr {
		m["pull_request"] = map[string]any{"url": "https://api.github.com/repos/o/r/pulls/" + strconv.Itoa(number)}
	}
	return m
}

func emptySearch() func(http.ResponseWriter, *http.Request, int) {
	return jsonReply(200, map[string]any{"total_count": 0, "incomplete_results": false, "items": []any{}})
}

func created(number int) func(http.ResponseWriter, *http.Request, int) {
	return jsonReply(201, map[string]any{"number": number, "html_url": "https://github.com/o/r/issues/" + strconv.Itoa(number)})
}

// newTestFiler returns a Filer against srv with a fresh client, recording
// sleeps instead of sleeping.
func newTestFiler(t *testing.T, srv *httptest.Server, sleeps *[]time.Duration, log *bytes.Buffer) *Filer {
	t.Helper()
	c, err := NewGitHubClient(testToken, srv.URL) // no trailing slash: NewGitHubClient adds it
	if err != nil {
		t.Fatal(err)
	}
	return &Filer{Client: c, Owner: "o", Repo: "r", Token: testToken, Log: log,
		Sleep: func(ctx context.Context, d time.Duration) error { *sleeps = append(*sleeps, d); return nil }}
}

func TestMarkerIsOneSearchWord(t *testing.T) {
	in := loadCase(t, "two-culprits")
	m, err := Marker(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range m {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			t.Fatalf("marker %q has %q: search would split it", m, r)
		}
	}
	// Same culprits in another order, longer runs: same finding.
	in2 := in
	in2.Result.Culprits = append([]bisect.Culprit(nil), in.Result.Culprits[1], in.Result.Culprits[0])
	in2.Benchmark.DurationSeconds = 900
	if m2, _ := Marker(in2); m2 != m {
		t.Errorf("marker changed with culprit order or duration: %s vs %s", m, m2)
	}
	// Another thread count: another finding.
	in3 := in
	in3.Benchmark.Threads = 64
	if m3, _ := Marker(in3); m3 == m {
		t.Error("marker ignores the thread count")
	}
	ev := evidenceToken(in)
	if c := markerComment(in, m); !strings.Contains(c, "<!-- "+m+" "+ev+" ") || strings.Count(c, "--") != 2 {
		t.Errorf("marker comment %q", c)
	}
	in4 := in
	in4.Result.Bad.Hash = "0000000000000000000000000000000000000000"
	if evidenceToken(in4) == ev || evidenceToken(in2) != ev {
		t.Error("the evidence token does not follow the good and bad commits")
	}
	if _, err := Marker(loadCase(t, "not-reproduced")); err == nil {
		t.Error("a result without culprits got a marker")
	}
}
