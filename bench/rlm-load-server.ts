// The 200 ms OpenAI-compatible server of bench:rlm's load test, run as its own process (as a real
// server would be) so that its work does not share the engine's event loop. Forked by
// bench/rlm.ts; reports its URL, then its counters when asked, over the IPC channel. It also notes
// when each request arrived (epoch ms), by wave: which agent kind and turn it is for.
import { startFakeOpenAI, turnOf } from './fake-openai-server.ts';

const repl = (code: string) => '```repl\n' + code + '\n```';
const delayMs = Number(process.argv[2] ?? '200');

let arrivals: Record<string, number[]> = {};

const server = await startFakeOpenAI(delayMs, (messages) => {
  const turn = turnOf(messages);
  const child = (messages[0]?.content ?? '').includes(
    'helper working inside a Python REPL on one sub-problem',
  );
  (arrivals[`${child ? 'child' : 'root'}_turn${String(turn)}`] ??= []).push(
    performance.timeOrigin + performance.now(),
  );
  if (child)
    return (
      [repl('part = len(context)'), repl('print(part)'), repl("FINAL_VAR('part')")][turn - 1] ??
      'FINAL(0)'
    );
  return (
    [
      repl("parts = rlm_query_batched(['a', 'b', 'c'], ['one', 'two', 'three'])"),
      repl('print(parts)'),
      repl("FINAL_VAR('parts')"),
    ][turn - 1] ?? 'FINAL(0)'
  );
});

process.on('message', (message) => {
  if (message === 'reset') {
    // Between passes: counts start again and idle keep-alive connections close, so the next pass
    // connects as the first did.
    arrivals = {};
    server.resetCounters();
    server.closeIdle();
    process.send?.('reset');
  }
  if (message === 'counters') {
    process.send?.({
      requests: server.requests(),
      maxInFlight: server.maxInFlight(),
      connections: server.connections(),
      arrivals,
    });
  }
});
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
process.send?.({ url: server.url });
