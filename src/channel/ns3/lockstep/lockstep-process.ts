import type { PipedProcess } from '../../../host/exec/piped-process.js';
import { startPipedProcess } from '../../../host/exec/start-piped-process.js';
import { lastLines } from '../../../util/last-lines.js';

/** How a process ended, with the last lines it wrote to stderr. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

/** What a run attached to a process hears from it. */
export interface RunSink {
  line(text: string): void;
  ended(how: ProcessEnd): void;
}

const STDERR_LINES = 12;

/**
 * The lock-step program in serving mode (`--serve`): one process runs many runs, one at a time.
 * A run begins with its arguments on a `C` line and ends with `Q`, after which the process waits
 * for the next. Lines it writes while no run is attached break the protocol and end it.
 */
export class LockstepProcess {
  private sink: RunSink | undefined;
  private stdoutRest = '';
  private stderrText = '';
  private end: ProcessEnd | undefined;
  /** Runs this process has begun. */
  runs = 0;

  private constructor(
    private readonly child: PipedProcess,
    readonly binary: string,
  ) {
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => (this.stderrText = (this.stderrText + text).slice(-8192)));
    child.stdout.on('data', (text: string) => this.onStdout(text));
    child.stdin.on('error', () => {}); // a dead process is reported through 'exit'
    void child.exit.then(({ code, signal }) => {
      this.end = { code, signal, stderrTail: lastLines(this.stderrText, STDERR_LINES).join('\n') };
      this.sink?.ended(this.end);
    });
  }

  static spawn(binary: string): LockstepProcess {
    return new LockstepProcess(startPipedProcess(binary, ['--serve']), binary);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.end === undefined;
  }

  /** Resolves when the process has exited. */
  get exited(): Promise<void> {
    return this.child.exit.then(() => {});
  }

  /** Starts a run with these arguments; its output goes to `sink` until `finishRun`. */
  beginRun(args: readonly string[], sink: RunSink): void {
    const bad = args.find((a) => /[\t\n]/.test(a));
    if (bad !== undefined) throw new Error(`an ns-3 argument cannot hold a tab or a line break: ${JSON.stringify(bad)}`);
    this.sink = sink;
    this.stderrText = '';
    this.runs++;
    this.hold(true);
    if (this.end) return sink.ended(this.end);
    this.child.stdin.write(`C\t${args.join('\t')}\n`);
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** Ends the run cleanly (every request answered): the process waits for the next one. */
  finishRun(): void {
    this.sink = undefined;
    this.child.stdin.write('Q\n');
    this.hold(false);
  }

  /** Ends the process: it exits when it reads the end of its input; one still there after 2 s is killed. */
  close(): void {
    this.sink = undefined;
    if (this.end) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.kill(), 2000);
    timer.unref();
    void this.exited.then(() => clearTimeout(timer));
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** A process between runs must not keep Node alive; one serving a run must. */
  private hold(yes: boolean): void {
    this.child.hold(yes);
  }

  private onStdout(text: string): void {
    const lines = (this.stdoutRest + text).split('\n');
    this.stdoutRest = lines.pop() ?? '';
    for (const line of lines) {
      if (!this.sink) {
        this.stderrText += `\nwrote "${line.slice(0, 120)}" while no run was attached`;
        this.kill();
        return;
      }
      this.sink.line(line);
    }
  }
}
