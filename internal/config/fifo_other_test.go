//go:build !unix

package config

import "errors"

func mkfifo(string, uint32) error { return errors.ErrUnsupported }
