// Peak resident memory of this process and its child processes (the REPL runs in one), sampled
// from /proc every 50 ms while a measurement runs.
import { readdirSync, readFileSync } from 'node:fs';

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

export function peakRss(): {
  stop(): { totalBytes: number; mainBytes: number; childBytes: number };
} {
  let peak = { totalBytes: 0, mainBytes: 0, childBytes: 0 };
  const sample = () => {
    const mainBytes = process.memoryUsage.rss();
    const childBytes = childrenOf(process.pid).reduce((sum, pid) => sum + rssOf(pid), 0);
    if (mainBytes + childBytes > peak.totalBytes)
      peak = { totalBytes: mainBytes + childBytes, mainBytes, childBytes };
  };
  sample();
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
