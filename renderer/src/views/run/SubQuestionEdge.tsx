// An edge from a parent to a child agent, labelled with the child's sub-question just above the
// child's card. Siblings' labels are then a card's width apart; at the edges' midpoints they were
// half that, and ran into each other.
import { BaseEdge, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';

/** How far above the child's top handle the label's centre sits, in flow units. */
const labelLift = 14;

export const SubQuestionEdge = memo(function SubQuestionEdge(props: EdgeProps) {
  const [path] = getBezierPath(props);
  return (
    <BaseEdge
      id={props.id}
      path={path}
      label={props.label}
      labelX={props.targetX}
      labelY={props.targetY - labelLift}
      {...(props.labelStyle ? { labelStyle: props.labelStyle } : {})}
      {...(props.style ? { style: props.style } : {})}
      {...(props.markerEnd ? { markerEnd: props.markerEnd } : {})}
      {...(props.interactionWidth === undefined
        ? {}
        : { interactionWidth: props.interactionWidth })}
    />
  );
});
