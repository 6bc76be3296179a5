package ghissue

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/report"
)

// A filerCase sets up the fake GitHub and says what must happen.
type filerCase struct {
	name   string
	dryRun bool
	ledger *memLedger
	setup  func(f *fakeGitHub, marker, evidence string)
	// want: the requests in order, the action, the issue number, the
	// sleeps, and a piece of the error (empty: no error).
	wantPaths  []string
	wantAction string
	wantNumber int
	wantSleeps []time.Duration
	wantErr    string
}

const (
	listPath    = "GET /repos/o/r/issues"
	searchPath  = "GET /search/issues"
	createPath  = "POST /repos/o/r/issues"
	comment7    = "POST /repos/o/r/issues/7/comments"
	comments7   = "GET /repos/o/r/issues/7/comments"
	rateMessage = "API rate limit exceeded for user ID 1."
)

func rateLimited(reset time.Time) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("X-RateLimit-Limit", "30")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(map[string]any{"message": rateMessage,
			"documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"})
	}
}

// thenOK answers with first for the first n calls, then with ok.
func thenOK(n int, first, ok func(http.ResponseWriter, *http.Request, int)) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, i int) {
		if i <= n {
			first(w, r, i)
			return
		}
		ok(w, r, i)
	}
}

func filerCases() []filerCase {
	noIssues := func(f *fakeGitHub, _, _ string) {
		f.on(listPath, jsonReply(200, []any{}))
		f.on(searchPath, emptySearch())
	}
	return []filerCase{{
		name: "new issue",
		setup: func(f *fakeGitHub, m, ev string) {
			// A PR and an issue about something else must not count.
			f.on(listPath, jsonReply(200, []any{issueJSON(3, "other finding <!-- perfbisect0000 -->", false), issueJSON(4, m, true)}))
			f.on(searchPath, emptySearch())
			f.on(createPath, created(42))
		},
		wantPaths: []string{listPath, searchPath, createPath}, wantAction: "created", wantNumber: 42,
	}, {
		name: "comment on the labelled issue",
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{issueJSON(9, "later duplicate "+m, false), issueJSON(7, "report\n<!-- "+m+" perfbisectev000000000000 -->", false)}))
			f.on(comments7, jsonReply(200, []any{map[string]any{"id": 5, "body": "an earlier run <!-- " + m + " perfbisectev111111111111 -->"}}))
			f.on(comment7, jsonReply(201, map[string]any{"id": 1, "html_url": "https://github.com/o/r/issues/7#issuecomment-1"}))
		},
		wantPaths: []string{listPath, comments7, comment7}, wantAction: "commented", wantNumber: 7,
	}, {
		name: "same evidence in the issue: nothing posted",
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{issueJSON(7, "<!-- "+m+" "+ev+" -->", false)}))
		},
		wantPaths: []string{listPath}, wantAction: "unchanged", wantNumber: 7,
	}, {
		name: "same evidence in a comment: nothing posted",
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{issueJSON(7, "<!-- "+m+" -->", false)}))
			f.on(comments7, jsonReply(200, []any{map[string]any{"id": 6, "body": "<!-- " + m + " " + ev + " -->"}}))
		},
		wantPaths: []string{listPath, comments7}, wantAction: "unchanged", wantNumber: 7,
	}, {
		name: "comment on the issue search finds (label removed)",
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{}))
			f.on(searchPath, jsonReply(200, map[string]any{"total_count": 2, "incomplete_results": false,
				"items": []any{issueJSON(8, "mentions perfbisect only", false), issueJSON(7, "<!-- "+m+" -->", false)}}))
			f.on(comments7, jsonReply(200, []any{}))
			f.on(comment7, jsonReply(201, map[string]any{"id": 2}))
		},
		wantPaths: []string{listPath, searchPath, comments7, comment7}, wantAction: "commented", wantNumber: 7,
	}, {
		name:   "ledger first",
		ledger: &memLedger{m: map[string]int{}},
		setup: func(f *fakeGitHub, m, ev string) {
			f.on("GET /repos/o/r/issues/7", jsonReply(200, issueJSON(7, "no marker needed: the ledger knows", false)))
			f.on(comments7, jsonReply(200, []any{}))
			f.on(comment7, jsonReply(201, map[string]any{"id": 3}))
		},
		wantPaths: []string{"GET /repos/o/r/issues/7", comments7, comment7}, wantAction: "commented", wantNumber: 7,
	}, {
		name: "incomplete search creates nothing",
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{}))
			f.on(searchPath, jsonReply(200, map[string]any{"total_count": 0, "incomplete_results": true, "items": []any{}}))
		},
		wantPaths: []string{listPath, searchPath}, wantErr: "incomplete results",
	}, {
		name: "401",
		setup: func(f *fakeGitHub, m, ev string) {
			// A server that echoes the credentials must not leak them either.
			f.on(listPath, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(http.StatusUnauthorized)
				json.NewEncoder(w).Encode(map[string]any{"message": "Bad credentials: " + r.Header.Get("Authorization")})
			})
		},
		wantPaths: []string{listPath}, wantErr: "authentication failed (HTTP 401",
	}, {
		name: "primary rate limit, retried after the reset",
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{}))
			f.on(searchPath, thenOK(1, rateLimited(time.Now().Add(-time.Minute)), emptySearch()))
			f.on(createPath, created(43))
		},
		wantPaths:  []string{listPath, searchPath, searchPath, createPath},
		wantAction: "created", wantNumber: 43, wantSleeps: []time.Duration{time.Second},
	}, {
		name: "primary rate limit beyond the wait bound",
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{}))
			f.on(searchPath, rateLimited(time.Now().Add(time.Hour)))
		},
		wantPaths: []string{listPath, searchPath}, wantErr: "rate limit of 30 requests exhausted until",
	}, {
		name: "secondary rate limit, retried",
		setup: func(f *fakeGitHub, m, ev string) {
			noIssues(f, m, ev)
			f.on(createPath, thenOK(1, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusForbidden)
				w.Write([]byte(`{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`))
			}, created(46)))
		},
		wantPaths:  []string{listPath, searchPath, createPath, createPath},
		wantAction: "created", wantNumber: 46, wantSleeps: []time.Duration{time.Second},
	}, {
		name: "403 without a rate limit is not retried",
		setup: func(f *fakeGitHub, m, ev string) {
			noIssues(f, m, ev)
			f.on(createPath, jsonReply(403, map[string]any{"message": "Resource not accessible by personal access token"}))
		},
		wantPaths: []string{listPath, searchPath, createPath}, wantErr: "forbidden (HTTP 403",
	}, {
		name: "429 with Retry-After",
		setup: func(f *fakeGitHub, m, ev string) {
			noIssues(f, m, ev)
			f.on(createPath, thenOK(1, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"message":"Too Many Requests"}`))
			}, created(44)))
		},
		wantPaths:  []string{listPath, searchPath, createPath, createPath},
		wantAction: "created", wantNumber: 44, wantSleeps: []time.Duration{7 * time.Second},
	}, {
		name: "5xx retried with backoff",
		setup: func(f *fakeGitHub, m, ev string) {
			noIssues(f, m, ev)
			f.on(createPath, thenOK(2, jsonReply(502, map[string]any{"message": "Server Error"}), created(45)))
		},
		wantPaths:  []string{listPath, searchPath, createPath, createPath, createPath},
		wantAction: "created", wantNumber: 45, wantSleeps: []time.Duration{2 * time.Second, 4 * time.Second},
	}, {
		name: "5xx gives up",
		setup: func(f *fakeGitHub, m, ev string) {
			noIssues(f, m, ev)
			f.on(createPath, jsonReply(503, map[string]any{"message": "Service Unavailable"}))
		},
		wantPaths:  []string{listPath, searchPath, createPath, createPath, createPath, createPath},
		wantSleeps: []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second},
		wantErr:    "server error (HTTP 503 Service Unavailable)",
	}, {
		name: "dry run looks up, creates nothing", dryRun: true, setup: noIssues,
		wantPaths: []string{listPath, searchPath}, wantAction: "would-create",
	}, {
		name: "dry run would comment", dryRun: true,
		setup: func(f *fakeGitHub, m, ev string) {
			f.on(listPath, jsonReply(200, []any{issueJSON(7, m, false)}))
			f.on(comments7, jsonReply(200, []any{}))
		},
		wantPaths: []string{listPath, comments7}, wantAction: "would-comment", wantNumber: 7,
	}}
}

func TestFilerFile(t *testing.T) {
	in := loadCase(t, "seed")
	marker, err := Marker(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range filerCases() {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := newFakeGitHub(t)
			tc.setup(fake, marker, evidenceToken(in))
			var sleeps []time.Duration
			var log bytes.Buffer
			f := newTestFiler(t, srv, &sleeps, &log)
			f.DryRun = tc.dryRun
			if tc.ledger != nil {
				tc.ledger.m["o/r "+marker] = 7
				f.Ledger = tc.ledger
			}
			fl, err := f.File(context.Background(), in, report.Options{})
			checkFiling(t, tc, fl, err, fake.paths(), sleeps)
			checkRequests(t, fake, tc, marker)
			out, _ := json.Marshal(fl)
			for what, s := range map[string]string{"error": errString(err), "filing": string(out), "log": log.String()} {
				if strings.Contains(s, testToken) || strings.Contains(s, testToken[4:]) {
					t.Errorf("the token appears in the %s: %s", what, s)
				}
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func checkFiling(t *testing.T, tc filerCase, fl Filing, err error, paths []string, sleeps []time.Duration) {
	t.Helper()
	if strings.Join(paths, "\n") != strings.Join(tc.wantPaths, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(paths, "\n"), strings.Join(tc.wantPaths, "\n"))
	}
	if tc.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if fl.Action != tc.wantAction || fl.Number != tc.wantNumber {
		t.Errorf("filing %s #%d, want %s #%d", fl.Action, fl.Number, tc.wantAction, tc.wantNumber)
	}
	if len(sleeps) != len(tc.wantSleeps) {
		t.Fatalf("slept %v, want %v", sleeps, tc.wantSleeps)
	}
	for i, d := range sleeps {
		// A reset in the past waits the one-second margin; 429 and 5xx
		// wait exactly what they say.
		if d != tc.wantSleeps[i] {
			t.Errorf("sleep %d: %v, want %v", i, d, tc.wantSleeps[i])
		}
	}
}

// checkRequests checks what was sent: credentials, queries, bodies.
func checkRequests(t *testing.T, fake *fakeGitHub, tc filerCase, marker string) {
	t.Helper()
	for _, r := range fake.requests {
		if r.Auth != "Bearer "+testToken {
			t.Errorf("%s %s: Authorization %q", r.Method, r.Path, r.Auth)
		}
		switch r.Method + " " + r.Path {
		case listPath:
			if !strings.Contains(r.Query, "labels=perfbisect") || !strings.Contains(r.Query, "state=open") {
				t.Errorf("list query %q: want open issues labelled perfbisect", r.Query)
			}
		case searchPath:
			if want := `"` + marker + `"`; !strings.Contains(queryParam(r.Query, "q"), want) ||
				!strings.Contains(queryParam(r.Query, "q"), "repo:o/r is:issue is:open") {
				t.Errorf("search q %q: want the quoted marker in open issues of o/r", queryParam(r.Query, "q"))
			}
		case createPath:
			body, _ := r.Body["body"].(string)
			title, _ := r.Body["title"].(string)
			labels, _ := r.Body["labels"].([]any)
			if !strings.Contains(body, "<!-- "+marker+" ") || !strings.HasPrefix(body, "# ") || title == "" || len(labels) != 2 {
				t.Errorf("create request: title %q, labels %v, body has marker %v", title, labels, strings.Contains(body, marker))
			}
		case comment7:
			body, _ := r.Body["body"].(string)
			if !strings.Contains(body, marker) || !strings.Contains(body, "reproduced this finding again") {
				t.Errorf("comment body lacks the marker or the evidence:\n%s", body)
			}
		}
	}
}

func queryParam(raw, key string) string {
	for _, kv := range strings.Split(raw, "&") {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			s, _ := urlUnescape(v)
			return s
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// memLedger is an in-memory Ledger.
type memLedger struct{ m map[string]int }

func (l *memLedger) Lookup(ctx context.Context, repo, marker string) (int, bool, error) {
	n, ok := l.m[repo+" "+marker]
	return n, ok, nil
}

func (l *memLedger) Record(ctx context.Context, repo, marker string, number int) error {
	l.m[repo+" "+marker] = number
	return nil
}

func urlUnescape(s string) (string, error) { return url.QueryUnescape(s) }
