package daemon

import "golang.org/x/sys/unix"

// fionread is the ioctl that tells the bytes waiting in a pipe.
const fionread = unix.TIOCINQ
