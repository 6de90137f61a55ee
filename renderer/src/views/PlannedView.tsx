// The honest empty state of a view that is not built yet: what it will do, and which issue brings it.
import type { ReactNode } from 'react';
import type { ViewId } from '../../../app/api/index.ts';

export interface PlannedViewProps {
  view: ViewId;
  title: string;
  /** One or two sentences on what the view will do (DESIGN.md, "The UI"). */
  children: ReactNode;
  /** The issue that builds it, e.g. 'issue #6 (the engine behind it: issue #4)'. */
  arrivesWith: string;
}

export function PlannedView({ view, title, children, arrivesWith }: PlannedViewProps) {
  return (
    <section className="view" data-testid={`view-${view}`} aria-labelledby={`view-${view}-title`}>
      <h1 id={`view-${view}-title`}>{title}</h1>
      <p className="view-purpose">{children}</p>
      <p className="view-arrival" data-testid="view-arrival">
        Not built yet. Arrives with {arrivesWith}.
      </p>
    </section>
  );
}
