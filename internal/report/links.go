package report

import (
	"net/url"
	"strings"
)

// WebURLFromRemote derives a repository's web URL from a git remote URL
// on GitHub: git@github.com:o/n.git, ssh://git@github.com/o/n,
// https://github.com/o/n.git (credentials dropped) all give
// https://github.com/o/n. Other hosts give "".
func WebURLFromRemote(remote string) string {
	remote = strings.TrimSpace(remote)
	var path string
	switch {
	case strings.HasPrefix(remote, "git@github.com:"):
		path = strings.TrimPrefix(remote, "git@github.com:")
	default:
		u, err := url.Parse(remote)
		if err != nil || !strings.EqualFold(u.Hostname(), "github.com") {
			return ""
		}
		switch u.Scheme {
		case "https", "http", "ssh", "git":
		default:
			return ""
		}
		path = u.Path
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	parts := strings.Split(path, "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	return "https://github.com/" + parts[0] + "/" + parts[1]
}

// webURL picks the repository web URL: the override, the input's WebURL,
// else one derived from the remote.
func webURL(in Input, override string) string {
	for _, u := range []string{override, in.Request.WebURL} {
		if u = strings.TrimRight(strings.TrimSpace(u), "/"); u != "" {
			return u
		}
	}
	return WebURLFromRemote(in.Request.RemoteURL)
}

// commitURL is base/commit/hash, or "" without a base.
func commitURL(base, hash string) string {
	if base == "" || hash == "" {
		return ""
	}
	return base + "/commit/" + hash
}
