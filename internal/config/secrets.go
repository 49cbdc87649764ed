package config

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// What is a secret (see SECRETS in mcpx(1)): a value is a secret because of
// what it is — a header value, a credential in a URL, an OAuth secret — or
// because the name it is given says so. Ordinary configuration values
// (NODE_ENV=production, LOG_LEVEL=info, PORT=8080, paths) are not secrets:
// masking them would garble everything mcpx prints.

// secretWords are the parts of a name that mark its value secret.
var secretWords = map[string]bool{
	"TOKEN": true, "TOKENS": true, "SECRET": true, "SECRETS": true,
	"PASSWORD": true, "PASSWORDS": true, "PASSWD": true, "PASSPHRASE": true,
	"KEY": true, "KEYS": true, "AUTH": true, "CREDENTIAL": true, "CREDENTIALS": true, "CREDS": true,
	"COOKIE": true, "COOKIES": true, "SESSION": true, "PAT": true, "PRIVATE": true,
	// glued forms: apikey, ACCESSKEY, sessionid ...
	"APIKEY": true, "APIKEYS": true, "ACCESSKEY": true, "SECRETKEY": true, "PRIVATEKEY": true,
	"AUTHKEY": true, "SESSIONID": true, "SESSIONKEY": true,
}

// secretSuffixes make a glued part secret: ACCESSTOKEN, GHTOKEN,
// CLIENTSECRET, DBPASSWORD.
var secretSuffixes = []string{"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE"}

// describingWords, as the last part of a name, say that its value is
// about a secret, not the secret: where it is (TOKEN_FILE, SSH_AUTH_SOCK,
// AUTH_URL), what kind it is (AUTH_TYPE=oauth, TOKEN_TYPE=bearer), whether
// it is used (AUTH_ENABLED=true), or a setting (SESSION_TIMEOUT=3600).
var describingWords = map[string]bool{
	"FILE": true, "PATH": true, "DIR": true, "SOCK": true, "SOCKET": true,
	"URL": true, "URI": true, "ENDPOINT": true, "HOST": true, "PORT": true,
	"TYPE": true, "MODE": true, "METHOD": true, "KIND": true, "SCHEME": true, "PROVIDER": true, "ALGORITHM": true,
	"ENABLED": true, "DISABLED": true, "ENABLE": true, "DISABLE": true, "REQUIRED": true,
	"TIMEOUT": true, "TTL": true, "EXPIRY": true, "LIFETIME": true, "LENGTH": true, "SIZE": true,
	"HEADER": true, "NAME": true, "ISSUER": true, "AUDIENCE": true, "DOMAIN": true, "STORE": true,
	"FORMAT": true, "VERSION": true, "LEVEL": true,
}

// IsSecretName reports whether a name (an environment variable, a config
// env entry, a URL query parameter) says that its value is a secret. The
// name is split into parts at '_', '-', '.' and other punctuation, at
// camelCase boundaries (apiKey, APIKey) and between letters and digits;
// parts are compared ignoring case. It is secret when a whole part is one
// of the secret words — TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, KEY,
// AUTH, CREDENTIAL, COOKIE, SESSION, PAT, PRIVATE (and plurals) — or a
// glued form (APIKEY, ACCESSKEY, SESSIONID, a part ending in TOKEN,
// SECRET, PASSWORD, PASSWD or PASSPHRASE), unless its last part says the
// value only describes a secret (TOKEN_FILE, AUTH_TYPE, SESSION_TIMEOUT).
// So API_KEY, apiKey, GITHUB_PAT, ACCESS_TOKEN, DB_PASSWORD, SESSION_ID
// and X_AUTH are secret names; PATH, KEYBOARD, AUTHOR, MCP_LOG_LEVEL,
// NODE_ENV, PORT, DEBUG and HOME are not.
func IsSecretName(name string) bool {
	parts := nameParts(name)
	if len(parts) == 0 || len(parts) > 1 && describingWords[parts[len(parts)-1]] {
		return false
	}
	for _, p := range parts {
		if secretWords[p] {
			return true
		}
		for _, s := range secretSuffixes {
			if strings.HasSuffix(p, s) {
				return true
			}
		}
	}
	return false
}

// secretParam reports whether a URL query parameter carries a credential:
// a secret name, or a signature (sig, X-Amz-Signature).
func secretParam(name string) bool {
	if IsSecretName(name) {
		return true
	}
	parts := nameParts(name)
	return len(parts) > 0 && (parts[len(parts)-1] == "SIG" || parts[len(parts)-1] == "SIGNATURE")
}

