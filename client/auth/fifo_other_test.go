//go:build !unix

package auth

import "errors"

func mkfifo(string, uint32) error { return errors.ErrUnsupported }
