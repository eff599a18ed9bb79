/* A stand-in for Nsight Compute's TreeLauncherSubreaper (tests/test_tools_in_sandbox.py): started as
 *     standin_launcher ARGS... PROGRAM
 * it runs PROGRAM ARGS... as its child and stays beside it until it ends, with a command line laid out as the
 * real launcher's is on the H200 (2026-12-02): its own name, the program's arguments, then the program
 * ("./TreeLauncherSubreaper -m judge.worker 26 30 32 /opt/torch/.venv/bin/python3"), and, as the real one did
 * there, it takes a child that stops (SIGSTOP) for one that ended: ncu then said "The application returned an
 * error code (19)", 19 being SIGSTOP's number, and profiled nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    char *program = argv[argc - 1];
    pid_t child = fork();
    if (child == 0) {
        char **args = calloc(argc, sizeof(char *));
        args[0] = program;
        for (int i = 1; i < argc - 1; i++) args[i] = argv[i];
        execv(program, args);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, WUNTRACED);  /* as the real one: a stopped child ends the profile (H200, 2026-12-02) */
    if (WIFSTOPPED(status)) {
        printf("==ERROR== The application returned an error code (%d).\n", WSTOPSIG(status));
        fflush(stdout);
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
