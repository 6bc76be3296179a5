package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perfbisect/perfbisect/internal/store"
)

// storeBisect puts a finished bisect with the given result document into
// the store at path and returns its id.
func storeBisect(t *testing.T, path string, status store.BisectStatus, doc []byte) string {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := &store.Bisect{RequestKey: "k", Request: json.RawMessage(`{}`)}
	if err := s.CreateBisect(ctx, b); err != nil {
		t.Fatal(err)
	}
	if status != store.BisectRunning {
		if err := s.FinishBisect(ctx, b.ID, status, doc); err != nil {
			t.Fatal(err)
		}
	}
	return b.ID
}

func seedDoc(t *testing.T) []byte {
	doc, err := os.ReadFile("../../internal/report/testdata/seed.json")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestReportRendersTheStoredResult(t *testing.T) {
	db := isolate(t)
	id := storeBisect(t, db, store.BisectDone, seedDoc(t))
	want, err := os.ReadFile("../../internal/report/testdata/seed.md")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := execute(t, "report", id)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Error("perfbisect report differs from report.Markdown of the same document (testdata/seed.md)")
	}
	svg := filepath.Join(t.TempDir(), "chart.svg")
	out, _, err = execute(t, "report", id, "--format", "json", "--svg", svg, "--web-url", "https://example.org/server")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Title   string `json:"title"`
		SVGPath string `json:"svg_path"`
		WebURL  string `json:"web_url"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--format json: %v", err)
	}
	if !strings.HasPrefix(rep.Title, "oltp_point_select: 12.0.1 is") || rep.SVGPath != "chart.svg" || rep.WebURL != "https://example.org/server" {
		t.Errorf("json report: %+v", rep)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg") {
		t.Errorf("--svg wrote %q, %v", b, err)
	}
	out, _, err = execute(t, "report", id, "--format", "jira", "--svg", svg)
	if err != nil {
		t.Fatal(err)
	}
	jira, err := os.ReadFile("../../internal/report/testdata/seed.jira")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(jira) {
		t.Error("perfbisect report --format jira differs from report.Jira of the same document (testdata/seed.jira)")
	}
}

func TestReportErrors(t *testing.T) {
	db := isolate(t)
	running := storeBisect(t, db, store.BisectRunning, nil)
	done := storeBisect(t, db, store.BisectDone, seedDoc(t))
	for _, tc := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"report"}, true, "takes 1 argument"},
		{[]string{"report", done, "--format", "html"}, true, "--format"},
		{[]string{"report", done, "--dry-run"}, true, "--dry-run applies to --github"},
		{[]string{"report", done, "--github", "nobody"}, true, "owner/name"},
		{[]string{"report", "nosuchid"}, false, "no bisect nosuchid"},
		{[]string{"report", running, "--format", "md"}, false, "is running"},
		{[]string{"report", done, "--github", "o/r"}, false, "GITHUB_TOKEN"},
	} {
		t.Setenv("GITHUB_TOKEN", "")
		_, _, err := execute(t, tc.args...)
		var ue *usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.usage {
			t.Errorf("%v: error %v (usage %v), want one containing %q (usage %v)", tc.args, err, errors.As(err, &ue), tc.want, tc.usage)
		}
	}
}

func TestReportGitHubDryRun(t *testing.T) {
	db := isolate(t)
	id := storeBisect(t, db, store.BisectDone, seedDoc(t))
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/repos/o/r/issues":
			w.Write([]byte(`[]`))
		case "/search/issues":
			w.Write([]byte(`{"total_count":0,"incomplete_results":false,"items":[]}`))
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	const token = "ghp_cliTESTtokenDoNotPrint"
	t.Setenv("GITHUB_TOKEN", token)
	t.Setenv("PERFBISECT_GITHUB_API", srv.URL)
	out, errOut, err := execute(t, "report", id, "--github", "o/r", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "dry run: would create an issue in o/r (no open issue carries marker perfbisect") ||
		!strings.Contains(out, "<!-- perfbisect") {
		t.Errorf("dry-run output:\n%s", out)
	}
	if strings.Contains(out+errOut, token) {
		t.Error("the token was printed")
	}
	for _, s := range seen {
		if r := strings.SplitN(s, " ", 2)[0]; r != "GET" {
			t.Errorf("a dry run sent %s", s)
		}
	}
	if len(seen) != 2 {
		t.Errorf("requests %v: want the labelled list and the search", seen)
	}

	// Without a token a dry run looks nothing up and says so.
	t.Setenv("GITHUB_TOKEN", "")
	out, _, err = execute(t, "report", id, "--github", "o/r", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "existing issues not looked up: no GITHUB_TOKEN") || len(seen) != 2 {
		t.Errorf("tokenless dry run sent %d requests, printed:\n%.300s", len(seen)-2, out)
	}
}
