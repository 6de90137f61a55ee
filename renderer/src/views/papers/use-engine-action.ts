// An engine call a form or button makes: `run` clears the last failure, calls, and hands the
// answer on; a refusal is kept as the named failure the form shows (FailureLine).
import { useCallback, useState } from 'react';
import { describeFailure, type Failure } from './failure.ts';

export function useEngineAction() {
  const [failure, setFailure] = useState<Failure | null>(null);
  const run = useCallback(<T>(call: () => Promise<T>, onDone?: (answer: T) => void) => {
    setFailure(null);
    call().then(
      (answer) => {
        onDone?.(answer);
      },
      (error: unknown) => {
        setFailure(describeFailure(error));
      },
    );
  }, []);
  /** A failure found before any call (a selection that is not a span), shown the same way. */
  const fail = useCallback((error: unknown) => {
    setFailure(describeFailure(error));
  }, []);
  return { failure, run, fail };
}
