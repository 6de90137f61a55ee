// Tells a scroller's user scrolls from the ones the app makes, so the text and the PDF can follow
// each other without a feedback loop: a panel reports scrolls only after the user touched it (wheel,
// pointer, key, touch) more recently than the app last scrolled it.
import { useCallback, useEffect, useEffectEvent, useRef, type RefObject } from 'react';

const userInputs = ['wheel', 'pointerdown', 'keydown', 'touchstart'] as const;

export interface UserScroll {
  /** Scrolls the element for the app; the scroll events it causes are not reported. */
  scrollTo: (top: number) => void;
}

export function useUserScroll(
  scroller: RefObject<HTMLElement | null>,
  onUserScroll: (element: HTMLElement) => void,
): UserScroll {
  const lastInput = useRef(0);
  const lastAppScroll = useRef(0);
  const report = useEffectEvent(onUserScroll);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    let frame = 0;
    const noteInput = () => {
      lastInput.current = performance.now();
    };
    const onScroll = () => {
      if (frame !== 0 || lastInput.current <= lastAppScroll.current) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        report(element);
      });
    };
    for (const kind of userInputs) element.addEventListener(kind, noteInput, { passive: true });
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      for (const kind of userInputs) element.removeEventListener(kind, noteInput);
      element.removeEventListener('scroll', onScroll);
    };
  }, [scroller]);

  const scrollTo = useCallback(
    (top: number) => {
      const element = scroller.current;
      if (!element) return;
      lastAppScroll.current = performance.now();
      element.scrollTop = top;
    },
    [scroller],
  );
  return { scrollTo };
}
