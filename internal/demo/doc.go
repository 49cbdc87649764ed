// Package demo is the MCP server built into mcpx ("mcpx serve-demo"), reached
// as the server named demo. It shows off every kind of item mcpx handles:
// typed tools (text, structured, image and error results), paginated
// resources (text, a large log, a PNG blob, JSON), resource templates with
// completion, prompts with several roles and an embedded resource, and the
// logging capability. It is deterministic: no clock, no randomness, no
// network and no files, so the same version serves byte-identical listings
// and contents on every run.
package demo
