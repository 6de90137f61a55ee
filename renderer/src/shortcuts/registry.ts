// The keyboard shortcuts of the app: one registry, one key chord per shortcut (a second claim on the
// same chord throws), and a help listing. Pure: it never touches the DOM, so it runs in node tests.
import {
  chordId,
  chordLabel,
  chordOfStroke,
  parseChord,
  type KeyStroke,
  type Platform,
} from './chord.ts';

export interface ShortcutDefinition {
  /** Stable id, e.g. 'view.papers'; named in conflict errors. */
  id: string;
  /** Key spec such as 'Mod+1', 'Mod+Shift+L', '?' or 'Escape'. */
  keys: string;
  description: string;
  run: () => void;
  /** Also fire while typing in an input, textarea or contenteditable (default: no). */
  whenEditing?: boolean;
}

export interface ShortcutListing {
  id: string;
  keys: string;
  /** The chord as this platform writes it ('⌘1' or 'Ctrl+1'). */
  label: string;
  description: string;
}

export type DisposeShortcut = () => void;

/** Two shortcuts claim the same chord. */
export class ShortcutConflictError extends Error {
  override readonly name = 'ShortcutConflictError';
  constructor(keys: string, requestedBy: string, taken: ShortcutDefinition) {
    const spelling = taken.keys === keys ? '' : ` (as '${taken.keys}')`;
    super(
      `Shortcut '${keys}' for '${requestedBy}' is already taken by '${taken.id}'${spelling}; ` +
        'give one of them other keys, or dispose the first before registering the second',
    );
  }
}

interface Registration {
  definition: ShortcutDefinition;
  label: string;
}

export class ShortcutRegistry {
  readonly platform: Platform;
  readonly #byChord = new Map<string, Registration>();
  readonly #listeners = new Set<() => void>();
  #revision = 0;

  constructor(platform: Platform) {
    this.platform = platform;
  }

  /** Claims the definition's chord; the returned function releases it (calling it twice is harmless). */
  register(definition: ShortcutDefinition): DisposeShortcut {
    const chord = parseChord(definition.keys, this.platform);
    const id = chordId(chord);
    const taken = this.#byChord.get(id);
    if (taken) throw new ShortcutConflictError(definition.keys, definition.id, taken.definition);
    const registration: Registration = { definition, label: chordLabel(chord, this.platform) };
    this.#byChord.set(id, registration);
    this.#changed();
    return () => {
      if (this.#byChord.get(id) !== registration) return;
      this.#byChord.delete(id);
      this.#changed();
    };
  }

  /** Registers all or none: if one conflicts, those already registered are released again. */
  registerAll(definitions: readonly ShortcutDefinition[]): DisposeShortcut {
    const disposers: DisposeShortcut[] = [];
    const disposeAll = () => {
      for (const dispose of disposers.splice(0)) dispose();
    };
    try {
      for (const definition of definitions) disposers.push(this.register(definition));
    } catch (error) {
      disposeAll();
      throw error;
    }
    return disposeAll;
  }

  /** Runs the shortcut bound to this keystroke, if any; true when one ran. */
  handle(stroke: KeyStroke): boolean {
    const registration = this.#byChord.get(chordId(chordOfStroke(stroke)));
    if (!registration) return false;
    if (stroke.inEditableTarget && registration.definition.whenEditing !== true) return false;
    registration.definition.run();
    return true;
  }

  /** Counts registrations and disposals; an external-store snapshot for views of `list()`. */
  readonly revision = (): number => this.#revision;

  /** Calls the listener after every registration or disposal. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  #changed(): void {
    this.#revision += 1;
    for (const listener of this.#listeners) listener();
  }

  /** Every registered shortcut, in registration order, for the help overlay. */
  list(): ShortcutListing[] {
    return [...this.#byChord.values()].map(({ definition, label }) => ({
      id: definition.id,
      keys: definition.keys,
      label,
      description: definition.description,
    }));
  }
}
