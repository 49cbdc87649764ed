//go:build windows

package transport

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// prepare finds the server's program as the Windows hosts do (PATHEXT; a
// .cmd or .bat file through cmd.exe) and asks for a process group of its
// own, created suspended so that it is in its job object before it can
// start anything.
func prepare(cmd *exec.Cmd, c *Command) error {
	path, err := lookPathWindows(c.Path, c.Env, isFile)
	if err != nil {
		return withAbs(err)
	}
	attr := &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED}
	cmd.Path = path
	if isBatch(path) {
		cs := comspec(c.Env)
		line, err := batchCommandLine(cs, path, c.Args)
		if err != nil {
			return err
		}
		cmd.Path, attr.CmdLine = cs, line
	}
	cmd.SysProcAttr = attr
	return nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// start starts the (suspended) server, puts it in a new job object that
// kills everything in it when closed (so when mcpx ends, however it ends),
// and lets it run.
func start(cmd *exec.Cmd) (*sysProcess, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("cannot set up a job object: %w", err)
	}
	if err := cmd.Start(); err != nil {
		_ = windows.CloseHandle(job)
		return nil, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME,
		false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, h)
		if err == nil {
			if r, _, _ := ntResumeProcess.Call(uintptr(h)); r != 0 {
				err = fmt.Errorf("NtResumeProcess: NTSTATUS 0x%08X", uint32(r))
			}
		}
		_ = windows.CloseHandle(h)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("cannot start the server in a job object: %w", err)
	}
	return &sysProcess{job: job}, nil
}

// sysProcess holds the server's job object.
type sysProcess struct {
	job windows.Handle
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// alive reports whether any process of the job is still running.
func (s *sysProcess) alive(int) bool {
	if s.job == 0 {
		return false
	}
	var info jobAccounting
	if err := windows.QueryInformationJobObject(s.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return false
	}
	return info.ActiveProcesses > 0
}

// terminate asks the server's process group to stop with CTRL_BREAK_EVENT
// (the console control event a process group can be sent); without a
// shared console that cannot be delivered, and the job is ended at once.
func (s *sysProcess) terminate(pid int) {
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)); err != nil {
		s.kill(pid)
	}
}

func (s *sysProcess) kill(int) {
	if s.job != 0 {
		_ = windows.TerminateJobObject(s.job, 1)
	}
}

// release closes the job object, which ends whatever is still in it.
func (s *sysProcess) release() {
	if s.job != 0 {
		_ = windows.CloseHandle(s.job)
		s.job = 0
	}
}

// signalStatus: Windows processes do not die of signals.
func signalStatus(*exec.ExitError) string { return "" }
