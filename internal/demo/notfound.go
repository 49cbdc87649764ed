package demo

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// notFoundWriter gives "resource not found" its MCP error code. mcp-go
// answers every error of a resource handler with -32603 (internal error),
// even one wrapping server.ErrResourceNotFound; over stdio each reply is one
// line, and a -32603 reply whose message ends in that error's text becomes
// -32002, so `mcpx read demo demo://notes/99` is "not found" (exit 4) as
// the template's description promises.
type notFoundWriter struct {
	w       io.Writer
	pending []byte
}

func (nw *notFoundWriter) Write(p []byte) (int, error) {
	nw.pending = append(nw.pending, p...)
	for {
		i := bytes.IndexByte(nw.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := fixNotFound(nw.pending[:i+1])
		rest := nw.pending[i+1:]
		if _, err := nw.w.Write(line); err != nil {
			return 0, err
		}
		nw.pending = append(nw.pending[:0], rest...)
	}
}

func fixNotFound(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"error"`)) {
		return line
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data,omitempty"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Error.Code != mcp.INTERNAL_ERROR ||
		!strings.HasSuffix(msg.Error.Message, ": "+server.ErrResourceNotFound.Error()) {
		return line
	}
	msg.Error.Code = mcp.RESOURCE_NOT_FOUND
	msg.Error.Message = strings.TrimSuffix(msg.Error.Message, ": "+server.ErrResourceNotFound.Error())
	b, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return append(b, '\n')
}
