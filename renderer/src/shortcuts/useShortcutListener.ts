// The app's one window keydown listener: it hands each keystroke to the registry and stops the
// browser's default only when a shortcut ran.
import { useEffect } from 'react';
import type { ShortcutRegistry } from './registry.ts';

const nonTextInputTypes = new Set([
  'button',
  'checkbox',
  'color',
  'file',
  'image',
  'radio',
  'range',
  'reset',
  'submit',
]);

/** Where typing a character means text, so single-key shortcuts must stay out of the way. */
export function isEditableTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !nonTextInputTypes.has(target.type);
}

export function useShortcutListener(registry: ShortcutRegistry): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      const handled = registry.handle({
        key: event.key,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        altKey: event.altKey,
        shiftKey: event.shiftKey,
        inEditableTarget: isEditableTarget(event.target),
      });
      if (handled) event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
    };
  }, [registry]);
}
