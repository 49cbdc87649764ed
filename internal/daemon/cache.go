package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// DefaultListTTL is how long a listing is kept when the server offers
// neither listChanged for its kind nor a ttlMs on it.
const DefaultListTTL = 60 * time.Second

// listKinds maps the listing methods cached to the capability (and the
// list_changed notification) of their kind.
var listKinds = map[string]string{
	"tools/list":               "tools",
	"prompts/list":             "prompts",
	"resources/list":           "resources",
	"resources/templates/list": "resources",
	"skills/list":              "skills", // the skills extension: kept for its ttlMs, else DefaultListTTL
}

// Cache holds the listings of one connection: each page by method and
// cursor, and by the authorization context of the caller it was listed for
// unless its cacheScope is "public" (a "private" page, or one that says
// nothing, is reused only for the same OAuth token: SEP-2549). It is
// dropped per kind on notifications/KIND/list_changed, a page after its
// ttlMs, every page of a kind whose server offers no listChanged after
// DefaultListTTL; a --refresh caller bypasses it (and refills it).
type Cache struct {
	mu sync.Mutex
	// listChanged: the kinds whose capability offers listChanged (read
	// from the initialize result).
	listChanged map[string]bool
	pages       map[string]page
	// gens counts the list_changed of each kind: a listing answered after
	// one arrived, while the listing was in flight, may be the old one.
	gens map[string]uint64
	now  func() time.Time
}

type page struct {
	result json.RawMessage
	until  time.Time // zero: until list_changed
}

// NewCache makes the cache of a connection whose initialize result is
// initResult.
func NewCache(initResult json.RawMessage) *Cache {
	c := &Cache{listChanged: map[string]bool{}, pages: map[string]page{}, gens: map[string]uint64{}, now: time.Now}
	c.SetInit(initResult)
	return c
}

// SetInit reads which kinds offer listChanged from an initialize result.
func (c *Cache) SetInit(initResult json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range []string{"tools", "prompts", "resources"} {
		c.listChanged[k] = gjson.GetBytes(initResult, "capabilities."+k+".listChanged").Bool()
	}
}

// Cacheable reports whether method's pages are cached.
func Cacheable(method string) bool {
	_, ok := listKinds[method]
	return ok
}

func pageKey(method string, params json.RawMessage) string {
	return method + "\x00" + gjson.GetBytes(params, "cursor").String()
}

// AuthContext is the authorization context of a caller that sends bearer
// ("" for none): a digest, so that no token is kept as a key.
func AuthContext(bearer string) string {
	if bearer == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(bearer))
	return hex.EncodeToString(sum[:])
}

// Get returns the cached result of a listing request, if fresh, for a
// caller with no authorization context.
func (c *Cache) Get(method string, params json.RawMessage) (json.RawMessage, bool) {
	return c.GetIn("", method, params)
}

// GetIn returns the cached result of a listing request for a caller in the
// authorization context auth (see AuthContext): a page listed in that
// context, or a public one.
func (c *Cache) GetIn(auth, method string, params json.RawMessage) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := []string{pageKey(method, params) + "\x00" + auth}
	if auth != "" {
		keys = append(keys, pageKey(method, params)+"\x00")
	}
	for _, k := range keys {
		p, ok := c.pages[k]
		if !ok {
			continue
		}
		if !p.until.IsZero() && !c.now().Before(p.until) {
			delete(c.pages, k)
			continue
		}
		return p.result, true
	}
	return nil, false
}

// Chain appends to pages the fresh pages of method's listing from its
// first, in order, following each page's nextCursor while the page it
// names is cached, as long as their results fit in limit bytes (counting
// those in pages already).
func (c *Cache) Chain(method string, pages []AheadPage, limit int) []AheadPage {
	if !Cacheable(method) {
		return pages
	}
	n := 0
	for _, p := range pages {
		n += len(p.Result)
	}
	seen := map[string]bool{}
	for cursor := ""; !seen[cursor]; {
		seen[cursor] = true
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		r, ok := c.Get(method, params)
		if !ok || n+len(r) > limit {
			break
		}
		n += len(r)
		pages = append(pages, AheadPage{Method: method, Cursor: cursor, Result: r})
		next := gjson.GetBytes(r, "nextCursor")
		if next.Type != gjson.String || next.Str == "" {
			break
		}
		cursor = next.Str
	}
	return pages
}

// Gen is the generation of method's kind, taken before a listing is sent
// to the server and given to Put with its answer.
func (c *Cache) Gen(method string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gens[listKinds[method]]
}

// Put stores the result of a listing request sent at generation gen
// (Gen), unless a list_changed of its kind has arrived since: the server
// may have listed what it had before the change. The caller has no
// authorization context.
func (c *Cache) Put(method string, params, result json.RawMessage, gen uint64) {
	c.PutIn("", method, params, result, gen)
}

// PutIn is Put for a caller in the authorization context auth: the page is
// kept for that context, or for every caller when its cacheScope is
// "public".
func (c *Cache) PutIn(auth, method string, params, result json.RawMessage, gen uint64) {
	kind, ok := listKinds[method]
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gens[kind] != gen {
		return
	}
	p := page{result: result}
	if ttl := gjson.GetBytes(result, "ttlMs"); ttl.Exists() && ttl.Type == gjson.Number {
		p.until = c.now().Add(time.Duration(max(ttl.Int(), 0)) * time.Millisecond)
	} else if !c.listChanged[kind] {
		p.until = c.now().Add(DefaultListTTL)
	}
	if gjson.GetBytes(result, "cacheScope").String() == "public" {
		auth = ""
	}
	c.pages[pageKey(method, params)+"\x00"+auth] = p
}

// Changed drops the pages a notifications/KIND/list_changed makes stale.
// It reports whether method was one of those notifications.
func (c *Cache) Changed(method string) bool {
	kind, ok := strings.CutSuffix(strings.TrimPrefix(method, "notifications/"), "/list_changed")
	if !ok || !strings.HasPrefix(method, "notifications/") {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kind == "tools" || kind == "prompts" || kind == "resources" {
		c.gens[kind]++ // a kind of the server's own is not kept
	}
	for k := range c.pages {
		m, _, _ := strings.Cut(k, "\x00")
		if listKinds[m] == kind {
			delete(c.pages, k)
		}
	}
	return true
}
