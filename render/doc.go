// Package render is the content policy: it turns what servers send into what
// mcpx prints — paged text, spilled blobs, flattened prompts, catalog and
// describe documents — under named limits. It never talks to a server and,
// apart from the spill writer, performs no IO.
package render
