package ascaller

import "golang.org/x/sys/unix"

// resources are the limits a caller passes on: those of ulimit(1), in its
// order.
var resources = []struct {
	name string
	res  int
}{
	{"core", unix.RLIMIT_CORE}, {"data", unix.RLIMIT_DATA}, {"nice", unix.RLIMIT_NICE}, {"fsize", unix.RLIMIT_FSIZE},
	{"sigpending", unix.RLIMIT_SIGPENDING}, {"memlock", unix.RLIMIT_MEMLOCK}, {"rss", unix.RLIMIT_RSS},
	{nofile, unix.RLIMIT_NOFILE}, {"msgqueue", unix.RLIMIT_MSGQUEUE}, {"rtprio", unix.RLIMIT_RTPRIO},
	{"stack", unix.RLIMIT_STACK}, {"cpu", unix.RLIMIT_CPU}, {"nproc", unix.RLIMIT_NPROC}, {"as", unix.RLIMIT_AS},
	{"locks", unix.RLIMIT_LOCKS}, {"rttime", unix.RLIMIT_RTTIME},
}
