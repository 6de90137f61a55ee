// A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal (pipes, CI).
export interface ProgressBar {
  update(done: number, total: number, label: string): void;
  finish(): void;
}

export const silentProgress: ProgressBar = { update: () => undefined, finish: () => undefined };

export function progressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  if (!stream.isTTY) return silentProgress;
  let drawn = false;
  return {
    update(done, total, label) {
      const width = 28;
      const filled = total > 0 ? Math.round((done / total) * width) : 0;
      const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
      const columns = stream.columns || 80;
      const line = `${bar} ${done}/${total} ${label}`.slice(0, columns - 1);
      stream.write(`\r\x1b[2K${line}`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
