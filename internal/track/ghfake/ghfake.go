// Package ghfake is an in-memory GitHub issues API for repository o/r,
// for tests and the nightly harness: list (open issues), search (by the
// perfbisect marker in a body), get, create, list and post comments. It
// counts the issues created and comments posted.
package ghfake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// A Server is the fake API.
type Server struct {
	mu       sync.Mutex
	issues   []*Issue
	creates  int
	comments int
	requests []string
}

// Requests returns "METHOD /path" of every request so far.
func (f *Server) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// Counts returns the issues created and the comments posted so far.
func (f *Server) Counts() (creates, comments int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates, f.comments
}

// Issues returns a copy of the issues, in number order.
func (f *Server) Issues() []Issue {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Issue, len(f.issues))
	for i, is := range f.issues {
		out[i] = *is
	}
	return out
}

// An Issue is a fake issue.
type Issue struct {
	Number   int      `json:"number"`
	Title    string   `json:"title"`
	Body     string   `json:"body"`
	State    string   `json:"state"`
	HTMLURL  string   `json:"html_url"`
	Comments []string `json:"-"`
}

// Start starts a fake on 127.0.0.1; url is its API base URL (for
// ghissue.NewGitHubClient). Call stop when done.
func Start() (f *Server, url string, stop func()) {
	f = &Server{}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	return f, srv.URL + "/", srv.Close
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	reply := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	path := strings.TrimPrefix(r.URL.Path, "/repos/o/r")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case r.Method == "GET" && r.URL.Path == "/search/issues":
		var items []*Issue
		for _, is := range f.issues {
			if is.State == "open" && strings.Contains(r.URL.Query().Get("q"), markerOf(is.Body)) {
				items = append(items, is)
			}
		}
		reply(200, map[string]any{"total_count": len(items), "incomplete_results": false, "items": nonNil(items)})
	case r.Method == "GET" && path == "/issues":
		var open []*Issue
		for _, is := range f.issues {
			if is.State == "open" {
				open = append(open, is)
			}
		}
		reply(200, nonNil(open))
	case r.Method == "POST" && path == "/issues":
		var req struct{ Title, Body string }
		json.NewDecoder(r.Body).Decode(&req)
		n := len(f.issues) + 1
		is := &Issue{Number: n, Title: req.Title, Body: req.Body, State: "open",
			HTMLURL: "https://github.com/o/r/issues/" + strconv.Itoa(n)}
		f.issues = append(f.issues, is)
		f.creates++
		reply(201, is)
	case len(parts) >= 2 && parts[0] == "issues":
		n, _ := strconv.Atoi(parts[1])
		if n < 1 || n > len(f.issues) {
			reply(404, map[string]any{"message": "Not Found"})
			return
		}
		is := f.issues[n-1]
		switch {
		case len(parts) == 2 && r.Method == "GET":
			reply(200, is)
		case len(parts) == 2 && r.Method == "PATCH":
			var req struct{ State string }
			json.NewDecoder(r.Body).Decode(&req)
			if req.State != "" {
				is.State = req.State
			}
			reply(200, is)
		case len(parts) == 3 && r.Method == "GET":
			var cs []map[string]any
			for i, c := range is.Comments {
				cs = append(cs, map[string]any{"id": i + 1, "body": c})
			}
			reply(200, nonNil(cs))
		case len(parts) == 3 && r.Method == "POST":
			var req struct{ Body string }
			json.NewDecoder(r.Body).Decode(&req)
			is.Comments = append(is.Comments, req.Body)
			f.comments++
			reply(201, map[string]any{"id": len(is.Comments), "html_url": is.HTMLURL + "#c"})
		default:
			reply(404, map[string]any{"message": "Not Found"})
		}
	default:
		reply(404, map[string]any{"message": "Not Found"})
	}
}

// markerOf returns the perfbisect marker word of a body ("" for none).
func markerOf(body string) string {
	for _, w := range strings.Fields(body) {
		if strings.HasPrefix(w, "perfbisect") && len(w) > 20 && !strings.HasPrefix(w, "perfbisectev") {
			return w
		}
	}
	return "\x00none"
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
