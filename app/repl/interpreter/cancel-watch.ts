// A worker thread of the interpreter process: it blocks reading run ids from the host's cancel
// pipe (fd 4) and marks them in shared memory, so the interrupt check sees a cancel even while
// the main thread is busy running Python and cannot read messages.
import { readSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const CANCEL_FD = 4;
const slots = new Int32Array((workerData as { slots: SharedArrayBuffer }).slots);
const buffer = Buffer.alloc(4096);
let pending = Buffer.alloc(0);

for (;;) {
  let read: number;
  try {
    read = readSync(CANCEL_FD, buffer, 0, buffer.length, null);
  } catch {
    break;
  }
  if (read === 0) break;
  pending = Buffer.concat([pending, buffer.subarray(0, read)]);
  const whole = pending.length - (pending.length % 4);
  for (let offset = 0; offset < whole; offset += 4) {
    const runId = pending.readInt32LE(offset);
    Atomics.store(slots, runId % slots.length, runId);
  }
  pending = pending.subarray(whole);
}
