// Starts a program with piped stdin/stdout/stderr through posix_spawn, which glibc implements with
// clone(CLONE_VM | CLONE_VFORK): no copy of Node's page tables. libuv forks instead, which blocks
// Node's thread for 5-17 ms on this project's VMs and makes every later write to Node's heap fault
// once. Compiled on first use by src/host/exec/posix-spawn-addon.ts; Node's own spawn is the fallback.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

// Shared by the thread that waits for the child and by Node's thread-safe function, which Node
// deletes when the environment that made it ends (a worker thread ending) even while the waiting
// thread still holds it. `guard` orders the two; the last owner frees the struct.
typedef struct {
  pid_t pid;
  napi_threadsafe_function on_exit;
  bool on_exit_alive;
  int owners;
} Child;

static pthread_mutex_t guard = PTHREAD_MUTEX_INITIALIZER;

static void let_go(Child *child) {
  bool last = --child->owners == 0;
  pthread_mutex_unlock(&guard);
  if (last) free(child);
}

// Waits for the exit without reaping it: the pid stays this child's (a zombie) until the exit
// reaches JavaScript on Node's thread, so a kill can never reach a process that reused the pid.
static void *wait_for_exit(void *data) {
  Child *child = data;
  siginfo_t info;
  while (waitid(P_PID, child->pid, &info, WEXITED | WNOWAIT) == -1 && errno == EINTR) {
  }
  pthread_mutex_lock(&guard);
  if (child->on_exit_alive) {
    // napi_closing: the environment is ending and has let go of the function already
    if (napi_call_threadsafe_function(child->on_exit, NULL, napi_tsfn_blocking) != napi_closing)
      napi_release_threadsafe_function(child->on_exit, napi_tsfn_release);
  } else {
    // no JavaScript is left to hear of it or to signal the pid
    while (waitpid(child->pid, NULL, 0) == -1 && errno == EINTR) {
    }
  }
  let_go(child);
  return NULL;
}

// On Node's thread: reaps the child and calls back with (code, signal number), one of them null.
static void deliver_exit(napi_env env, napi_value callback, void *context, void *data) {
  (void)data;
  Child *child = context;
  int status = 0;
  pid_t reaped;
  do reaped = waitpid(child->pid, &status, 0);
  while (reaped == -1 && errno == EINTR);
  if (env == NULL || callback == NULL) return; // the environment is ending
  napi_value args[2];
  napi_get_null(env, &args[0]);
  napi_get_null(env, &args[1]);
  if (reaped == child->pid && WIFEXITED(status)) napi_create_int32(env, WEXITSTATUS(status), &args[0]);
  if (reaped == child->pid && WIFSIGNALED(status)) napi_create_int32(env, WTERMSIG(status), &args[1]);
  napi_value global;
  napi_get_global(env, &global);
  napi_call_function(env, global, callback, 2, args, NULL);
}

static void on_exit_deleted(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Child *child = data;
  pthread_mutex_lock(&guard);
  child->on_exit_alive = false;
  let_go(child);
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != napi_ok) {                                                                       \
      napi_throw_error(env, NULL, "posix-spawn: " #call " failed");                                \
      return NULL;                                                                                 \
    }                                                                                              \
  } while (0)

static char *utf8(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text) napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

static void free_strings(char **strings) {
  if (!strings) return;
  for (char **s = strings; *s; s++) free(*s);
  free(strings);
}

