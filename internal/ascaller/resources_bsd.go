//go:build unix && !linux

package ascaller

import "golang.org/x/sys/unix"

// resources are the limits a caller passes on: those of ulimit(1), in its
// order.
var resources = []struct {
	name string
	res  int
}{
	{"core", unix.RLIMIT_CORE}, {"data", unix.RLIMIT_DATA}, {"fsize", unix.RLIMIT_FSIZE}, {"memlock", unix.RLIMIT_MEMLOCK},
	{"rss", unix.RLIMIT_RSS}, {nofile, unix.RLIMIT_NOFILE}, {"stack", unix.RLIMIT_STACK}, {"cpu", unix.RLIMIT_CPU},
	{"nproc", unix.RLIMIT_NPROC}, {"as", unix.RLIMIT_AS},
}
