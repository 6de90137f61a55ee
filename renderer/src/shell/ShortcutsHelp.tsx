// The keyboard shortcuts help, a modal <dialog> listing what the registry holds. It is mounted only
// while open; Escape (registered here while it is open), the Close button or the backdrop close it.
import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { ShortcutRegistry } from '../shortcuts/registry.ts';

export interface ShortcutsHelpProps {
  registry: ShortcutRegistry;
  onClose: () => void;
}

export function ShortcutsHelp({ registry, onClose }: ShortcutsHelpProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useSyncExternalStore(registry.subscribe, registry.revision);

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => {
      element?.close();
    };
  }, []);

  useEffect(
    () =>
      registry.register({
        id: 'help.close',
        keys: 'Escape',
        description: 'Close this help',
        run: onClose,
        whenEditing: true,
      }),
    [registry, onClose],
  );

  return (
    <dialog
      ref={dialog}
      className="shortcuts-help"
      data-testid="shortcuts-help"
      aria-labelledby="shortcuts-help-title"
      // The browser's own Escape handling; ours usually gets there first.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      {/* Padding lives on this body, so a click on the dialog element itself is the backdrop. */}
      <div className="shortcuts-help-body">
        <h2 id="shortcuts-help-title">Keyboard shortcuts</h2>
        <table className="shortcuts-table">
          <tbody>
            {registry.list().map((shortcut) => (
              <tr key={shortcut.id} data-testid={`shortcut-${shortcut.id}`}>
                <td>
                  <kbd>{shortcut.label}</kbd>
                </td>
                <td>{shortcut.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="shortcuts-help-actions">
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </dialog>
  );
}
