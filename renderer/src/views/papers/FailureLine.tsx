// A named error shown where it happened: "Name: message", announced to screen readers.
import type { Failure } from './failure.ts';

export function FailureLine(props: { failure: Failure | null | undefined; testId?: string }) {
  if (!props.failure) return null;
  return (
    <p className="papers-failure" role="alert" data-testid={props.testId}>
      {props.failure.name}: {props.failure.message}
    </p>
  );
}
