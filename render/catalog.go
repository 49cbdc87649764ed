package render

import (
	"encoding/json"
	"strings"
)

// CatalogItem is the JSON shape of one catalog item (see catalog in COMMANDS,
// mcpx(1)). Every field is always present; null when unknown.
type CatalogItem struct {
	Server      string          `json:"server"`
	Kind        string          `json:"kind"`
	ID          string          `json:"id"`
	Key         string          `json:"key"`
	Name        *string         `json:"name"`
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
	URI         *string         `json:"uri"`
	URITemplate *string         `json:"uri_template"`
	MimeType    *string         `json:"mime_type"`
	Size        *json.Number    `json:"size"`
	Annotations json.RawMessage `json:"annotations"`
	Arguments   []Argument      `json:"arguments"`
	// Icons, _meta and (tools) execution, exactly as the server sent them.
	Icons     json.RawMessage `json:"icons"`
	Meta      json.RawMessage `json:"_meta"`
	Execution json.RawMessage `json:"execution"`
}

// Argument is one declared prompt argument.
type Argument struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Required    bool    `json:"required"`
}

// Warning is one degraded result in a document. Kind and Item are null
// when the warning concerns a whole server.
type Warning struct {
	Server  string  `json:"server"`
	Kind    *string `json:"kind"`
	Item    *string `json:"item"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
}

// Describe is the document of `mcpx describe`: the catalog item plus, by
// kind, the tool's schemas exactly as sent or the template's variables.
type Describe struct {
	CatalogItem
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
	Variables    []string        `json:"variables"`
}

// Matches reports whether the item's id, name, title or description
// contains query, case-insensitively.
func (it *CatalogItem) Matches(query string) bool {
	q := strings.ToLower(query)
	for _, f := range []*string{&it.ID, it.Name, it.Title, it.Description} {
		if f != nil && strings.Contains(strings.ToLower(*f), q) {
			return true
		}
	}
	return false
}

// FirstLine returns the first non-empty line of s, trimmed.
func FirstLine(s *string) string {
	if s == nil {
		return ""
	}
	for _, line := range strings.Split(*s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}
