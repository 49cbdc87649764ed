// Package auth is mcpx's OAuth client: login (Login: discovery,
// registration, the authorization code flow with PKCE, the local
// callback) and logout (Logout: revocation), the token store (one file
// per server, written atomically, refreshed under a file lock), and what a
// connection needs from it: a Source that gives the stored token to send,
// refreshes it once when it has expired or the server refuses it, and
// explains a 401 (a *fail.AuthError) with what mcpx had. It never asks anything
// interactively but in Login.
//
// It imports internal/config (the target and its configured client),
// client/transport (the HTTP origin policy, challenges) and
// internal packages; the connection (package client) imports it.
package auth
