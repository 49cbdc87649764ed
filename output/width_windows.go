//go:build windows

package output

import (
	"os"

	"golang.org/x/sys/windows"
)

// termWidth is the number of columns of the console window f, 0 when unknown.
func termWidth(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}
