import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MessageBatch } from './message-batch.ts';

describe('MessageBatch', () => {
  it('sends the messages of one event-loop turn as one frame, in order', async () => {
    const frames: number[][] = [];
    const batch = new MessageBatch<number>((frame) => frames.push(frame));
    batch.send(1);
    batch.send(2);
    batch.send(3);
    expect(frames).toEqual([]);
    await nextTurn();
    batch.send(4);
    await nextTurn();
    expect(frames).toEqual([[1, 2, 3], [4]]);
  });

  it('flushes at once when asked, and drops what is pending on clear', async () => {
    const frames: string[][] = [];
    const batch = new MessageBatch<string>((frame) => frames.push(frame));
    batch.send('fatal');
    batch.flush();
    expect(frames).toEqual([['fatal']]);
    batch.send('lost');
    batch.clear();
    await nextTurn();
    batch.flush();
    expect(frames).toEqual([['fatal']]);
  });
});
