package ghissue

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// A RetryPolicy bounds how the Filer retries GitHub calls.
type RetryPolicy struct {
	// Attempts is the number of tries per call, the first included.
	// Default 4.
	Attempts int
	// MaxWait is the longest single wait the Filer accepts (for a rate
	// limit's reset or a Retry-After); a longer one ends the call with a
	// message naming when to try again. Default 2 minutes.
	MaxWait time.Duration
	// Backoff is the first wait after a 5xx or network error; it doubles
	// per retry. Default 2 s.
	Backoff time.Duration
}

// DefaultRetryPolicy is the RetryPolicy zero fields take.
var DefaultRetryPolicy = RetryPolicy{Attempts: 4, MaxWait: 2 * time.Minute, Backoff: 2 * time.Second}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy
	if p.Attempts <= 0 {
		p.Attempts = d.Attempts
	}
	if p.MaxWait <= 0 {
		p.MaxWait = d.MaxWait
	}
	if p.Backoff <= 0 {
		p.Backoff = d.Backoff
	}
	return p
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// call runs fn with the Filer's retry policy. what names the call in
// messages ("searching issues"). The error, if any, is one line and free of
// the token.
func (f *Filer) call(ctx context.Context, what string, fn func() error) error {
	p := f.Retry.withDefaults()
	sleep := f.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	var last error
	for attempt := 1; attempt <= p.Attempts; attempt++ {
		err := fn()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		wait, retry, msg := classify(err, attempt, p)
		last = fmt.Errorf("github: %s in %s: %s", what, f.repoName(), f.scrub(msg))
		if !retry || attempt == p.Attempts {
			break
		}
		f.logf("github: %s: %s; retrying in %s (attempt %d of %d)", what, f.scrub(msg), wait.Round(time.Second), attempt+1, p.Attempts)
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
	return last
}

// classify says how long to wait before retrying err, whether to retry at
// all, and describes err in one line.
func classify(err error, attempt int, p RetryPolicy) (time.Duration, bool, string) {
	backoff := p.Backoff << (attempt - 1)
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	var er *github.ErrorResponse
	switch {
	case errors.As(err, &rl):
		reset := rl.Rate.Reset.Time
		wait := max(time.Until(reset), 0) + time.Second
		msg := fmt.Sprintf("API rate limit of %d requests exhausted until %s", rl.Rate.Limit, reset.UTC().Format(time.RFC3339))
		return wait, wait <= p.MaxWait, msg
	case errors.As(err, &abuse):
		wait := time.Minute
		if abuse.RetryAfter != nil {
			wait = max(*abuse.RetryAfter, time.Second)
		}
		return wait, wait <= p.MaxWait, fmt.Sprintf("secondary rate limit (retry after %s)", wait.Round(time.Second))
	case errors.As(err, &er) && er.Response != nil:
		return classifyStatus(er, backoff, p)
	}
	// Network errors: retried like a 5xx.
	return backoff, true, oneLine(err.Error())
}

func classifyStatus(er *github.ErrorResponse, backoff time.Duration, p RetryPolicy) (time.Duration, bool, string) {
	code := er.Response.StatusCode
	detail := oneLine(er.Message)
	if detail == "" {
		detail = http.StatusText(code)
	}
	switch {
	case code == http.StatusUnauthorized:
		return 0, false, fmt.Sprintf("authentication failed (HTTP 401 %s): check GITHUB_TOKEN", detail)
	case code == http.StatusTooManyRequests:
		wait := retryAfter(er.Response.Header, time.Minute)
		return wait, wait <= p.MaxWait, fmt.Sprintf("too many requests (HTTP 429, retry after %s)", wait.Round(time.Second))
	case code == http.StatusForbidden:
		return 0, false, fmt.Sprintf("forbidden (HTTP 403 %s): the token needs read and write access to issues", detail)
	case code == http.StatusNotFound:
		return 0, false, "not found (HTTP 404): no such repository, or the token cannot see it"
	case code >= 500:
		return backoff, true, fmt.Sprintf("server error (HTTP %d %s)", code, detail)
	}
	return 0, false, fmt.Sprintf("HTTP %d %s", code, detail)
}

// retryAfter reads a Retry-After header in seconds.
func retryAfter(h http.Header, def time.Duration) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After"))); err == nil && s >= 0 {
		return max(time.Duration(s)*time.Second, time.Second)
	}
	return def
}

// scrub removes the token from a message.
func (f *Filer) scrub(msg string) string {
	if f.Token != "" {
		msg = strings.ReplaceAll(msg, f.Token, "[token]")
	}
	return msg
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (f *Filer) logf(format string, args ...any) {
	if f.Log != nil {
		fmt.Fprintln(f.Log, f.scrub(fmt.Sprintf(format, args...)))
	}
}
