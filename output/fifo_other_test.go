//go:build !unix

package output

import "errors"

func mkfifo(string, uint32) error { return errors.ErrUnsupported }
