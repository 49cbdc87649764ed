package fail

import (
	"errors"
	"fmt"
	"testing"
)

// TestAs: the first *Error of the chain with the code asked for, through
// wrapping and joins; a failure of another code is passed over.
func TestAs(t *testing.T) {
	inner := &Error{Code: Unsupported, Message: "inner"}
	outer := &Error{Code: NotFound, Message: "outer", Cause: inner}
	for _, tc := range []struct {
		err  error
		code Code
		want *Error
	}{
		{outer, NotFound, outer},
		{outer, Unsupported, inner},
		{fmt.Errorf("w: %w", outer), Unsupported, inner},
		{errors.Join(errors.New("x"), fmt.Errorf("w: %w", inner)), Unsupported, inner},
		{outer, Usage, nil},
		{&ConnectError{Err: inner}, Unsupported, inner},
		{nil, Usage, nil},
	} {
		got, ok := As(tc.err, tc.code)
		if got != tc.want || ok != (tc.want != nil) || Is(tc.err, tc.code) != ok {
			t.Errorf("As(%v, %s) = %v, %v; want %v", tc.err, tc.code, got, ok, tc.want)
		}
	}
}
