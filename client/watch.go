package client

// What mcpx watch needs of a connection (see WATCHING in mcpx(1)): the
// server's notifications of changes, in both eras. In the 2026-07-28 era
// one subscriptions/listen request, held open, carries them, each tagged
// with the request's id; before it, resources/subscribe per URI and the
// list_changed notifications the server sends unasked.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
)

// Notification is one of the server's notifications that mcpx has no use
// of its own for: its method and its params as sent (given to
// Options.OnNotification). SubscriptionID is the raw
// _meta["io.modelcontextprotocol/subscriptionId"] ("" when absent).
type Notification struct {
	Method         string
	Params         json.RawMessage
	SubscriptionID string
}

// The change notifications.
const (
	NotifyResourceUpdated  = "notifications/resources/updated"
	NotifyToolsChanged     = "notifications/tools/list_changed"
	NotifyPromptsChanged   = "notifications/prompts/list_changed"
	NotifyResourcesChanged = "notifications/resources/list_changed"
	notifyAcknowledged     = "notifications/subscriptions/acknowledged"
)

// ListenFilter is what a subscriptions/listen request opts in to, and what
// the server's acknowledgement says it honours.
type ListenFilter struct {
	Tools     bool     `json:"toolsListChanged,omitempty"`
	Prompts   bool     `json:"promptsListChanged,omitempty"`
	Resources bool     `json:"resourcesListChanged,omitempty"`
	URIs      []string `json:"resourceSubscriptions,omitempty"`
}

// Modern reports whether the connection speaks the 2026-07-28 era.
func (c *Conn) Modern() bool { return mcp.IsModernProtocol(c.Protocol) }

// Lost returns a channel closed when the connection is known dead: a
// stdio server's stdout ended, or its leader gone (or the connection
// closed).
func (c *Conn) Lost() <-chan struct{} {
	out := make(chan struct{})
	var ended <-chan struct{}
	if d, ok := c.tap.inner.(interface{ Done() <-chan struct{} }); ok {
		ended = d.Done()
	}
	lost := c.lost.done()
	go func() {
		select {
		case <-lost:
		case <-ended:
		}
		close(out)
	}()
	return out
}

// notified passes a notification mcpx does not handle itself on to
// Options.OnNotification, with its params as JSON.
func (h *serverHooks) notified(n mcp.JSONRPCNotification) {
	if h.o.OnNotification == nil {
		return
	}
	raw, err := json.Marshal(n.Params)
	if err != nil {
		return
	}
	sub := gjson.GetBytes(raw, gjson.Escape("_meta")+"."+gjson.Escape(mcp.MetaKeySubscriptionID)).Raw
	h.o.OnNotification(Notification{Method: n.Method, Params: raw, SubscriptionID: sub})
}

// Subscribe asks the server for notifications/resources/updated of uri
// (resources/subscribe, the legacy era). A server that does not advertise
// resources.subscribe is refused before anything is sent.
func (c *Conn) Subscribe(ctx context.Context, uri string) error {
	if !c.Caps.Subscribe {
		return Unsupported(c.T.Name, "resource subscriptions (resources.subscribe)")
	}
	_, err := c.callRaw(ctx, "resources/subscribe", func(ctx context.Context) (json.RawMessage, error) {
		return c.plain(ctx, "resources/subscribe", mcp.SubscribeParams{URI: uri})
	})
	return err
}

// Unsubscribe ends a subscription of Subscribe (resources/unsubscribe).
func (c *Conn) Unsubscribe(ctx context.Context, uri string) error {
	_, err := c.callRaw(ctx, "resources/unsubscribe", func(ctx context.Context) (json.RawMessage, error) {
		return c.plain(ctx, "resources/unsubscribe", mcp.UnsubscribeParams{URI: uri})
	})
	return err
}

// Listening is one subscriptions/listen request in flight (the 2026-07-28
// era): ID is its id as JSON, the subscription id every notification of it
// carries; Acked receives the server's acknowledgement once; Done the
// request's end (nil when the server closed the stream, else why it ended).
type Listening struct {
	ID    string
	Acked chan ListenFilter
	Done  chan error

	once sync.Once
}

// ack delivers the acknowledgement (the first one only).
func (l *Listening) ack(params json.RawMessage) bool {
	var p struct {
		Notifications ListenFilter `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	delivered := false
	l.once.Do(func() {
		l.Acked <- p.Notifications
		delivered = true
	})
	return delivered
}

// Acknowledge is given every notification a listen may be waiting for: it
// reports whether n is the acknowledgement of l (then delivered on Acked).
func (l *Listening) Acknowledge(n Notification) bool {
	return n.Method == notifyAcknowledged && n.SubscriptionID == l.ID && l.ack(n.Params)
}

// Listen sends subscriptions/listen with filter and returns at once; the
// request runs until ctx ends (then the server is told: the request is
// cancelled) or the server ends it. A server that does not advertise
// resources.subscribe is refused URIs before anything is sent.
func (c *Conn) Listen(ctx context.Context, filter ListenFilter) (*Listening, error) {
	if len(filter.URIs) > 0 && !c.Caps.Subscribe {
		return nil, Unsupported(c.T.Name, "resource subscriptions (resources.subscribe)")
	}
	if !c.Modern() {
		return nil, fmt.Errorf("subscriptions/listen needs the 2026-07-28 era, not %s", c.Protocol)
	}
	id := c.tap.nextID()
	idJSON, _ := json.Marshal(id)
	l := &Listening{ID: string(idJSON), Acked: make(chan ListenFilter, 1), Done: make(chan error, 1)}
	go func() {
		_, err := c.callRaw(ctx, string(mcp.MethodSubscriptionsListen), func(ctx context.Context) (json.RawMessage, error) {
			return c.requestWithID(ctx, id, string(mcp.MethodSubscriptionsListen), obj{"notifications": filter})
		})
		l.Done <- err
	}()
	return l, nil
}

type obj = map[string]any

// requestWithID is request with the id given (the subscription id must be
// known before the acknowledgement can arrive).
func (c *Conn) requestWithID(ctx context.Context, id mcp.RequestId, method string, params any) (json.RawMessage, error) {
	params = c.requestMeta(params)
	header := c.standardHeaders(method, params)
	if err := ctx.Err(); err != nil {
		return nil, mcptransport.NewError(err)
	}
	req := mcptransport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params, Header: header}
	resp, err := c.tap.send(ctx, req)
	if err != nil {
		return nil, &unansweredError{ID: id, Err: mcptransport.NewError(err)}
	}
	return replyResult(resp)
}

// Ping asks the server whether it is still there (ping): a watch over HTTP
// in the legacy era learns of a server gone only so.
func (c *Conn) Ping(ctx context.Context) error {
	_, err := c.callRaw(ctx, string(mcp.MethodPing), func(ctx context.Context) (json.RawMessage, error) {
		return c.plain(ctx, string(mcp.MethodPing), nil)
	})
	return err
}
