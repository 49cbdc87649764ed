//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package daemon

// fionread is the ioctl that tells the bytes waiting in a pipe (FIONREAD,
// _IOR('f', 127, int)).
const fionread = 0x4004667f