// nameParts splits a name into upper-cased parts (see IsSecretName).
func nameParts(name string) []string {
	var parts []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			parts = append(parts, strings.ToUpper(name[start:end]))
		}
		start = -1
	}
	class := func(c byte) int { // 0 other, 1 lower, 2 upper, 3 digit
		switch {
		case c >= 'a' && c <= 'z':
			return 1
		case c >= 'A' && c <= 'Z':
			return 2
		case c >= '0' && c <= '9':
			return 3
		}
		return 0
	}
	for i := 0; i < len(name); i++ {
		c := class(name[i])
		if c == 0 {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := class(name[i-1])
		switch {
		case prev == 3 && c != 3, prev != 3 && c == 3: // letters | digits
			flush(i)
		case prev == 1 && c == 2: // camel|Case
			flush(i)
		case prev == 2 && c == 2 && i+1 < len(name) && class(name[i+1]) == 1: // API|Key
			flush(i)
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(name))
	return parts
}

// HeaderSecrets returns the secrets in a header value: the value, the
// credentials after an auth scheme ("Bearer TOKEN" → TOKEN too), since a
// server may echo the bare token, and for "Basic" the password and the
// user:password pair the credentials decode to.
func HeaderSecrets(v string) []string {
	out := []string{v}
	scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
	cred = strings.TrimSpace(cred)
	if !ok || cred == "" {
		return out
	}
	out = append(out, cred)
	if strings.EqualFold(scheme, "Basic") {
		if b, err := base64.StdEncoding.DecodeString(cred); err == nil {
			pair := string(b)
			out = append(out, pair)
			if _, pw, ok := strings.Cut(pair, ":"); ok && pw != "" {
				out = append(out, pw)
			}
		}
	}
	return out
}

// URLSecrets returns the credentials in a URL: the password of its
// userinfo, with user:password and the Authorization: Basic value built
// from them; a username without a password (https://TOKEN@host, a token)
// and its Basic value; and the values of credential-like query parameters
// (?api_key=..., ?access_token=..., ?sig=...), decoded and as written.
func URLSecrets(u *url.URL) []string {
	var out []string
	if u.User != nil {
		user := u.User.Username()
		pw, hasPW := u.User.Password()
		switch {
		case hasPW && pw != "":
			out = append(out, pw, user+":"+pw, base64.StdEncoding.EncodeToString([]byte(user+":"+pw)))
			if esc, ok := escapedPassword(u); ok && esc != pw {
				out = append(out, esc)
			}
		case user != "":
			out = append(out, user, base64.StdEncoding.EncodeToString([]byte(user+":"+pw)))
			if esc := url.User(user).String(); esc != user {
				out = append(out, esc)
			}
		}
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		if name, err := url.QueryUnescape(k); err == nil && secretParam(name) {
			out = append(out, v)
			if dec, err := url.QueryUnescape(v); err == nil && dec != v {
				out = append(out, dec)
			}
		}
	}
	return out
}

// escapedPassword is the password as the URL writes it (percent-encoded).
func escapedPassword(u *url.URL) (string, bool) {
	s := u.User.String()
	_, pw, ok := strings.Cut(s, ":")
	return pw, ok
}

// displayURL is a configured URL as mcpx shows it (servers, completion):
// unexpanded, with a literal password, a username-only token and the
// values of credential-like query parameters shown as ***. A part that is
// only ${VAR} references stays as written: it reveals nothing.
func displayURL(raw string) string { return maskURL(raw, true) }

// maskURL is displayURL; a username alone is shown as *** only when
// userToken says that it is a token.
func maskURL(raw string, userToken bool) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		info := authority[:at]
		if user, pw, ok := strings.Cut(info, ":"); ok {
			if literal(pw) {
				info = user + ":***"
			}
		} else if userToken && literal(info) {
			info = "***"
		}
		authority = info + authority[at:]
	}
	if q := strings.IndexByte(tail, '?'); q >= 0 {
		query, frag := tail[q+1:], ""
		if h := strings.IndexByte(query, '#'); h >= 0 {
			query, frag = query[:h], query[h:]
		}
		pairs := strings.Split(query, "&")
		for i, kv := range pairs {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || !literal(v) {
				continue
			}
			if name, err := url.QueryUnescape(k); err == nil && secretParam(name) {
				pairs[i] = k + "=***"
			}
		}
		tail = tail[:q+1] + strings.Join(pairs, "&") + frag
	}
	return scheme + "://" + authority + tail
}

// literal reports whether s holds anything besides ${...} references.
func literal(s string) bool {
	for s != "" {
		i := strings.Index(s, "${")
		if i != 0 {
			return true
		}
		j := strings.IndexByte(s, '}')
		if j < 0 {
			return true
		}
		s = s[j+1:]
	}
	return false
}

// A URL inside a stdio server's command line or environment (the
// reference Postgres server takes postgresql://USER:PASSWORD@HOST/DB as
// its argument; DATABASE_URL=...) carries credentials as a server URL
// does: its password and its credential-like query parameters are
// secrets. A username alone is not one there: it is usually a plain name
// (postgres://postgres@localhost/db) that masking would garble output
// with.

// embeddedURL returns where a URL starts and ends inside s (an argument
// such as --db=postgresql://...): from its scheme to the first blank;
// i < 0 when s has none.
func embeddedURL(s string) (i, j int) {
	k := strings.Index(s, "://")
	if k <= 0 {
		return -1, -1
	}
	i = k
	for i > 0 && (isAlnum(s[i-1]) || strings.IndexByte("+-.", s[i-1]) >= 0) {
		i--
	}
	for i < k && !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++ // a scheme starts with a letter
	}
	if i == k {
		return -1, -1
	}
	j = k + 3
	for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
		j++
	}
	return i, j
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// valueSecrets returns the credentials of a URL in a command-line argument
// or an environment value of a stdio server (see embeddedURL): those of
// URLSecrets, but a username without a password is not one.
func valueSecrets(v string) []string {
	i, j := embeddedURL(v)
	if i < 0 {
		return nil
	}
	u, err := url.Parse(v[i:j])
	if err != nil {
		return nil
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); !ok || pw == "" {
			u.User = nil
		}
	}
	return URLSecrets(u)
}

// displayArg is a word of a configured command line as mcpx shows it: a
// URL in it with its literal password and credential-like query
// parameters shown as *** (see displayURL), a username kept.
func displayArg(s string) string {
	i, j := embeddedURL(s)
	if i < 0 {
		return s
	}
	return s[:i] + maskURL(s[i:j], false) + s[j:]
}