static int spawn_piped(const char *path, char **argv, int fds[3], pid_t *pid) {
  int pipes[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  int error = 0;
  for (int i = 0; i < 3 && !error; i++)
    if (pipe2(pipes[i], O_CLOEXEC) == -1) error = errno;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  if (!error) {
    posix_spawn_file_actions_init(&actions);
    // the child reads the read end of stdin's pipe and writes the write ends of the others
    posix_spawn_file_actions_adddup2(&actions, pipes[0][0], 0);
    posix_spawn_file_actions_adddup2(&actions, pipes[1][1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipes[2][1], 2);
    posix_spawnattr_init(&attributes);
    // as libuv does: the child starts with no signal blocked and none ignored (Node ignores SIGPIPE)
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    error = posix_spawn(pid, path, &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
  }
  int keep[3] = {pipes[0][1], pipes[1][0], pipes[2][0]};
  int give[3] = {pipes[0][0], pipes[1][1], pipes[2][1]};
  for (int i = 0; i < 3; i++) {
    if (give[i] != -1) close(give[i]);
    if (error && keep[i] != -1) close(keep[i]);
    fds[i] = keep[i];
  }
  return error;
}

static napi_value set_int(napi_env env, napi_value object, const char *name, int32_t value) {
  napi_value number;
  if (napi_create_int32(env, value, &number) != napi_ok) return NULL;
  return napi_set_named_property(env, object, name, number) == napi_ok ? object : NULL;
}

// spawn(path, argv, onExit(code, signal)) -> { pid, stdin, stdout, stderr, handle }; throws an Error
// with `errno` set when the program cannot be started.
static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value args[3];
  CHECK(napi_get_cb_info(env, info, &argc, args, NULL, NULL));
  uint32_t count = 0;
  CHECK(napi_get_array_length(env, args[1], &count));
  char *path = utf8(env, args[0]);
  char **argv = calloc(count + 1, sizeof(char *));
  int ok = path && argv;
  for (uint32_t i = 0; ok && i < count; i++) {
    napi_value item;
    ok = napi_get_element(env, args[1], i, &item) == napi_ok && (argv[i] = utf8(env, item)) != NULL;
  }
  int fds[3];
  pid_t pid = 0;
  int error = ok ? spawn_piped(path, argv, fds, &pid) : ENOMEM;
  free(path);
  free_strings(argv);
  if (error) {
    napi_value code, message, exception;
    char text[160];
    snprintf(text, sizeof text, "could not start the program: %s", strerror(error));
    napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
    napi_create_int32(env, error, &code);
    napi_create_error(env, NULL, message, &exception);
    napi_set_named_property(env, exception, "errno", code);
    napi_throw(env, exception);
    return NULL;
  }

  Child *child = calloc(1, sizeof(Child));
  napi_value name, result, handle;
  CHECK(child ? napi_ok : napi_generic_failure);
  child->pid = pid;
  child->on_exit_alive = true;
  child->owners = 2; // the waiting thread and the thread-safe function
  CHECK(napi_create_string_utf8(env, "posix-spawn exit", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_threadsafe_function(env, args[2], NULL, name, 0, 1, child, on_exit_deleted, child, deliver_exit, &child->on_exit));
  pthread_t thread;
  pthread_attr_t thread_attributes;
  pthread_attr_init(&thread_attributes);
  pthread_attr_setdetachstate(&thread_attributes, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&thread_attributes, 64 * 1024);
  int started = pthread_create(&thread, &thread_attributes, wait_for_exit, child);
  pthread_attr_destroy(&thread_attributes);
  if (started != 0) {
    kill(pid, SIGKILL);
    wait_for_exit(child); // delivers the exit through the same path, on the next turn of the loop
  }
  CHECK(napi_create_object(env, &result));
  CHECK(napi_create_external(env, child->on_exit, NULL, NULL, &handle));
  CHECK(napi_set_named_property(env, result, "handle", handle));
  if (!set_int(env, result, "pid", pid) || !set_int(env, result, "stdin", fds[0]) || !set_int(env, result, "stdout", fds[1]) ||
      !set_int(env, result, "stderr", fds[2]))
    return NULL;
  return result;
}

// hold(handle, yes): whether a child that has not exited keeps Node's event loop alive. Only to be
// called before its exit was delivered (the handle is freed after).
static napi_value Hold(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  CHECK(napi_get_cb_info(env, info, &argc, args, NULL, NULL));
  napi_threadsafe_function on_exit;
  bool yes = false;
  CHECK(napi_get_value_external(env, args[0], (void **)&on_exit));
  CHECK(napi_get_value_bool(env, args[1], &yes));
  CHECK(yes ? napi_ref_threadsafe_function(env, on_exit) : napi_unref_threadsafe_function(env, on_exit));
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, Spawn, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "spawn", function) != napi_ok) return NULL;
  if (napi_create_function(env, "hold", NAPI_AUTO_LENGTH, Hold, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "hold", function) != napi_ok) return NULL;
  return exports;
}
