// Stage-by-stage progress on stderr for the CLIs: a spinner with elapsed time when stderr is a
// terminal, plain start/finish lines otherwise (logs, CI).

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export class Progress {
  private readonly tty: boolean;
  private timer: NodeJS.Timeout | undefined;
  private label = '';
  private detail = '';
  private started = 0;
  private frame = 0;

  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly quiet = false,
  ) {
    this.tty = Boolean(out.isTTY) && !quiet;
  }

  /** Run one stage, showing its name and elapsed time; resolves to its value and duration. */
  async stage<T>(label: string, work: (update: (detail: string) => void) => Promise<T> | T): Promise<{ value: T; ms: number }> {
    this.label = label;
    this.detail = '';
    this.started = performance.now();
    if (this.tty) {
      this.timer = setInterval(() => this.draw(), 80);
      this.draw();
    } else if (!this.quiet) {
      this.out.write(`${label}…\n`);
    }
    try {
      const value = await work((d) => {
        this.detail = d;
        if (this.tty) this.draw();
      });
      const ms = performance.now() - this.started;
      this.finish(`✔ ${label} (${formatSeconds(ms)})`);
      return { value, ms };
    } catch (e) {
      this.finish(`✘ ${label} (${formatSeconds(performance.now() - this.started)})`);
      throw e;
    }
  }

  private draw(): void {
    const elapsed = formatSeconds(performance.now() - this.started);
    const detail = this.detail ? ` ${this.detail}` : '';
    this.out.write(`\r\x1b[2K${FRAMES[this.frame++ % FRAMES.length]} ${this.label}${detail} ${elapsed}`);
  }

  private finish(line: string): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.tty) this.out.write(`\r\x1b[2K${line}\n`);
    else if (!this.quiet) this.out.write(`  ${line}\n`);
  }
}
