//go:build !unix

package render

func umask(int) {}
